//! The metadata format is versioned (`abi_shared::METADATA_VERSION`, written as
//! `"abi.version"`) and pinned: the approval test hashes the metadata rendered for a
//! sample that uses every kind of type description, so any change to what is written
//! fails here until the version is bumped and the new hash approved (wasm-bindgen guards
//! its schema the same way). A change that only adds keys older readers skip keeps the
//! version (docs/ABI.md section 4 lists them): approve its hash with the reason. The reader
//! tests cover what other writers publish.

use abi_core::__private::{
    fn_metadata_json, type_display, type_iree_record, type_schema, Access, EnumDesc, FieldDesc, FnDesc, ParamDesc,
    StructDesc, TypeDesc, Writer,
};
use abi_core::Metadata;

/// The approved (format version, FNV-1a hash of the sample's metadata) pair. Version 1
/// since typed tensors added `dtype` and `ndim` to `{"type":"ffi.Tensor"}` (keys readers
/// of version 1 skip), `abi.defaults` added parameter defaults and `abi.struct`/`abi.fields`
/// named structs' names and fields in `type_schema` (keys they skip too), `abi.enum`,
/// `abi.names` and `abi.variants` a fieldless enum's `ffi.String` and `abi.error` an export's
/// error type (keys they skip as well). The sample also
/// holds each type's Python display, which is message text, not metadata: a tuple struct's
/// became the tuple of its fields (`tuple[str, int]`, was its Rust name), with the
/// published records unchanged.
const APPROVED: (u32, u64) = (1, 0xde05_f8ff_66c7_bbf3);

static I64: TypeDesc = TypeDesc::Int { bits: 64, signed: true };
static U8: TypeDesc = TypeDesc::Int { bits: 8, signed: false };
static F32: TypeDesc = TypeDesc::Float { bits: 32, brain: false };
static BF16: TypeDesc = TypeDesc::Float { bits: 16, brain: true };
static POINT: StructDesc = StructDesc {
    name: "Point",
    fields: &[FieldDesc { name: "x", ty: &F32 }, FieldDesc { name: "y", ty: &F32 }],
    tuple_like: false,
};
static PAIR: StructDesc = StructDesc {
    name: "Pair",
    fields: &[FieldDesc { name: "0", ty: &TypeDesc::Str }, FieldDesc { name: "1", ty: &U8 }],
    tuple_like: true,
};
static INTERP: EnumDesc = EnumDesc { name: "Interp", names: &["nearest", "cubic"], variants: &["Nearest", "Bicubic"] };
static EVERY_KIND: [&TypeDesc; 23] = [
    &TypeDesc::None,
    &TypeDesc::Bool,
    &I64,
    &U8,
    &F32,
    &BF16,
    &TypeDesc::Str,
    &TypeDesc::Bytes,
    &TypeDesc::Any,
    &TypeDesc::OpaquePtr,
    &TypeDesc::DataType,
    &TypeDesc::Device,
    &TypeDesc::Shape,
    &TypeDesc::Function,
    &TypeDesc::Callable { params: &[&I64, &TypeDesc::Str], ret: &F32 },
    &TypeDesc::Error,
    &TypeDesc::Object,
    &TypeDesc::Tensor { elem: Some(&F32), rank: Some(2), cast: false },
    &TypeDesc::Optional(&TypeDesc::Str),
    &TypeDesc::List(&I64),
    &TypeDesc::Tuple(&[&I64, &TypeDesc::Bytes]),
    &TypeDesc::Map(&TypeDesc::Str, &TypeDesc::Tensor { elem: None, rank: None, cast: false }),
    &TypeDesc::Enum(&INTERP),
];
static STRUCTS: [ParamDesc; 3] = [
    ParamDesc {
        name: "p",
        ty: &TypeDesc::Struct(&POINT),
        expand: false,
        exact: None,
        access: Access::None,
        default: None,
    },
    ParamDesc {
        name: "q",
        ty: &TypeDesc::Struct(&POINT),
        expand: true,
        exact: None,
        access: Access::None,
        default: None,
    },
    ParamDesc {
        name: "pair",
        ty: &TypeDesc::Struct(&PAIR),
        expand: false,
        exact: None,
        access: Access::None,
        default: None,
    },
];

