//! One model of types: what a function's Rust description says (`Metadata::declared`, built
//! from `TypeSchema::from(&TypeDesc)`) is exactly what its published metadata reads back as
//! (`type_schema`, kinds only, refined by the `iree.abi` record beside it), for every export
//! linked into this binary. Bind checks, `abi diff`, `abi inspect` and the stubs all read
//! that model, so the two routes must not drift.

use std::collections::HashMap;

use abi_core::schema::{FloatWidth, IntWidth, IreeType, Metadata, TensorType, TypeSchema, Width};
use abi_core::{Any, FunctionRef, Tensor, TensorView, TypeDesc, TypedFunction};
use half::{bf16, f16};

/// A point with named fields (an `sdict` in `iree.abi`).
#[derive(abi_core::AbiStruct, Clone, Copy)]
pub struct Point {
    x: f64,
    y: f32,
}

/// A tuple struct (an `stuple`).
#[derive(abi_core::AbiStruct, Clone, Copy)]
pub struct Pair(u8, i16);

/// A struct holding a struct.
#[derive(abi_core::AbiStruct, Clone, Copy)]
pub struct Segment {
    from: Point,
    to: Point,
}

/// An object class.
#[derive(abi_core::Object)]
#[abi(type_key = "model.Thing")]
pub struct Thing {
    #[abi(get)]
    size: u16,
}

#[abi_core::export_fn]
fn signed(a: i8, b: i16, c: i32, d: i64, e: isize) -> u8 {
    (a as i64 + b as i64 + c as i64 + d + e as i64) as u8
}

#[abi_core::export_fn]
fn unsigned(a: u8, b: u16, c: u32, d: u64, e: usize) -> i16 {
    (a as u64 + b as u64 + c as u64 + d + e as u64) as i16
}

#[abi_core::export_fn]
fn floats(a: f16, b: bf16, c: f32, d: f64, e: bool) -> f32 {
    f32::from(a) + f32::from(b) + c + d as f32 + f32::from(u8::from(e))
}

#[abi_core::export_fn]
fn containers(a: Option<u8>, b: Vec<i32>, c: HashMap<String, u16>, d: (i8, f32), e: Vec<Option<u64>>) -> (i64, f32) {
    (a.unwrap_or(0) as i64 + b.len() as i64 + c.len() as i64 + d.0 as i64 + e.len() as i64, d.1)
}

#[abi_core::export_fn]
fn structs(p: Point, q: Pair, s: Segment, ps: Vec<Point>) -> Option<Point> {
    let _ = (q.0, q.1, s.from.x, s.to.y);
    ps.first().copied().or(Some(p))
}

#[abi_core::export_fn(global = "model.flat")]
fn flat(#[abi(expand)] s: Segment, k: i16) -> Pair {
    Pair(s.from.y as u8, k)
}

#[abi_core::export_fn]
fn others(s: &str, b: &[u8], x: Any, t: Tensor, v: TensorView<'_>, thing: &Thing) -> String {
    let _ = (b, x, t, v.ndim(), thing.size);
    s.to_owned()
}

#[abi_core::export_fn]
fn callbacks(f: TypedFunction<fn(i32, Vec<u8>) -> u16>, g: FunctionRef<'_>) -> abi_core::Result<i64> {
    let _ = g;
    Ok(f.call(1, vec![2])? as i64)
}

/// Callbacks publish no widths (their `iree.abi` record is `unknown`): compare them by kind.
fn assert_same(declared: &TypeSchema, published: &TypeSchema, at: &str) {
    match declared {
        TypeSchema::Function(Some(_)) => assert_eq!(declared.to_json(), published.to_json(), "{at}"),
        _ => assert_eq!(declared, published, "{at}"),
    }
}

