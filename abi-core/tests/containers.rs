//! Containers: `Vec<T>` and tuples as Array objects (71), List objects (75) from hosts,
//! `HashMap`/`BTreeMap` as embedded Map objects (72; no tvm-ffi in a cargo test process),
//! Shape objects, and element-indexed conversion errors.

use core::ffi::c_void;
use core::sync::atomic::AtomicU64;
use std::collections::{BTreeMap, HashMap};

use abi_core::ffi::type_index as ti;
use abi_core::ffi::SeqCell;
use abi_core::ffi::{ObjectHeader, INITIAL_REF_COUNT};
use abi_core::ObjectHandle;
use abi_core::{Any, AnyView, Array, ConvError, FromAny, Map, RawAny, Shape, Str};

fn expect_err<T: FromAny + core::fmt::Debug>(v: AnyView<'_>, text: &str) -> ConvError {
    let e = T::from_any(v).unwrap_err();
    assert_eq!(e.to_string(), text);
    e
}

#[test]
fn vec_is_an_array() {
    let a = Any::from_value(vec![3i64, -1, 4]).unwrap();
    assert_eq!(a.type_index(), ti::ARRAY);
    let arr = a.to::<Array>().unwrap();
    assert_eq!(arr.len(), 3);
    let items: Vec<(i32, i64)> = arr.as_slice().iter().map(|v| (v.type_index(), v.raw().i64())).collect();
    assert_eq!(items, [(ti::INT, 3), (ti::INT, -1), (ti::INT, 4)]);
    assert_eq!(a.to::<Vec<i64>>().unwrap(), [3, -1, 4]);
    assert_eq!(a.to::<Vec<f64>>().unwrap(), [3.0, -1.0, 4.0], "elements convert like scalars");

    let empty = Any::from_value(Vec::<String>::new()).unwrap();
    assert_eq!(empty.type_index(), ti::ARRAY);
    assert!(empty.to::<Array>().unwrap().is_empty());
    assert!(empty.to::<Vec<String>>().unwrap().is_empty());
}

#[test]
fn vec_u8_is_bytes_not_an_array() {
    let a = Any::from_value(vec![1u8, 2, 3]).unwrap();
    assert_eq!(a.type_index(), ti::SMALL_BYTES);
    let long = Any::from_value(vec![9u8; 100]).unwrap();
    assert_eq!(long.type_index(), ti::BYTES);
    let arr = Any::from_value(vec![1u16, 2, 3]).unwrap();
    assert_eq!(arr.type_index(), ti::ARRAY);

    // Byte strings nest as elements: an Array of Bytes (or None).
    let blobs = vec![Some(vec![0u8, 1]), None, Some(vec![7u8; 40])];
    let a = Any::from_value(blobs.clone()).unwrap();
    let types: Vec<i32> = a.to::<Array>().unwrap().as_slice().iter().map(|v| v.type_index()).collect();
    assert_eq!(types, [ti::SMALL_BYTES, ti::NONE, ti::BYTES]);
    assert_eq!(a.to::<Vec<Option<Vec<u8>>>>().unwrap(), blobs);
}

#[test]
fn nested_and_optional_elements() {
    let strings = vec!["a".to_owned(), "a string long enough to be an object".to_owned(), String::new()];
    let a = Any::from_value(strings.clone()).unwrap();
    assert_eq!(a.to::<Vec<String>>().unwrap(), strings);
    let types: Vec<i32> = a.to::<Array>().unwrap().as_slice().iter().map(|v| v.type_index()).collect();
    assert_eq!(types, [ti::SMALL_STR, ti::STR, ti::SMALL_STR]);

    let opts = vec![Some(1i32), None, Some(-3)];
    let a = Any::from_value(opts.clone()).unwrap();
    assert_eq!(a.to::<Array>().unwrap().as_slice()[1].type_index(), ti::NONE);
    assert_eq!(a.to::<Vec<Option<i32>>>().unwrap(), opts);

    let nested = vec![vec![1i32], vec![], vec![2, 3]];
    let a = Any::from_value(nested.clone()).unwrap();
    assert_eq!(a.to::<Vec<Vec<i32>>>().unwrap(), nested);
    assert_eq!(a.to::<Array>().unwrap().as_slice()[2].type_index(), ti::ARRAY);

    let maybe: Option<Vec<i32>> = Some(vec![7]);
    assert_eq!(Any::from_value(maybe).unwrap().to::<Option<Vec<i32>>>().unwrap(), Some(vec![7]));
}