static EVERY_PARAM: [ParamDesc; 3] = [
    ParamDesc {
        name: "x",
        ty: &TypeDesc::Optional(&TypeDesc::Str),
        expand: false,
        exact: None,
        access: Access::None,
        default: None,
    },
    ParamDesc {
        name: "f",
        ty: &TypeDesc::Callable { params: &[&I64, &TypeDesc::Str], ret: &F32 },
        expand: false,
        exact: None,
        access: Access::None,
        default: None,
    },
    ParamDesc {
        name: "t",
        ty: &TypeDesc::Tensor { elem: Some(&F32), rank: Some(2), cast: false },
        expand: false,
        exact: None,
        access: Access::None,
        default: None,
    },
];
static PAIR_TY: TypeDesc = TypeDesc::Struct(&PAIR);

/// `f(x: float, digits: int = 2, unit: str = "m\"", plus: bool = False, label: Optional[str] = None)`.
static DEFAULTED: [ParamDesc; 5] = [
    ParamDesc::new("x", &TypeDesc::Float { bits: 64, brain: false }),
    ParamDesc::new("digits", &I64).with_default("2"),
    ParamDesc::new("unit", &TypeDesc::Str).with_default("\"m\\\"\""),
    ParamDesc::new("plus", &TypeDesc::Bool).with_default("false"),
    ParamDesc::new("label", &TypeDesc::Optional(&TypeDesc::Str)).with_default("null"),
];

/// What the format consists of: every type kind's records as the metadata embeds them,
/// and whole metadata objects of functions with plain, expanded and struct parameters.
fn sample() -> String {
    fn render(f: impl Fn(&mut Writer<'_>)) -> String {
        let mut count = Writer::new(&mut []);
        f(&mut count);
        let mut buf = vec![0u8; count.len()];
        f(&mut Writer::new(&mut buf));
        String::from_utf8(buf).unwrap()
    }
    let mut all = String::new();
    for ty in EVERY_KIND.iter().copied().chain([&PAIR_TY]) {
        all += &render(|w| type_schema(w, ty));
        all += " ";
        all += &render(|w| type_iree_record(w, ty));
        all += " ";
        all += &render(|w| type_display(w, ty));
        all += "\n";
    }
    for f in [
        &FnDesc {
            name: "every",
            params: &EVERY_PARAM,
            ret: &PAIR_TY,
            doc: "docs \"quoted\"",
            global: None,
            op: None,
            release_gil: None,
            error: Some("KernelError"),
        },
        &FnDesc {
            name: "structs",
            params: &STRUCTS,
            ret: &TypeDesc::None,
            doc: "",
            global: None,
            op: None,
            release_gil: None,
            error: None,
        },
        &FnDesc {
            name: "defaulted",
            params: &DEFAULTED,
            ret: &TypeDesc::Str,
            doc: "",
            global: None,
            op: None,
            release_gil: None,
            error: None,
        },
    ] {
        all += &render(|w| fn_metadata_json(w, f));
        all += "\n";
    }
    all
}

fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3))
}

#[test]
fn the_written_format_is_the_approved_one_for_its_version() {
    let text = sample();
    for line in text.lines().filter(|l| l.starts_with("{\"type_schema\"")) {
        let meta = Metadata::parse(line).unwrap_or_else(|e| panic!("{e}: {line}"));
        assert_eq!(meta.version, Some(abi_shared::METADATA_VERSION), "{line}");
        // The model prints back exactly what the project writes.
        assert_eq!(meta.to_json(), line);
    }
    let hash = fnv1a(&text);
    assert_eq!(
        APPROVED.0,
        abi_shared::METADATA_VERSION,
        "METADATA_VERSION changed: approve the format of version {} by setting APPROVED to ({}, {hash:#x})",
        abi_shared::METADATA_VERSION,
        abi_shared::METADATA_VERSION,
    );
    assert_eq!(
        APPROVED.1, hash,
        "the written metadata format changed without a version bump: bump abi_shared::METADATA_VERSION \
         (unless the change only adds keys older readers skip), then approve the new format by setting \
         APPROVED to (the version, {hash:#x}). Sample:\n{text}"
    );
}

