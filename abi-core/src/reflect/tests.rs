//! Unit tests of the `const fn` renderers of type and function descriptions (IREE records,
//! tvm-ffi `type_schema`, Python-style names, the compact signature, the metadata JSON)
//! checked against exact texts, and the JSON ones parsed by serde_json so an escaping
//! mistake fails even where the exact text was written with the same mistake; and the
//! metadata format pinned to its version.

use std::collections::{BTreeMap, HashMap};

use super::render::{
    fn_compact_signature, fn_iree_record, fn_metadata_json, fn_signature_text, fn_type_schema, type_display,
    type_iree_record, type_schema,
};
use super::writer::Writer;
use super::{leaf_count, Access, FieldDesc, FnDesc, ParamDesc, StructDesc, TypeDesc};
use crate::{AbiType, Any, AnyView, Metadata, Tensor};
use serde_json::{json, Value};

/// Renders with a counting pass and then a filling pass, as generated code does.
fn render(f: impl Fn(&mut Writer<'_>)) -> String {
    let mut count = Writer::new(&mut []);
    f(&mut count);
    let mut buf = vec![0u8; count.len()];
    let mut fill = Writer::new(&mut buf);
    f(&mut fill);
    assert_eq!(fill.len(), buf.len(), "both passes agree");
    String::from_utf8(buf).expect("renderers write UTF-8")
}

fn iree(ty: &TypeDesc) -> String {
    render(|w| type_iree_record(w, ty))
}
fn schema(ty: &TypeDesc) -> String {
    render(|w| type_schema(w, ty))
}
fn display(ty: &TypeDesc) -> String {
    render(|w| type_display(w, ty))
}

/// Checks all three renderings of `ty`, and that the JSON ones parse.
fn check(ty: &TypeDesc, iree_text: &str, schema_text: &str, display_text: &str) {
    assert_eq!(iree(ty), iree_text);
    assert_eq!(schema(ty), schema_text);
    assert_eq!(display(ty), display_text);
    parse(iree_text);
    parse(schema_text);
}

#[test]
fn scalars() {
    let ints = [
        (<i8 as AbiType>::DESC, "\"i8\""),
        (<i16 as AbiType>::DESC, "\"i16\""),
        (<i32 as AbiType>::DESC, "\"i32\""),
        (<i64 as AbiType>::DESC, "\"i64\""),
        (<isize as AbiType>::DESC, "\"i64\""),
        (<u8 as AbiType>::DESC, "\"u8\""),
        (<u16 as AbiType>::DESC, "\"u16\""),
        (<u32 as AbiType>::DESC, "\"u32\""),
        (<u64 as AbiType>::DESC, "\"u64\""),
        (<usize as AbiType>::DESC, "\"u64\""),
    ];
    for (desc, text) in ints {
        check(desc, text, r#"{"type":"int"}"#, "int");
    }
    check(<f32 as AbiType>::DESC, "\"f32\"", r#"{"type":"float"}"#, "float");
    check(<f64 as AbiType>::DESC, "\"f64\"", r#"{"type":"float"}"#, "float");
    check(&TypeDesc::Float { bits: 16, brain: false }, "\"f16\"", r#"{"type":"float"}"#, "float");
    check(&TypeDesc::Float { bits: 16, brain: true }, "\"bf16\"", r#"{"type":"float"}"#, "float");
    check(<bool as AbiType>::DESC, "\"i1\"", r#"{"type":"bool"}"#, "bool");
    check(<() as AbiType>::DESC, "null", r#"{"type":"None"}"#, "None");
    check(<String as AbiType>::DESC, "\"str\"", r#"{"type":"ffi.String"}"#, "str");
    check(<&str as AbiType>::DESC, "\"str\"", r#"{"type":"ffi.String"}"#, "str");
    check(<Vec<u8> as AbiType>::DESC, "\"bytes\"", r#"{"type":"ffi.Bytes"}"#, "bytes");
    check(<Any as AbiType>::DESC, "\"unknown\"", r#"{"type":"Any"}"#, "Any");
    check(<AnyView as AbiType>::DESC, "\"unknown\"", r#"{"type":"Any"}"#, "Any");
}

#[test]
fn leaf_objects() {
    let cases = [
        (&TypeDesc::OpaquePtr, r#"{"type":"void*"}"#, "void*"),
        (&TypeDesc::DataType, r#"{"type":"DataType"}"#, "DataType"),
        (&TypeDesc::Device, r#"{"type":"Device"}"#, "Device"),
        (&TypeDesc::Shape, r#"{"type":"ffi.Shape"}"#, "Shape"),
        (&TypeDesc::Function, r#"{"type":"ffi.Function"}"#, "Function"),
        (&TypeDesc::Error, r#"{"type":"ffi.Error"}"#, "Error"),
        (&TypeDesc::Object, r#"{"type":"ffi.Object"}"#, "Object"),
    ];
    for (desc, schema_text, display_text) in cases {
        check(desc, "\"unknown\"", schema_text, display_text);
    }
}

#[test]
fn nested_containers() {
    check(
        <Vec<Option<i32>> as AbiType>::DESC,
        r#"["py_homogeneous_list",["optional","i32"]]"#,
        r#"{"type":"ffi.Array","args":[{"type":"Optional","args":[{"type":"int"}]}]}"#,
        "list[Optional[int]]",
    );
    check(
        <HashMap<String, Vec<f32>> as AbiType>::DESC,
        r#"["py_homogeneous_dict","str",["py_homogeneous_list","f32"]]"#,
        r#"{"type":"ffi.Map","args":[{"type":"ffi.String"},{"type":"ffi.Array","args":[{"type":"float"}]}]}"#,
        "dict[str, list[float]]",
    );
    check(
        <BTreeMap<i64, Option<Vec<u8>>> as AbiType>::DESC,
        r#"["py_homogeneous_dict","i64",["optional","bytes"]]"#,
        r#"{"type":"ffi.Map","args":[{"type":"int"},{"type":"Optional","args":[{"type":"ffi.Bytes"}]}]}"#,
        "dict[int, Optional[bytes]]",
    );
    check(
        <(i64, bool, String, Vec<u8>) as AbiType>::DESC,
        r#"["stuple","i64","i1","str","bytes"]"#,
        r#"{"type":"Tuple","args":[{"type":"int"},{"type":"bool"},{"type":"ffi.String"},{"type":"ffi.Bytes"}]}"#,
        "tuple[int, bool, str, bytes]",
    );
    check(
        <Vec<Vec<(u8, f64)>> as AbiType>::DESC,
        r#"["py_homogeneous_list",["py_homogeneous_list",["stuple","u8","f64"]]]"#,
        r#"{"type":"ffi.Array","args":[{"type":"ffi.Array","args":[{"type":"Tuple","args":[{"type":"int"},{"type":"float"}]}]}]}"#,
        "list[list[tuple[int, float]]]",
    );
}

static F32: TypeDesc = TypeDesc::Float { bits: 32, brain: false };

#[test]
fn tensors() {
    check(
        &TypeDesc::Tensor { elem: Some(&F32), rank: Some(2), cast: false },
        r#"["ndarray","f32",2,null,null]"#,
        r#"{"type":"ffi.Tensor","dtype":"float32","ndim":2}"#,
        "Tensor[f32, 2]",
    );
    check(
        &TypeDesc::Tensor { elem: Some(&F32), rank: Some(0), cast: false },
        r#"["ndarray","f32",0]"#,
        r#"{"type":"ffi.Tensor","dtype":"float32","ndim":0}"#,
        "Tensor[f32, 0]",
    );
    check(<Tensor as AbiType>::DESC, r#"["ndarray","unknown",null]"#, r#"{"type":"ffi.Tensor"}"#, "Tensor");
    static BF16: TypeDesc = TypeDesc::Float { bits: 16, brain: true };
    check(
        &TypeDesc::Tensor { elem: Some(&BF16), rank: None, cast: false },
        r#"["ndarray","bf16",null]"#,
        r#"{"type":"ffi.Tensor","dtype":"bfloat16"}"#,
        "Tensor[bf16]",
    );
    check(
        &TypeDesc::Tensor { elem: Some(&TypeDesc::Bool), rank: Some(1), cast: false },
        r#"["ndarray","i1",1,null]"#,
        r#"{"type":"ffi.Tensor","dtype":"bool","ndim":1}"#,
        "Tensor[bool, 1]",
    );
    // A parameter converting other dtypes (`HostTensorAs`) says so in type_schema only.
    check(
        <crate::HostTensorAs<'static, f32, 2> as AbiType>::DESC,
        r#"["ndarray","f32",2,null,null]"#,
        r#"{"type":"ffi.Tensor","dtype":"float32","ndim":2,"cast":"same_kind"}"#,
        "Tensor[f32, 2]",
    );
}

#[test]
fn callables() {
    static PARAMS: [&TypeDesc; 2] = [&TypeDesc::Int { bits: 64, signed: true }, &TypeDesc::Str];
    check(
        &TypeDesc::Callable { params: &PARAMS, ret: &TypeDesc::Bool },
        "\"unknown\"",
        r#"{"type":"ffi.Function","args":[{"type":"bool"},{"type":"int"},{"type":"ffi.String"}]}"#,
        "Callable[[int, str], bool]",
    );
    check(
        &TypeDesc::Callable { params: &[], ret: &TypeDesc::None },
        "\"unknown\"",
        r#"{"type":"ffi.Function","args":[{"type":"None"}]}"#,
        "Callable[[], None]",
    );
}

static POINT: StructDesc = StructDesc {
    name: "Point",
    fields: &[FieldDesc { name: "x", ty: &F32 }, FieldDesc { name: "y", ty: &F32 }],
    tuple_like: false,
};
static PAIR: StructDesc = StructDesc {
    name: "Pair",
    fields: &[FieldDesc { name: "0", ty: &TypeDesc::Bool }, FieldDesc { name: "1", ty: &TypeDesc::Str }],
    tuple_like: true,
};
static SEGMENT: StructDesc = StructDesc {
    name: "Segment",
    fields: &[
        FieldDesc { name: "a", ty: &TypeDesc::Struct(&POINT) },
        FieldDesc { name: "b", ty: &TypeDesc::Struct(&POINT) },
        FieldDesc { name: "id", ty: &TypeDesc::Int { bits: 32, signed: false } },
    ],
    tuple_like: false,
};
static QUOTED: StructDesc = StructDesc {
    name: "Quoted",
    fields: &[FieldDesc { name: "a\"b\\c", ty: &TypeDesc::Int { bits: 8, signed: true } }],
    tuple_like: false,
};

#[test]
fn structs() {
    check(
        &TypeDesc::Struct(&POINT),
        r#"["sdict",["x","f32"],["y","f32"]]"#,
        r#"{"type":"Tuple","args":[{"type":"float"},{"type":"float"}],"abi.struct":"Point","abi.fields":["x","y"]}"#,
        "Point",
    );
    check(
        &TypeDesc::Struct(&PAIR),
        r#"["stuple","i1","str"]"#,
        r#"{"type":"Tuple","args":[{"type":"bool"},{"type":"ffi.String"}]}"#,
        "tuple[bool, str]",
    );
    check(
        &TypeDesc::Struct(&SEGMENT),
        r#"["sdict",["a",["sdict",["x","f32"],["y","f32"]]],["b",["sdict",["x","f32"],["y","f32"]]],["id","u32"]]"#,
        r#"{"type":"Tuple","args":[{"type":"Tuple","args":[{"type":"float"},{"type":"float"}],"abi.struct":"Point","abi.fields":["x","y"]},{"type":"Tuple","args":[{"type":"float"},{"type":"float"}],"abi.struct":"Point","abi.fields":["x","y"]},{"type":"int"}],"abi.struct":"Segment","abi.fields":["a","b","id"]}"#,
        "Segment",
    );
    let quoted = iree(&TypeDesc::Struct(&QUOTED));
    assert_eq!(quoted, r#"["sdict",["a\"b\\c","i8"]]"#);
    assert_eq!(parse(&quoted), json!(["sdict", ["a\"b\\c", "i8"]]));

    assert_eq!(leaf_count(&TypeDesc::Struct(&SEGMENT)), 5);
    assert_eq!(leaf_count(&F32), 1);
}

static WARP_PARAMS: [ParamDesc; 3] = [
    ParamDesc {
        name: "scale",
        ty: &TypeDesc::Int { bits: 64, signed: true },
        expand: false,
        exact: None,
        access: Access::None,
        default: None,
    },
    ParamDesc {
        name: "p",
        ty: &TypeDesc::Struct(&POINT),
        expand: true,
        exact: None,
        access: Access::None,
        default: None,
    },
    ParamDesc {
        name: "x",
        ty: &TypeDesc::Tensor { elem: Some(&F32), rank: Some(2), cast: false },
        expand: false,
        exact: None,
        access: Access::None,
        default: None,
    },
];
static WARP: FnDesc = FnDesc {
    name: "warp",
    params: &WARP_PARAMS,
    ret: &TypeDesc::Optional(&TypeDesc::Str),
    doc: "Warps a tensor.",
    global: None,
    op: None,
    release_gil: None,
    error: None,
};

const WARP_SCHEMA: &str = r#"{"type":"ffi.Function","named_args":{"return":[{"type":"Optional","args":[{"type":"ffi.String"}]}],"params":[{"type":"int"},{"type":"float"},{"type":"float"},{"type":"ffi.Tensor","dtype":"float32","ndim":2}]}}"#;
const WARP_IREE: &str = r#"{"a":[["named","scale","i64"],["named","p.x","f32"],["named","p.y","f32"],["named","x",["ndarray","f32",2,null,null]]],"r":[["optional","str"]],"v":1}"#;
const WARP_COMPACT: &str = "I21!S3!t7S1!S1!B7!d-1d-1R2!O";

#[test]
fn function_texts() {
    assert_eq!(WARP.slot_count(), 4);
    assert_eq!(
        render(|w| fn_signature_text(w, &WARP)),
        "warp(scale: int, p.x: float, p.y: float, x: Tensor[f32, 2]) -> Optional[str]"
    );
    assert_eq!(render(|w| fn_type_schema(w, &WARP)), WARP_SCHEMA);
    assert_eq!(render(|w| fn_iree_record(w, &WARP)), WARP_IREE);
    assert_eq!(render(|w| fn_compact_signature(w, &WARP)), WARP_COMPACT);
    parse(WARP_SCHEMA);
    parse(WARP_IREE);
}

#[test]
fn metadata_json_parses_and_embeds_the_schema_as_a_string() {
    let text = render(|w| fn_metadata_json(w, &WARP));
    let expected = format!(
        r#"{{"type_schema":"{}","arg_names":["scale","p.x","p.y","x"],"iree.abi":{WARP_IREE},"signature":"{WARP_COMPACT}","abi.version":{}}}"#,
        WARP_SCHEMA.replace('"', "\\\""),
        abi_shared::METADATA_VERSION
    );
    assert_eq!(text, expected);

    let meta = Metadata::parse(&text).expect("the one reader reads what the writer writes");
    let schema = meta.type_schema.as_ref().map(|t| t.to_json());
    assert_eq!(schema.as_deref(), Some(WARP_SCHEMA), "one level of escaping, undone by a JSON parser");
    assert_eq!(meta.arg_names.as_deref(), Some(&["scale", "p.x", "p.y", "x"].map(String::from)[..]));
    assert_eq!(parse(&meta.iree_abi.as_ref().unwrap().to_json()), parse(WARP_IREE));
    assert_eq!(meta.signature.as_deref(), Some(WARP_COMPACT));
    assert_eq!(meta.version, Some(abi_shared::METADATA_VERSION));
    let keys = ["\"type_schema\":", "\"arg_names\":", "\"iree.abi\":", "\"signature\":", "\"abi.version\":"];
    let positions: Vec<usize> = keys.iter().map(|k| text.find(k).expect(k)).collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "type_schema first, as tvm-ffi writes it: {text}");
}

static SEG_PARAMS: [ParamDesc; 2] = [
    ParamDesc {
        name: "seg",
        ty: &TypeDesc::Struct(&SEGMENT),
        expand: true,
        exact: None,
        access: Access::None,
        default: None,
    },
    ParamDesc { name: "flag", ty: &TypeDesc::Bool, expand: false, exact: None, access: Access::None, default: None },
];
static SEG_FN: FnDesc = FnDesc {
    name: "length",
    params: &SEG_PARAMS,
    ret: &F32,
    doc: "",
    global: None,
    op: None,
    release_gil: None,
    error: None,
};
static NOTHING: FnDesc = FnDesc {
    name: "nothing",
    params: &[],
    ret: &TypeDesc::None,
    doc: "",
    global: None,
    op: None,
    release_gil: None,
    error: None,
};

#[test]
fn nested_expansion_and_empty_functions() {
    assert_eq!(SEG_FN.slot_count(), 6);
    assert_eq!(
        render(|w| fn_signature_text(w, &SEG_FN)),
        "length(seg.a.x: float, seg.a.y: float, seg.b.x: float, seg.b.y: float, seg.id: int, flag: bool) -> float"
    );
    assert_eq!(render(|w| fn_compact_signature(w, &SEG_FN)), "I24!S1!S1!S1!S1!S4!t10S3!t4R4!S1!");
    let meta = Metadata::parse(&render(|w| fn_metadata_json(w, &SEG_FN))).unwrap();
    assert_eq!(
        meta.arg_names.unwrap(),
        ["seg.a.x", "seg.a.y", "seg.b.x", "seg.b.y", "seg.id", "flag"].map(String::from)
    );

    assert_eq!(render(|w| fn_signature_text(w, &NOTHING)), "nothing() -> None");
    assert_eq!(render(|w| fn_iree_record(w, &NOTHING)), r#"{"a":[],"r":[],"v":1}"#);
    assert_eq!(render(|w| fn_compact_signature(w, &NOTHING)), "I1!R1!");
    assert_eq!(
        render(|w| fn_type_schema(w, &NOTHING)),
        r#"{"type":"ffi.Function","named_args":{"return":[{"type":"None"}],"params":[]}}"#
    );
    parse(&render(|w| fn_metadata_json(w, &NOTHING)));
}

/// Length of a rendering computed at compile time, as `#[export_fn]` does.
const WARP_META_LEN: usize = {
    let mut w = Writer::new(&mut []);
    fn_metadata_json(&mut w, &WARP);
    w.len()
};

#[test]
fn renderers_run_at_compile_time() {
    assert_eq!(WARP_META_LEN, render(|w| fn_metadata_json(w, &WARP)).len());
}

#[test]
fn writer_counts_past_its_buffer_and_escapes_by_level() {
    let mut buf = [0u8; 4];
    let mut w = Writer::new(&mut buf);
    w.str("abcdef");
    assert_eq!(w.len(), 6);
    assert!(!w.is_empty());
    assert_eq!(&buf, b"abcd");

    assert_eq!(render(|w| w.json_string("tab\there\nq\"\\\u{1}\u{1f}é")), r#""tab\there\nq\"\\\u0001\u001fé""#);
    assert_eq!(render(|w| w.uint(0)), "0");
    assert_eq!(render(|w| w.uint(usize::MAX)), usize::MAX.to_string());

    // A JSON string written one level down parses back to itself after two decodes.
    let nested = render(|w| {
        w.byte(b'"');
        w.push_level();
        w.json_string("a\"b\\c");
        w.pop_level();
        w.byte(b'"');
    });
    assert_eq!(nested, r#""\"a\\\"b\\\\c\"""#);
    let once = parse(&nested);
    assert_eq!(parse(once.as_str().unwrap()), json!("a\"b\\c"));

    let twice = render(|w| {
        w.push_level();
        w.push_level();
        w.str("\"");
    });
    assert_eq!(twice, r#"\\\""#);
}

/// Parses with serde_json, failing the test on invalid JSON.
fn parse(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("invalid JSON ({e}): {text}"))
}