#[test]
fn element_errors_name_the_index() {
    let mixed = Any::from_value((1i64, "two", 3i64)).unwrap();
    let e = expect_err::<Vec<i64>>(mixed.view(), "element 1: expected int, got str");
    assert!(matches!(e, ConvError::Element { index: 1, .. }));
    assert_eq!(e.kind(), "TypeError");

    let big = Any::from_value(vec![1i64, 300]).unwrap();
    let e = expect_err::<Vec<i8>>(big.view(), "element 1: 300 is out of range for i8");
    assert_eq!(e.kind(), "ValueError");

    let deep = Any::from_value(vec![vec![1i64], vec![2, 1 << 40]]).unwrap();
    expect_err::<Vec<Vec<i32>>>(deep.view(), "element 1: element 1: 1099511627776 is out of range for i32");

    // A u64 beyond i64 is an element too (a BigInt object), out of range for an i64.
    let wide = Any::from_value(vec![1u64, u64::MAX]).unwrap();
    assert_eq!(wide.to::<Vec<u64>>().unwrap(), [1, u64::MAX]);
    let e = expect_err::<Vec<i64>>(wide.view(), "element 1: 18446744073709551615 is out of range for i64");
    assert_eq!(e.kind(), "ValueError");

    let int = Any::from_value(5i64).unwrap();
    expect_err::<Vec<i32>>(int.view(), "expected list[int], got int");
    expect_err::<Vec<String>>(AnyView::NONE, "expected list[str], got None");
}

#[test]
fn tuples_are_fixed_length_arrays() {
    let t = (7i32, "seven".to_owned(), 7.5f64, true);
    let a = Any::from_value(t.clone()).unwrap();
    assert_eq!(a.type_index(), ti::ARRAY);
    assert_eq!(a.to::<Array>().unwrap().len(), 4);
    assert_eq!(a.to::<(i32, String, f64, bool)>().unwrap(), t);

    let one = Any::from_value((9u16,)).unwrap();
    assert_eq!(one.to::<(u16,)>().unwrap(), (9,));
    let twelve = (1i8, 2i16, 3i32, 4i64, 5u16, 6u32, 7u64, 8f32, 9f64, true, "11", Some(12i32));
    let a = Any::from_value(twelve).unwrap();
    type Twelve = (i8, i16, i32, i64, u16, u32, u64, f32, f64, bool, String, Option<i32>);
    let back: Twelve = a.to().unwrap();
    assert_eq!((back.0, back.6, back.10.as_str(), back.11), (1, 7, "11", Some(12)));

    let three = Any::from_value((1i32, 2i32, 3i32)).unwrap();
    let e = expect_err::<(i32, i32)>(three.view(), "expected tuple of length 2, got length 3");
    assert!(matches!(e, ConvError::Length { expected: 2, got: 3, .. }));
    assert_eq!(e.kind(), "TypeError");
    expect_err::<(i32, String, i32)>(three.view(), "element 1: expected str, got int");
    let int = Any::from_value(1i64).unwrap();
    expect_err::<(i32, bool)>(int.view(), "expected tuple[int, bool], got int");
    // A tuple value is a list of Any for a Vec parameter.
    assert_eq!(three.to::<Vec<i64>>().unwrap(), [1, 2, 3]);
}

#[test]
fn hash_map_round_trip() {
    assert!(!abi_core::host::has_tvm_ffi_runtime(), "cargo test processes load no tvm-ffi");
    let mut m = HashMap::new();
    m.insert("one".to_owned(), 1i64);
    m.insert("a key long enough to be an object".to_owned(), 2);
    m.insert(String::new(), -3);
    let a = Any::from_value(m.clone()).unwrap();
    assert_eq!(a.type_index(), ti::MAP);
    assert_eq!(a.to::<HashMap<String, i64>>().unwrap(), m);
    let entries = a.to::<Map>().unwrap().entries().unwrap();
    assert_eq!(entries.len(), 3);
    let mut seen: Vec<(String, i64)> =
        entries.iter().map(|(k, v)| (k.to::<String>().unwrap(), v.to::<i64>().unwrap())).collect();
    seen.sort();
    assert_eq!(seen, [(String::new(), -3), ("a key long enough to be an object".to_owned(), 2), ("one".to_owned(), 1)]);
    let empty = Any::from_value(HashMap::<i64, i64>::new()).unwrap();
    assert!(empty.to::<HashMap<i64, i64>>().unwrap().is_empty());
}

#[test]
fn btree_map_round_trip_in_order() {
    let m: BTreeMap<i64, Vec<String>> =
        [(3, vec!["c".to_owned()]), (1, vec![]), (2, vec!["b".to_owned(), "bb".to_owned()])].into_iter().collect();
    let a = Any::from_value(m.clone()).unwrap();
    let keys: Vec<i64> = a.to::<Map>().unwrap().entries().unwrap().iter().map(|(k, _)| k.to().unwrap()).collect();
    assert_eq!(keys, [1, 2, 3], "embedded maps keep insertion order");
    assert_eq!(a.to::<BTreeMap<i64, Vec<String>>>().unwrap(), m);
}