#[test]
fn reads_what_tvm_ffi_cpp_libraries_publish() {
    // The C++ export macro publishes type_schema only, and no version.
    let text = r#"{"type_schema":"{\"type\":\"ffi.Function\",\"named_args\":{\"return\":[{\"type\":\"int\"}],\"params\":[{\"type\":\"ffi.Function\"},{\"type\":\"int\"}]}}"}"#;
    let meta = Metadata::parse(text).unwrap();
    assert_eq!(
        meta.type_schema.as_ref().map(|t| t.to_json()).as_deref(),
        Some(
            r#"{"type":"ffi.Function","named_args":{"return":[{"type":"int"}],"params":[{"type":"ffi.Function"},{"type":"int"}]}}"#
        )
    );
    assert_eq!(meta.python_signature("apply_twice"), "apply_twice(_0: Function, _1: int) -> int");
    // Printed back, it is the text the C++ macro wrote.
    assert_eq!(meta.to_json(), text);
    assert_eq!((meta.arg_names, meta.iree_abi, meta.signature, meta.version), (None, None, None, None));
}

#[test]
fn unknown_keys_are_ignored_and_bad_ones_refused() {
    let meta = Metadata::parse(r#"{"type_schema":"{\"type\":\"ffi.Function\"}","host.extra":[1,2],"abi.version":1}"#);
    let err = meta.unwrap_err();
    assert!(err.message().contains("has no signature"), "{err}");
    let meta = Metadata::parse(r#"{"host.extra":[1,2],"abi.version":1}"#).unwrap();
    assert_eq!(meta.version, Some(1));
    for (text, says) in [
        ("{\"type_schema\":", "malformed metadata JSON"),
        ("[1,2]", "not a JSON object"),
        (r#"{"type_schema":7}"#, "`type_schema` is not a string"),
        (r#"{"arg_names":"a"}"#, "`arg_names` is not a list"),
        (r#"{"arg_names":["a",1]}"#, "non-string"),
        (r#"{"abi.version":"1"}"#, "not a version number"),
        (r#"{"type_schema":"{}"}"#, "needs a nonempty \"type\""),
        (r#"{"type_schema":"{\"type\":\"Optional\",\"args\":[]}"}"#, "takes 1 type argument"),
        (r#"{"iree.abi":{"a":[["bogus"]],"r":[],"v":1}}"#, "unknown tag `bogus`"),
        (r#"{"iree.abi":{"a":[],"r":[]}}"#, "no version"),
        (
            r#"{"type_schema":"{\"type\":\"ffi.Function\",\"args\":[{\"type\":\"int\"}]}","arg_names":["a"]}"#,
            "names 1 arguments but its type_schema has 0",
        ),
    ] {
        let err = Metadata::parse(text).unwrap_err();
        assert!(err.message().contains(says), "{text}: {}", err.message());
    }
}

#[test]
fn a_newer_format_is_refused_with_a_message() {
    let newer = abi_shared::METADATA_VERSION + 1;
    let err = Metadata::parse(&format!(r#"{{"abi.version":{newer}}}"#)).unwrap_err();
    assert!(err.message().contains(&format!("metadata format {newer} is newer")), "{}", err.message());
}

/// The metadata JSON `f` renders.
fn metadata_of(f: &FnDesc) -> String {
    let mut buf = vec![0u8; 4096];
    let mut w = Writer::new(&mut buf);
    fn_metadata_json(&mut w, f);
    let n = w.len();
    buf.truncate(n);
    String::from_utf8(buf).unwrap()
}

#[test]
fn a_global_name_is_one_added_key_that_older_readers_ignore() {
    let plain = FnDesc {
        name: "version",
        params: &STRUCTS,
        ret: &TypeDesc::None,
        doc: "",
        global: None,
        op: None,
        release_gil: None,
        error: None,
    };
    let global = FnDesc {
        name: "version",
        params: &STRUCTS,
        ret: &TypeDesc::None,
        doc: "",
        global: None,
        op: None,
        release_gil: None,
        error: None,
    }
    .with_global("geo.version");
    let (without, with) = (metadata_of(&plain), metadata_of(&global));
    // The written difference is exactly the one key, before the version.
    assert_eq!(with.replacen(",\"abi.global\":\"geo.version\"", "", 1), without);
    let meta = Metadata::parse(&with).unwrap();
    assert_eq!(meta.global.as_deref(), Some("geo.version"));
    assert_eq!(meta.to_json(), with);
    assert_eq!(Metadata::parse(&without).unwrap().global, None);
    // A reader that knows nothing of the key (every key it does not know is skipped) reads
    // the rest unchanged, so the format version stays.
    let mut value: serde_json::Value = serde_json::from_str(&with).unwrap();
    value.as_object_mut().unwrap().remove(abi_shared::GLOBAL_KEY);
    assert_eq!(Metadata::from_value(&value).unwrap().to_json(), without);
}

#[test]
fn defaults_are_one_added_key_that_older_readers_ignore() {
    let mut buf = vec![0u8; 4096];
    let f = FnDesc {
        name: "show",
        params: &DEFAULTED,
        ret: &TypeDesc::Str,
        doc: "",
        global: None,
        op: None,
        release_gil: None,
        error: None,
    };
    let mut w = Writer::new(&mut buf);
    fn_metadata_json(&mut w, &f);
    let n = w.len();
    let with = String::from_utf8(buf[..n].to_vec()).unwrap();
    assert!(
        with.contains(r#","abi.defaults":{"digits":2,"unit":"m\"","plus":false,"label":null},"abi.version""#),
        "{with}"
    );
    let meta = Metadata::parse(&with).unwrap();
    assert_eq!(meta.required_args(), 1);
    assert_eq!(meta.defaults()[0], None);
    assert_eq!(meta.default_of("label"), Some(&serde_json::Value::Null));
    assert_eq!(
        meta.python_signature("show"),
        r#"show(x: float, digits: int = 2, unit: str = "m\"", plus: bool = False, label: Optional[str] = None) -> str"#
    );
    assert_eq!(meta.to_json(), with);
    assert_eq!(f.defaults(), meta.defaults);
    // The signature quoted in errors shows them the same way.
    assert_eq!(f.signature_text(), meta.python_signature("show"));
    // A reader that knows nothing of the key reads the rest unchanged.
    let mut value: serde_json::Value = serde_json::from_str(&with).unwrap();
    value.as_object_mut().unwrap().remove(abi_shared::DEFAULTS_KEY);
    let older = Metadata::from_value(&value).unwrap();
    assert_eq!(
        (older.required_args(), older.to_json()),
        (5, with.replacen(r#","abi.defaults":{"digits":2,"unit":"m\"","plus":false,"label":null}"#, "", 1))
    );
    // Malformed defaults are refused with the key named.
    for (bad, says) in [
        (r#"{"arg_names":["a"],"abi.defaults":[1]}"#, "is not an object"),
        (r#"{"arg_names":["a"],"abi.defaults":{"b":1}}"#, "names `b`, which is no parameter"),
        (r#"{"arg_names":["a"],"abi.defaults":{"a":[1]}}"#, "is not a scalar"),
    ] {
        let err = Metadata::parse(bad).unwrap_err();
        assert!(err.message().contains(says), "{}", err.message());
    }
}

#[test]
fn struct_names_are_keys_older_readers_skip() {
    let f = FnDesc {
        name: "s",
        params: &STRUCTS,
        ret: &TypeDesc::None,
        doc: "",
        global: None,
        op: None,
        release_gil: None,
        error: None,
    };
    let text = f.metadata_json();
    assert!(text.contains(r#"\"abi.struct\":\"Point\",\"abi.fields\":[\"x\",\"y\"]"#), "{text}");
    let meta = Metadata::parse(&text).unwrap();
    let params = meta.params();
    let abi_core::schema::TypeSchema::Struct { name, fields } = &params[0].1 else { panic!("{:?}", params[0]) };
    assert_eq!((name.as_deref(), fields.len()), (Some("Point"), 2));
    // Without the keys (an older writer), the struct is the tuple `iree.abi` names the fields of.
    let stripped = text.replace(r#",\"abi.struct\":\"Point\",\"abi.fields\":[\"x\",\"y\"]"#, "");
    let older = Metadata::parse(&stripped).unwrap();
    let abi_core::schema::TypeSchema::Struct { name, fields } = &older.params()[0].1 else { panic!() };
    assert_eq!((name.as_deref(), fields[0].0.as_str()), (None, "x"));
    // Malformed keys are refused.
    for bad in [
        r#"{"type":"Tuple","args":[{"type":"int"}],"abi.struct":"P"}"#,
        r#"{"type":"Tuple","args":[{"type":"int"}],"abi.struct":"P","abi.fields":["a","b"]}"#,
        r#"{"type":"Tuple","args":[{"type":"int"}],"abi.struct":1,"abi.fields":["a"]}"#,
    ] {
        assert!(abi_core::schema::TypeSchema::parse(bad).is_err(), "{bad}");
    }
}

#[test]
fn read_only_parameters_and_the_gil_choice_are_added_keys_that_older_readers_ignore() {
    static F64: TypeDesc = TypeDesc::Float { bits: 64, brain: false };
    static TENSOR: TypeDesc = TypeDesc::Tensor { elem: Some(&F64), rank: Some(1), cast: false };
    static PARAMS: [ParamDesc; 3] = [
        ParamDesc::plain("x", (&TENSOR, None, Access::Shared)),
        ParamDesc::plain("out", (&TENSOR, None, Access::Exclusive)),
        ParamDesc::plain("k", (&F64, None, Access::None)),
    ];
    let plain = FnDesc::new("scale", &PARAMS, &TypeDesc::None, "");
    let text = metadata_of(&plain);
    assert!(text.contains(r#","abi.read_only":["x"],"abi.version":1}"#), "{text}");
    let meta = Metadata::parse(&text).unwrap();
    assert_eq!(meta.read_only, ["x"]);
    assert_eq!(meta.release_gil, None);
    assert!(meta.releases_gil(), "an export taking tensors releases the GIL");
    assert_eq!(meta.to_json(), text);
    assert_eq!(Metadata::declared(&plain).read_only, ["x"]);

    let kept = metadata_of(&plain.with_gil(false));
    assert_eq!(kept.replacen(r#","abi.gil":"keep""#, "", 1), text);
    let meta = Metadata::parse(&kept).unwrap();
    assert_eq!((meta.release_gil, meta.releases_gil()), (Some(false), false));
    assert_eq!(meta.to_json(), kept);

    static SCALARS: [ParamDesc; 1] = [ParamDesc::plain("k", (&F64, None, Access::None))];
    let scalar = Metadata::parse(&metadata_of(&FnDesc::new("f", &SCALARS, &F64, ""))).unwrap();
    assert!(!scalar.releases_gil(), "an export of numbers keeps the GIL");
    let released = Metadata::parse(&metadata_of(&FnDesc::new("f", &SCALARS, &F64, "").with_gil(true))).unwrap();
    assert!(released.releases_gil());

    for (text, says) in [
        (r#"{"arg_names":["x"],"abi.read_only":["y"]}"#, "which is no parameter"),
        (r#"{"arg_names":["x"],"abi.read_only":"x"}"#, "is not a list"),
        (r#"{"abi.gil":"sometimes"}"#, "neither"),
    ] {
        let err = Metadata::parse(text).unwrap_err();
        assert!(err.message().contains(says), "{text}: {}", err.message());
    }
}
