//! The `abi.op` object an `#[export_fn(op)]` export publishes: the exact text for ops of
//! each rule form (like an input, a shape of axes, scalars and constants, in place, a
//! backward and a JAX entry point), written just before `abi.version`, and read back by
//! `Metadata` into the same text.

use abi_core::__private::{FnDesc, OpDesc, OpDevice, OpDim, OpOutput, OpRule, ParamDesc, TypeDesc};
use abi_core::schema::{ShapeDim, ShapeRule};
use abi_core::Metadata;

static F64: TypeDesc = TypeDesc::Float { bits: 64, brain: false };
static I64: TypeDesc = TypeDesc::Int { bits: 64, signed: true };
static M2: TypeDesc = TypeDesc::Tensor { elem: Some(&F64), rank: Some(2), cast: false };
static V1: TypeDesc = TypeDesc::Tensor { elem: Some(&F64), rank: Some(1), cast: false };

static SCALE_PARAMS: [ParamDesc; 3] = [ParamDesc::new("x", &M2), ParamDesc::new("k", &V1), ParamDesc::new("y", &M2)];
static SCALE_OP: OpDesc = OpDesc {
    inputs: &["x", "k"],
    scalars: &[],
    outputs: &[OpOutput { name: "y", rule: OpRule::Like("x") }],
    backward: Some("scale_rows_bwd"),
    jax: None,
    device: OpDevice::Cpu,
    strided: &[],
};
static SCALE: FnDesc = FnDesc::new("scale_rows", &SCALE_PARAMS, &TypeDesc::None, "").with_op(&SCALE_OP);

static RAMP_PARAMS: [ParamDesc; 4] =
    [ParamDesc::new("a", &M2), ParamDesc::new("n", &I64), ParamDesc::new("step", &F64), ParamDesc::new("y", &M2)];
static RAMP_OP: OpDesc = OpDesc {
    inputs: &["a"],
    scalars: &["n", "step"],
    outputs: &[OpOutput {
        name: "y",
        rule: OpRule::Shape(&[OpDim::Axis("a", 1), OpDim::Scalar("n"), OpDim::Const(3)]),
    }],
    backward: None,
    jax: None,
    device: OpDevice::Gpu,
    strided: &["a"],
};
static RAMP: FnDesc = FnDesc::new("ramp", &RAMP_PARAMS, &TypeDesc::None, "").with_op(&RAMP_OP);

static RELU_PARAMS: [ParamDesc; 2] = [ParamDesc::new("x", &M2), ParamDesc::new("y", &M2)];
static RELU_OP: OpDesc = OpDesc {
    inputs: &[],
    scalars: &[],
    outputs: &[OpOutput { name: "x", rule: OpRule::InOut }, OpOutput { name: "y", rule: OpRule::Like("x") }],
    backward: None,
    jax: Some("relu___jax"),
    device: OpDevice::Cpu,
    strided: &[],
};
static RELU: FnDesc = FnDesc::new("relu_", &RELU_PARAMS, &TypeDesc::None, "").with_op(&RELU_OP);

/// The `abi.op` object and what follows it.
fn op_text(f: &FnDesc) -> String {
    let json = f.metadata_json();
    let at = json.find(",\"abi.op\":").unwrap_or_else(|| panic!("no abi.op in {json}"));
    json[at + 1..].to_owned()
}

fn version() -> u32 {
    abi_shared::METADATA_VERSION
}

#[test]
fn ops_publish_their_rules_before_the_version() {
    assert_eq!(
        op_text(&SCALE),
        format!(
            r#""abi.op":{{"inputs":["x","k"],"scalars":[],"outputs":[{{"name":"y","like":"x"}}],"inout":[],"backward":"scale_rows_bwd","jax":null,"device":"cpu"}},"abi.version":{}}}"#,
            version()
        )
    );
    assert_eq!(
        op_text(&RAMP),
        format!(
            r#""abi.op":{{"inputs":["a"],"scalars":["n","step"],"outputs":[{{"name":"y","shape":["a.1","n",3]}}],"inout":[],"backward":null,"jax":null,"device":"gpu","strided":["a"]}},"abi.version":{}}}"#,
            version()
        )
    );
    assert_eq!(
        op_text(&RELU),
        format!(
            r#""abi.op":{{"inputs":[],"scalars":[],"outputs":[{{"name":"x","inout":true}},{{"name":"y","like":"x"}}],"inout":["x"],"backward":null,"jax":"relu___jax","device":"cpu"}},"abi.version":{}}}"#,
            version()
        )
    );
}

#[test]
fn plain_exports_publish_no_op() {
    let plain = FnDesc::new("f", &SCALE_PARAMS, &TypeDesc::None, "");
    assert!(!plain.metadata_json().contains("abi.op"));
    assert_eq!(Metadata::parse(&plain.metadata_json()).expect("parses").op, None);
}

#[test]
fn the_op_reads_back_into_the_same_text_and_model() {
    for f in [&SCALE, &RAMP, &RELU] {
        let text = f.metadata_json();
        let meta = Metadata::parse(&text).expect("the reader reads what the writer writes");
        assert_eq!(meta.to_json(), text);
        assert_eq!(meta.op, Metadata::declared(f).op, "{}", f.name);
    }
    let ramp = Metadata::parse(&RAMP.metadata_json()).expect("parses").op.expect("an op");
    assert_eq!(
        ramp.rule_of("y"),
        Some(&ShapeRule::Shape(vec![ShapeDim::Axis("a".into(), 1), ShapeDim::Scalar("n".into()), ShapeDim::Const(3)]))
    );
    assert_eq!(ramp.rule_of("y").map(ShapeRule::text).as_deref(), Some("out = [a.1, n, 3]"));
    assert_eq!(ramp.strided, ["a"], "the inputs taking any strides");
    let relu = Metadata::parse(&RELU.metadata_json()).expect("parses").op.expect("an op");
    assert!(relu.strided.is_empty());
    assert_eq!((relu.inout, relu.jax.as_deref()), (vec!["x".to_owned()], Some("relu___jax")));
}

#[test]
fn a_malformed_op_is_an_error() {
    let text = SCALE.metadata_json().replace(r#""like":"x""#, r#""like":3"#);
    let err = Metadata::parse(&text).expect_err("a rule that is not a name");
    assert!(err.message().contains("abi.op"), "{}", err.message());
}