#[test]
fn map_conversion_errors() {
    let m: BTreeMap<String, String> = [("k".to_owned(), "not a number".to_owned())].into_iter().collect();
    let a = Any::from_value(m).unwrap();
    expect_err::<HashMap<String, i64>>(a.view(), "element 0: expected int, got str");
    expect_err::<BTreeMap<i64, String>>(a.view(), "element 0: expected int, got str");
    let list = Any::from_value(vec![1i64]).unwrap();
    expect_err::<HashMap<String, i64>>(list.view(), "expected dict[str, int], got Array");
    let wide: BTreeMap<i64, u64> = [(1, u64::MAX)].into_iter().collect();
    let a = Any::from_value(wide.clone()).unwrap();
    assert_eq!(a.to::<BTreeMap<i64, u64>>().unwrap(), wide);
    expect_err::<BTreeMap<i64, i64>>(a.view(), "element 0: 18446744073709551615 is out of range for i64");
}

#[test]
fn maps_hold_their_entries() {
    let value = Any::from_value(Str::new("value object")).unwrap();
    let count = || value.to::<Str>().unwrap().as_object().strong_count() - 1;
    let map = Map::new(vec![(Any::from_value("k").unwrap(), value.clone())]).unwrap();
    assert_eq!(count(), 2);
    let entries = map.entries().unwrap();
    assert_eq!(count(), 3);
    drop(entries);
    let other = map.clone();
    drop(map);
    assert_eq!(count(), 2);
    drop(other);
    assert_eq!(count(), 1);
}

#[test]
fn later_duplicate_keys_win() {
    let k = || Any::from_value("key").unwrap();
    let map = Map::new(vec![(k(), Any::from_value(1i64).unwrap()), (k(), Any::from_value(2i64).unwrap())]).unwrap();
    let entries = map.entries().unwrap();
    assert_eq!(entries.len(), 1, "one entry per key, as in a dict literal");
    assert_eq!(entries[0].1.to::<i64>().unwrap(), 2);
}

#[test]
fn shapes() {
    let s = Shape::new(&[2, 0, -1, i64::MAX]);
    assert_eq!(s.dims(), &[2, 0, -1, i64::MAX]);
    assert_eq!(format!("{s:?}"), "Shape([2, 0, -1, 9223372036854775807])");
    assert!(Shape::new(&[]).dims().is_empty());
    let a = Any::from_value(s.clone()).unwrap();
    assert_eq!(a.type_index(), ti::SHAPE);
    assert_eq!(a.to::<Shape>().unwrap().dims(), s.dims());
    assert!(Shape::from_object(Str::new("x").as_object().clone()).is_err());
}

/// A List object (75) made by a host, with elements the host owns.
#[repr(C)]
struct ForeignList {
    header: ObjectHeader,
    cell: SeqCell,
}

#[test]
fn host_lists_read_through_the_seq_cell() {
    let mut items = [RawAny::from_i64(ti::INT, 10), RawAny::from_i64(ti::INT, 20), RawAny::from_i64(ti::BOOL, 1)];
    let list = ForeignList {
        header: ObjectHeader {
            combined_ref_count: AtomicU64::new(INITIAL_REF_COUNT),
            type_index: ti::LIST,
            padding: 0,
            deleter: None,
        },
        cell: SeqCell { data: items.as_mut_ptr(), size: 3, capacity: 3, data_deleter: None },
    };
    let ptr = core::ptr::from_ref(&list).cast_mut().cast::<c_void>();
    // SAFETY: `list` and `items` outlive the view.
    let v = unsafe { AnyView::from_raw(RawAny::from_ptr(ti::LIST, ptr)) };
    assert_eq!(Vec::<i64>::from_any(v).unwrap(), [10, 20, 1]);
    assert_eq!(<(i32, i32, bool)>::from_any(v).unwrap(), (10, 20, true));
    let arr = Array::from_any(v).unwrap();
    assert_eq!(arr.len(), 3);
    drop(arr);
    assert_eq!(list.header.combined_ref_count.load(core::sync::atomic::Ordering::Relaxed), INITIAL_REF_COUNT);

    // A negative or zero size reads as empty, never as a huge slice.
    let mut hostile = ForeignList { cell: SeqCell { size: -5, ..list.cell }, ..list };
    let ptr = core::ptr::from_mut(&mut hostile).cast::<c_void>();
    // SAFETY: as above.
    let v = unsafe { AnyView::from_raw(RawAny::from_ptr(ti::LIST, ptr)) };
    assert!(Vec::<i64>::from_any(v).unwrap().is_empty());
}

#[test]
fn array_handles() {
    let arr = Array::new(vec![Any::from_value(1i64).unwrap(), Any::from_value("x").unwrap()]);
    assert_eq!(format!("{arr:?}"), "[1, \"x\"]");
    let obj = arr.as_object().clone();
    assert_eq!(Array::from_object(obj).unwrap().len(), 2);
    assert!(Array::from_object(Shape::new(&[1]).as_object().clone()).is_err());
}
