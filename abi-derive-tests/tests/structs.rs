//! `#[derive(AbiStruct)]`: tuple lowering in declaration order, expanded lowering,
//! reflection, and errors, all through the real exported symbols.

use abi_core::{Any, AnyView, Array};

#[derive(abi_core::AbiStruct, Debug, Clone, PartialEq)]
pub struct Point {
    pub x: f64,
    pub y: f64,
}

#[derive(abi_core::AbiStruct, Debug, Clone, PartialEq)]
pub struct Labeled {
    pub label: String,
    pub at: Point,
    #[abi(rename = "w")]
    pub weight: i32,
}

#[derive(abi_core::AbiStruct, Debug, Clone, PartialEq)]
pub struct Pair(pub i64, pub i64);

#[derive(abi_core::AbiStruct, Debug, Clone, PartialEq)]
pub struct Segment {
    pub from: Point,
    pub to: Point,
    pub closed: bool,
}

/// Euclidean norm of a point passed as a tuple.
#[abi_core::export_fn]
pub fn norm(p: Point) -> f64 {
    p.x.hypot(p.y)
}

/// Euclidean norm of a point passed as two slots.
#[abi_core::export_fn]
pub fn norm_flat(#[abi(expand)] p: Point) -> f64 {
    p.x.hypot(p.y)
}

#[abi_core::export_fn]
pub fn seg_len(scale: f64, #[abi(expand)] s: Segment, tag: i64) -> f64 {
    let d = Point { x: s.to.x - s.from.x, y: s.to.y - s.from.y };
    scale * d.x.hypot(d.y) + if s.closed { tag as f64 } else { 0.0 }
}

#[abi_core::export_fn]
pub fn relabel(l: Labeled, label: String) -> Labeled {
    Labeled { label, ..l }
}

#[abi_core::export_fn]
pub fn swap(p: Pair) -> Pair {
    Pair(p.1, p.0)
}

#[abi_core::export_fn]
pub fn centroid(points: Vec<Point>, fallback: Option<Point>) -> Option<Point> {
    if points.is_empty() {
        return fallback;
    }
    let n = points.len() as f64;
    Some(Point { x: points.iter().map(|p| p.x).sum::<f64>() / n, y: points.iter().map(|p| p.y).sum::<f64>() / n })
}

use abi_derive_tests::call_export as call;

fn v<T: abi_core::IntoAny>(x: T) -> Any {
    Any::from_value(x).unwrap()
}

fn tuple(items: Vec<Any>) -> Any {
    Any::from(Array::new(items))
}

#[test]
fn tuple_lowering_keeps_declaration_order() {
    let p = Point { x: 3.0, y: 4.0 };
    let any = v(p.clone());
    let arr: Array = any.to().unwrap();
    let fields: Vec<f64> = arr.as_slice().iter().map(|e| e.to::<f64>().unwrap()).collect();
    assert_eq!(fields, vec![3.0, 4.0]);
    assert_eq!(any.to::<Point>().unwrap(), p);
    assert_eq!(call("norm", &[tuple(vec![v(3.0), v(4.0)])]).unwrap().to::<f64>().unwrap(), 5.0);
}

#[test]
fn nested_and_renamed_structs_round_trip() {
    let l = Labeled { label: "a long label".into(), at: Point { x: 1.0, y: -2.0 }, weight: 7 };
    let out = call("relabel", &[v(l.clone()), v("b".to_owned())]).unwrap().to::<Labeled>().unwrap();
    assert_eq!(out, Labeled { label: "b".into(), ..l });
    let pair = call("swap", &[v(Pair(1, 2))]).unwrap().to::<Pair>().unwrap();
    assert_eq!(pair, Pair(2, 1));
}

#[test]
fn vec_and_option_of_structs() {
    let pts = vec![Point { x: 0.0, y: 0.0 }, Point { x: 2.0, y: 4.0 }];
    let c = call("centroid", &[v(pts), Any::NONE]).unwrap().to::<Option<Point>>().unwrap();
    assert_eq!(c, Some(Point { x: 1.0, y: 2.0 }));
    let fb = call("centroid", &[v(Vec::<Point>::new()), v(Point { x: 9.0, y: 9.0 })]).unwrap();
    assert_eq!(fb.to::<Option<Point>>().unwrap(), Some(Point { x: 9.0, y: 9.0 }));
    assert!(call("centroid", &[v(Vec::<Point>::new()), Any::NONE]).unwrap().is_none());
}

