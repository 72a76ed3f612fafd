//! The class records as written (runtime::object_types::class_record, at compile time) read back by
//! `abi_core::schema::parse_class_records`: writer and reader share their keys
//! (`abi_shared::class_record`), and this round trip fails when either side drifts.

use std::sync::atomic::AtomicI64;
use std::sync::Mutex;

use abi_core::__private::{class_record_bytes, class_record_len, method_record_bytes, method_record_len};
use abi_core::__private::{FnDesc, ParamDesc};
use abi_core::schema::{parse_class_records, TypeSchema};
use abi_core::{AbiType, Object};

/// A shape with "quoted" docs.
#[derive(abi_core::Object, Debug)]
#[abi(type_key = "rt.Shape")]
pub struct Shape {
    /// The number of sides.
    #[abi(get)]
    pub sides: i64,
    /// Every vertex name.
    #[abi(get)]
    pub names: Vec<String>,
    /// Writable by any holder.
    #[abi(get, set)]
    pub hits: AtomicI64,
    #[abi(get, set)]
    pub label: Mutex<Option<String>>,
    /// Not reflected.
    pub hidden: f64,
}

const CLASS_LEN: usize = class_record_len(Shape::CLASS);
static CLASS: [u8; CLASS_LEN] = class_record_bytes::<CLASS_LEN>(Shape::CLASS);

const AREA: FnDesc = FnDesc::new(
    "Shape.area",
    &[ParamDesc::new("self", Shape::DESC), ParamDesc::new("unit", f64::DESC)],
    f64::DESC,
    "The area.",
);
const AREA_LEN: usize = method_record_len("rt.Shape", "area", false, &AREA);
static AREA_RECORD: [u8; AREA_LEN] = method_record_bytes::<AREA_LEN>("rt.Shape", "area", false, &AREA);

const INIT: FnDesc = FnDesc::new("Shape.__init__", &[ParamDesc::new("sides", i64::DESC)], Shape::DESC, "");
const INIT_LEN: usize = method_record_len("rt.Shape", abi_shared::FFI_INIT, true, &INIT);
static INIT_RECORD: [u8; INIT_LEN] = method_record_bytes::<INIT_LEN>("rt.Shape", abi_shared::FFI_INIT, true, &INIT);

#[test]
fn what_the_writer_writes_the_reader_reads() {
    // As the linker lays them out: concatenated, in any order, with NUL padding.
    let mut section = Vec::new();
    for record in [&AREA_RECORD[..], &[0, 0], &CLASS[..], &INIT_RECORD[..]] {
        section.extend_from_slice(record);
    }
    let classes = parse_class_records(&section).unwrap();
    assert_eq!(classes.len(), 1);
    let shape = &classes[0];
    assert_eq!((shape.key.as_str(), shape.parent.as_str()), ("rt.Shape", "ffi.Object"));
    assert_eq!(shape.doc, "A shape with \"quoted\" docs.");
    let fields: Vec<(&str, &TypeSchema, bool, &str)> =
        shape.fields.iter().map(|f| (f.name.as_str(), &f.ty, f.writable, f.doc.as_str())).collect();
    assert_eq!(
        fields,
        [
            ("sides", &TypeSchema::Int(None), false, "The number of sides."),
            ("names", &TypeSchema::Array(Box::new(TypeSchema::Str)), false, "Every vertex name."),
            ("hits", &TypeSchema::Int(None), true, "Writable by any holder."),
            ("label", &TypeSchema::Optional(Box::new(TypeSchema::Str)), true, ""),
        ]
    );
    let methods: Vec<(&str, bool, String)> =
        shape.methods.iter().map(|m| (m.name.as_str(), m.is_static, m.metadata.python_signature(&m.name))).collect();
    assert_eq!(
        methods,
        [
            (abi_shared::FFI_INIT, true, "__ffi_init__(sides: int) -> rt.Shape".to_owned()),
            ("area", false, "area(self: rt.Shape, unit: float) -> float".to_owned()),
        ]
    );
    assert_eq!(shape.methods[1].doc, "The area.");
    // Every record carries the format version under the shared key.
    let text = String::from_utf8(CLASS[..CLASS_LEN - 1].to_vec()).unwrap();
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(value[abi_shared::VERSION_KEY], abi_shared::METADATA_VERSION);
    assert_eq!(value[abi_shared::class_record::RECORD], abi_shared::class_record::CLASS);
}

#[test]
fn a_record_of_another_version_is_refused() {
    let text = String::from_utf8(CLASS[..CLASS_LEN - 1].to_vec()).unwrap();
    let newer =
        text.replace(&format!("\"{}\":1", abi_shared::VERSION_KEY), &format!("\"{}\":2", abi_shared::VERSION_KEY));
    assert_ne!(newer, text);
    let e = parse_class_records(newer.as_bytes()).unwrap_err();
    assert!(e.message().starts_with("a class record has format version 2, this build reads 1"), "{e}");
}
