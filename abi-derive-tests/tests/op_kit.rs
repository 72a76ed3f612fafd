//! The framework ops of `examples/op-kit`, linked into this binary and called through their
//! packed shims as a host calls them: each rule form computes, a wrong dtype or shape is an
//! error naming the function and the parameter, an output sharing an input's memory is
//! refused, the JAX-order entry point of an in-place op takes the aliased buffer twice and
//! writes it once, and every op publishes its rules (`abi.op`).

use abi_core::schema::ShapeRule;
use abi_core::{Any, AnyView, Metadata, Result, Tensor};

fn call(name: &str, args: &[AnyView<'_>]) -> Result<Any> {
    // Naming a function of the crate links it (and its exports) into this binary.
    let _ = op_kit::scale_rows;
    abi_core::find_export(name).unwrap_or_else(|| panic!("`{name}` is exported")).function().call_packed(args)
}

fn scalar<T: abi_core::IntoAny>(v: T) -> Any {
    Any::from_value(v).expect("a scalar")
}

fn tensor<T: abi_core::Element>(data: Vec<T>, shape: &[i64]) -> Tensor {
    Tensor::from_vec(data, shape).expect("a tensor")
}

fn values<T: abi_core::Element>(t: &Tensor) -> Vec<T> {
    t.view().as_slice::<T>().expect("host elements").to_vec()
}

fn op(name: &str) -> abi_core::schema::OpInfo {
    let meta = Metadata::parse(abi_core::find_export(name).expect("exported").metadata_json()).expect("metadata");
    meta.op.unwrap_or_else(|| panic!("`{name}` is an op"))
}

#[test]
fn scale_rows_and_its_backward_compute() {
    let x = tensor(vec![1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
    let k = tensor(vec![1.0f64, 10.0, 100.0], &[3]);
    let y = tensor(vec![0.0f64; 6], &[2, 3]);
    let (xa, ka, ya) = (Any::from(x), Any::from(k), Any::from(y.clone()));
    assert!(call("scale_rows", &[xa.view(), ka.view(), ya.view()]).expect("a call").view().is_none());
    assert_eq!(values::<f64>(&y), [1.0, 20.0, 300.0, 4.0, 50.0, 600.0]);

    let dy = Any::from(tensor(vec![1.0f64, 1.0, 1.0, 2.0, 2.0, 2.0], &[2, 3]));
    let (dx, dk) = (tensor(vec![9.0f64; 6], &[2, 3]), tensor(vec![9.0f64; 3], &[3]));
    let (dxa, dka) = (Any::from(dx.clone()), Any::from(dk.clone()));
    call("scale_rows_bwd", &[xa.view(), ka.view(), dy.view(), dxa.view(), dka.view()]).expect("a call");
    assert_eq!(values::<f64>(&dx), [1.0, 10.0, 100.0, 2.0, 20.0, 200.0]);
    assert_eq!(values::<f64>(&dk), [1.0 + 8.0, 2.0 + 10.0, 3.0 + 12.0]);
}

#[test]
fn shape_rules_of_axes_and_scalars_compute() {
    let a = Any::from(tensor(vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]));
    let b = Any::from(tensor(vec![1.0f32, 0.0, 0.0, 1.0, 1.0, 1.0], &[3, 2]));
    let c = tensor(vec![0.0f32; 4], &[2, 2]);
    call("matmul", &[a.view(), b.view(), Any::from(c.clone()).view()]).expect("a call");
    assert_eq!(values::<f32>(&c), [4.0, 5.0, 10.0, 11.0]);

    let y = tensor(vec![0.0f64; 4], &[4]);
    call("ramp", &[scalar(4i64).view(), scalar(0.5f64).view(), Any::from(y.clone()).view()]).expect("a call");
    assert_eq!(values::<f64>(&y), [0.0, 0.5, 1.0, 1.5]);

    let x = Any::from(tensor(vec![3.0f32, -1.0, 2.0, 7.0, 0.0, 5.0], &[2, 3]));
    let (lo, hi) = (tensor(vec![0.0f32; 2], &[2]), tensor(vec![0.0f32; 2], &[2]));
    call("minmax", &[x.view(), Any::from(lo.clone()).view(), Any::from(hi.clone()).view()]).expect("a call");
    assert_eq!((values::<f32>(&lo), values::<f32>(&hi)), (vec![-1.0, 0.0], vec![3.0, 7.0]));
}

#[test]
fn a_wrong_dtype_or_shape_is_an_error_naming_the_parameter() {
    let x32 = Any::from(tensor(vec![1.0f32; 6], &[2, 3]));
    let k = Any::from(tensor(vec![1.0f64; 3], &[3]));
    let y = Any::from(tensor(vec![0.0f64; 6], &[2, 3]));
    let e = call("scale_rows", &[x32.view(), k.view(), y.view()]).expect_err("float32 for float64");
    assert_eq!(e.kind(), "TypeError");
    assert!(e.message().starts_with("scale_rows(x: Tensor[f64, 2], k: Tensor[f64, 1], y: Tensor[f64, 2]) -> None"));
    assert!(e.message().contains("`x`") && e.message().contains("float64"), "{}", e.message());

    let x = Any::from(tensor(vec![1.0f64; 6], &[2, 3]));
    let short = Any::from(tensor(vec![0.0f64; 4], &[2, 2]));
    let e = call("scale_rows", &[x.view(), k.view(), short.view()]).expect_err("an output of the wrong shape");
    assert_eq!((e.kind(), e.message()), ("ValueError", "`y` has shape [2, 2], expected [2, 3]"));
}

#[test]
fn an_output_sharing_an_input_is_refused() {
    let x = Any::from(tensor(vec![1.0f64; 6], &[2, 3]));
    let k = Any::from(tensor(vec![2.0f64; 3], &[3]));
    let e = call("scale_rows", &[x.view(), k.view(), x.view()]).expect_err("y aliases x");
    assert!(e.message().contains("argument `y` (#2) shares memory with argument `x` (#0)"), "{}", e.message());
    assert_eq!(values::<f64>(&x.view().to::<Tensor>().expect("a tensor")), [1.0; 6], "the body did not run");
}

#[test]
fn in_place_ops_and_their_jax_entry_points() {
    let x = tensor(vec![-1.0f32, 2.0, -3.0, 4.0], &[2, 2]);
    let xa = Any::from(x.clone());
    call("relu_", &[xa.view()]).expect("a call");
    assert_eq!(values::<f32>(&x), [0.0, 2.0, 0.0, 4.0]);

    // jax-tvm-ffi passes an aliased buffer as the input and as the output.
    let x = tensor(vec![-5.0f32, 6.0, 7.0, -8.0], &[2, 2]);
    let xa = Any::from(x.clone());
    call("relu___jax", &[xa.view(), xa.view()]).expect("the input copy is not a second tensor");
    assert_eq!(values::<f32>(&x), [0.0, 6.0, 7.0, 0.0]);

    // axpy_(x, alpha, y) in JAX's order: x, y's input copy, alpha, y.
    let xs = Any::from(tensor(vec![1.0f64, 2.0], &[2]));
    let y = tensor(vec![10.0f64, 20.0], &[2]);
    let ya = Any::from(y.clone());
    call("axpy___jax", &[xs.view(), ya.view(), scalar(3.0f64).view(), ya.view()]).expect("a call");
    assert_eq!(values::<f64>(&y), [13.0, 26.0]);
    // Its own entry still refuses the in-place tensor aliasing an input.
    let e = call("axpy_", &[ya.view(), scalar(1.0f64).view(), ya.view()]).expect_err("y aliases x");
    assert_eq!(e.kind(), "ValueError");

    let relu = abi_core::find_export("relu___jax").expect("exported");
    assert_eq!(relu.signature_text(), "relu___jax(x__in: Any, x: Tensor[f32, 2]) -> None");
    let axpy = abi_core::find_export("axpy___jax").expect("exported");
    assert_eq!(
        axpy.signature_text(),
        "axpy___jax(x: Tensor[f64, 1], y__in: Any, alpha: float, y: Tensor[f64, 1]) -> None"
    );
    assert!(!axpy.metadata_json().contains(abi_shared::OP_KEY), "the JAX entry is no op of its own");
}

#[test]
fn every_op_publishes_its_rules() {
    let scale = op("scale_rows");
    assert_eq!(
        (scale.inputs.as_slice(), scale.backward.as_deref(), scale.jax.clone()),
        (&["x".to_owned(), "k".to_owned()][..], Some("scale_rows_bwd"), None)
    );
    assert_eq!(scale.rule_of("y"), Some(&ShapeRule::Like("x".into())));
    // Inputs that take any strides (StridedTensor) are named; the others need compact data.
    assert!(scale.strided.is_empty());
    assert_eq!(op("strides_of").strided, ["x"]);
    let matmul = op("matmul");
    assert_eq!(matmul.rule_of("c").map(ShapeRule::text).as_deref(), Some("out = [a.0, b.1]"));
    let ramp = op("ramp");
    assert_eq!(
        (ramp.scalars.clone(), ramp.rule_of("y").map(ShapeRule::text)),
        (vec!["n".to_owned(), "step".to_owned()], Some("out = [n]".to_owned()))
    );
    let relu = op("relu_");
    assert_eq!(
        (relu.inout, relu.jax.as_deref(), relu.device.as_str()),
        (vec!["x".to_owned()], Some("relu___jax"), "cpu")
    );
    let text = abi_core::find_export("scale_rows").expect("exported").metadata_json();
    assert!(
        text.ends_with(&format!(
            r#","abi.op":{{"inputs":["x","k"],"scalars":[],"outputs":[{{"name":"y","like":"x"}}],"inout":[],"backward":"scale_rows_bwd","jax":null,"device":"cpu"}},"abi.version":{}}}"#,
            abi_shared::METADATA_VERSION
        )),
        "{text}"
    );
}

#[test]
fn an_enum_scalar_crosses_as_its_name_and_the_backward_takes_it_too() {
    let x = Any::from(tensor(vec![-1.0f32, 0.0, 2.0, -3.0], &[2, 2]));
    let y = tensor(vec![9.0f32; 4], &[2, 2]);
    call("activate", &[x.view(), scalar("relu").view(), Any::from(y.clone()).view()]).expect("a call");
    assert_eq!(values::<f32>(&y), [0.0, 0.0, 2.0, 0.0]);
    let dx = tensor(vec![9.0f32; 4], &[2, 2]);
    let dy = Any::from(tensor(vec![1.0f32, 1.0, 2.0, 2.0], &[2, 2]));
    call("activate_bwd", &[x.view(), dy.view(), scalar("relu").view(), Any::from(dx.clone()).view()]).expect("a call");
    assert_eq!(values::<f32>(&dx), [0.0, 0.0, 2.0, 0.0]);
    let e = call("activate", &[x.view(), scalar("gelu").view(), Any::from(y).view()]).expect_err("no such name");
    assert_eq!(e.kind(), "ValueError");
    assert!(
        e.message().ends_with(r#""gelu" is not a name of Activation; it takes "relu", "tanh", "sigmoid""#),
        "{}",
        e.message()
    );
    let activate = op("activate");
    assert_eq!(
        (activate.scalars.as_slice(), activate.backward.as_deref()),
        (&["kind".to_owned()][..], Some("activate_bwd"))
    );
    assert_eq!(op("activate_bwd").scalars, ["kind"]);
}