#[test]
fn expanded_struct_takes_one_slot_per_leaf() {
    assert_eq!(call("norm_flat", &[v(3.0), v(4.0)]).unwrap().to::<f64>().unwrap(), 5.0);
    let r = call("seg_len", &[v(2.0), v(0.0), v(0.0), v(3.0), v(4.0), v(true), v(100i64)]).unwrap();
    assert_eq!(r.to::<f64>().unwrap(), 110.0);
}

#[test]
fn expanded_errors_name_the_leaf_and_count_slots() {
    let e = call("norm_flat", &[v(3.0)]).unwrap_err();
    assert_eq!(e.kind(), "TypeError");
    assert_eq!(e.message(), "norm_flat(p.x: float, p.y: float) -> float takes 2 arguments, got 1: missing `p.y` (#1)");
    let e = call("seg_len", &[v(2.0), v(0.0), v(0.0), v(3.0), v("x".to_owned()), v(true), v(1i64)]).unwrap_err();
    assert_eq!(
        e.message(),
        "seg_len(scale: float, s.from.x: float, s.from.y: float, s.to.x: float, s.to.y: float, s.closed: bool, tag: int) -> float: argument `s.to.y` (#4) expected float, got str"
    );
}

#[test]
fn wrong_shapes_are_type_errors_naming_the_struct() {
    let e = call("norm", &[tuple(vec![v(1.0)])]).unwrap_err();
    assert_eq!(e.kind(), "TypeError");
    assert_eq!(e.message(), "norm(p: Point) -> float: argument `p` (#0) expected Point of length 2, got length 1");
    let e = call("norm", &[tuple(vec![v(1.0), v("no".to_owned())])]).unwrap_err();
    assert_eq!(e.message(), "norm(p: Point) -> float: argument `p` (#0) Point.y: expected float, got str");
    let e = call("norm", &[v(1.0)]).unwrap_err();
    assert_eq!(e.message(), "norm(p: Point) -> float: argument `p` (#0) expected Point, got float");
    // A tuple struct has no published name: messages spell it as the tuple Python sees, as
    // `abi inspect` and the stubs do.
    let e = call("swap", &[v(1.0)]).unwrap_err();
    assert_eq!(
        e.message(),
        "swap(p: tuple[int, int]) -> tuple[int, int]: argument `p` (#0) expected tuple[int, int], got float"
    );
}

#[test]
fn reflection_uses_sdict_stuple_and_tuple_schema() {
    let meta = abi_core::find_export("relabel").unwrap().metadata_json();
    assert!(meta.contains(r#""iree.abi":{"a":[["named","l",["sdict",["label","str"],["at",["sdict",["x","f64"],["y","f64"]]],["w","i32"]]],["named","label","str"]]"#), "{meta}");
    // A named struct's schema is the tuple of its fields, with its name and field names.
    assert!(meta.contains(r#"{\"type\":\"Tuple\",\"args\":[{\"type\":\"ffi.String\"},{\"type\":\"Tuple\",\"args\":[{\"type\":\"float\"},{\"type\":\"float\"}],\"abi.struct\":\"Point\",\"abi.fields\":[\"x\",\"y\"]},{\"type\":\"int\"}],\"abi.struct\":\"Labeled\",\"abi.fields\":[\"label\",\"at\",\"w\"]}"#), "{meta}");
    let meta = abi_core::find_export("swap").unwrap().metadata_json();
    assert!(meta.contains(r#""r":[["stuple","i64","i64"]]"#), "{meta}");
    let meta = abi_core::find_export("norm_flat").unwrap().metadata_json();
    assert!(meta.contains(r#""arg_names":["p.x","p.y"]"#), "{meta}");
    assert!(meta.contains(r#""a":[["named","p.x","f64"],["named","p.y","f64"]]"#), "{meta}");
    let _ = AnyView::NONE;
}