#[test]
fn every_export_reads_back_as_its_description() {
    let mut checked = 0;
    for e in abi_core::exports() {
        let published = Metadata::parse(e.metadata_json()).unwrap();
        let declared = Metadata::declared(&e.desc());
        let name = e.name();
        assert_eq!(declared.arg_names, published.arg_names, "{name}");
        assert_eq!(declared.global, published.global, "{name}");
        let (d, p) = (declared.type_schema.unwrap(), published.type_schema.unwrap());
        assert_eq!(d.to_json(), p.to_json(), "{name}: the same type_schema text");
        assert_eq!(d.params.len(), p.params.len(), "{name}");
        for (i, (dp, pp)) in d.params.iter().zip(&p.params).enumerate() {
            assert_same(dp, pp, &format!("{name} #{i}"));
        }
        assert_same(&d.ret, &p.ret, &format!("{name} result"));
        checked += 1;
    }
    assert_eq!(checked, 8, "every export of this file was compared");
}

#[test]
fn the_model_carries_widths_field_names_and_tensor_types() {
    let e = abi_core::find_export("flat").unwrap();
    let published = Metadata::parse(e.metadata_json()).unwrap();
    let f = published.type_schema.unwrap();
    let i16_ = TypeSchema::Int(Some(IntWidth { bits: 16, signed: true }));
    assert_eq!(f.params[1], TypeSchema::Float(Some(FloatWidth { bits: 32, brain: false })), "s.from.y");
    assert_eq!(f.params[4], i16_, "k");
    assert_eq!(f.ret, TypeSchema::Tuple(vec![TypeSchema::Int(Some(IntWidth { bits: 8, signed: false })), i16_]));
    assert_eq!(published.global.as_deref(), Some("model.flat"));

    let e = abi_core::find_export("structs").unwrap();
    let p = Metadata::parse(e.metadata_json()).unwrap().type_schema.unwrap().params.remove(0);
    let TypeSchema::Struct { fields, .. } = p else { panic!("a named struct keeps its field names: {p:?}") };
    assert_eq!(fields.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(), ["x", "y"]);

    // A typed tensor through every route: its own type_schema keys, the iree.abi record
    // refining a kinds-only schema (what a C++ writer publishes), and its description.
    const F32: TypeDesc = TypeDesc::Float { bits: 32, brain: false };
    const TYPED: TypeDesc = TypeDesc::Tensor { elem: Some(&F32), rank: Some(2), cast: false };
    assert_eq!(TYPED.schema(), r#"{"type":"ffi.Tensor","dtype":"float32","ndim":2}"#);
    assert_eq!(TypeSchema::parse(&TYPED.schema()).unwrap(), TypeSchema::from(&TYPED));
    let record: serde_json::Value = serde_json::from_str(r#"["ndarray","f32",2,null,null]"#).unwrap();
    let mut refined = TypeSchema::parse(r#"{"type":"ffi.Tensor"}"#).unwrap();
    assert_eq!(refined, TypeSchema::Tensor(TensorType::default()), "a kinds-only schema");
    IreeType::from_value(&record).unwrap().refine(&mut refined);
    assert_eq!(refined, TypeSchema::from(&TYPED));
    let TypeSchema::Tensor(t) = refined else { unreachable!() };
    assert_eq!((t.elem.and_then(|e| e.width()), t.rank), (Some(Width::parse("f32").unwrap()), Some(2)));
    assert_eq!(TypeSchema::from(&TYPED).python(), "Tensor[f32, 2]");

    // A converting one keeps its cast through the record's refinement.
    const CAST: TypeDesc = TypeDesc::Tensor { elem: Some(&F32), rank: Some(2), cast: true };
    let mut refined = TypeSchema::parse(&CAST.schema()).unwrap();
    assert_eq!(refined, TypeSchema::from(&CAST));
    IreeType::from_value(&record).unwrap().refine(&mut refined);
    assert_eq!(refined, TypeSchema::from(&CAST));
    assert_eq!(refined.to_json(), CAST.schema());
    assert!(TypeSchema::parse(r#"{"type":"ffi.Tensor","cast":"unsafe"}"#).is_err(), "one casting is known");
}

#[test]
fn widths_print_and_parse_as_iree_spells_them() {
    for name in ["i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f16", "bf16", "f32", "f64"] {
        assert_eq!(Width::parse(name).map(|w| w.to_string()).as_deref(), Some(name));
    }
    for bad in ["i1", "i128", "f8", "u", "", "x64", "bf32"] {
        assert_eq!(Width::parse(bad), None, "{bad}");
    }
}
