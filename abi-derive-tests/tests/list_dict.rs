//! `ffi.List` and `ffi.Dict`, the mutable Array and Map: their Rust types (`List<T>`,
//! `Dict<K, V>`) pass as List and Dict objects; `Vec` and `HashMap` read them too (C++
//! converts each kind to the other), and bind checks accept one for the other, naming them
//! apart where they disagree. In the embedded runtime here; under tvm-ffi through its
//! `ffi.List`/`ffi.Dict` globals (tests/bindgen).

use std::collections::HashMap;

use abi_core::ffi::type_index as ti;
use abi_core::schema::TypeSchema;
use abi_core::{Any, Dict, List, Metadata};

/// Sums a list.
#[abi_core::export_fn]
fn list_sum(xs: List<i64>) -> i64 {
    xs.iter().sum()
}

/// Counts each word, as a Dict.
#[abi_core::export_fn]
fn word_counts(words: Vec<String>) -> Dict<String, i64> {
    let mut out = Dict::default();
    for w in words {
        *out.entry(w).or_insert(0) += 1;
    }
    out
}

/// The same callees, declared with `Vec` and `HashMap`.
#[abi_core::import(AsArrayAndMap)]
extern "C" {
    fn list_sum(xs: Vec<i64>) -> i64;
    fn word_counts(words: List<String>) -> HashMap<String, i64>;
}

/// A declaration whose element type disagrees.
#[abi_core::import(WrongElement)]
extern "C" {
    fn list_sum(xs: List<String>) -> i64;
}

#[test]
fn list_and_dict_pass_as_their_own_objects_and_read_back() {
    let list = Any::from_value(List(vec![1i64, 2, 3])).unwrap();
    assert_eq!(list.type_index(), ti::LIST);
    assert_eq!(list.to::<List<i64>>().unwrap(), List(vec![1, 2, 3]));
    assert_eq!(list.to::<Vec<i64>>().unwrap(), [1, 2, 3], "a Vec reads a List");
    let array = Any::from_value(vec![4i64]).unwrap();
    assert_eq!(array.type_index(), ti::ARRAY);
    assert_eq!(array.to::<List<i64>>().unwrap().0, [4], "a List reads an Array");

    let dict = Any::from_value(Dict::from_iter([("a".to_owned(), 1i64)])).unwrap();
    assert_eq!(dict.type_index(), ti::DICT);
    assert_eq!(dict.to::<HashMap<String, i64>>().unwrap()["a"], 1, "a HashMap reads a Dict");
    assert_eq!(dict.to::<Dict<String, i64>>().unwrap()["a"], 1);
    let err = dict.to::<Dict<String, String>>().unwrap_err();
    assert!(err.to_string().contains("element 0: expected str, got int"), "{err}");
    let err = Any::from_value(1i64).unwrap().to::<Dict<String, i64>>().unwrap_err();
    assert!(err.to_string().contains("expected tvm_ffi.Dict[str, int], got int"), "{err}");
}

#[test]
fn the_model_spells_them_apart_and_accepts_one_for_the_other() {
    let list = TypeSchema::parse(r#"{"type":"ffi.List","args":[{"type":"int"}]}"#).unwrap();
    let array = TypeSchema::parse(r#"{"type":"ffi.Array","args":[{"type":"int"}]}"#).unwrap();
    assert_eq!((list.python(), array.python()), ("tvm_ffi.List[int]".to_owned(), "list[int]".to_owned()));
    assert!(list.accepts(&array) && array.accepts(&list));
    let dict = TypeSchema::parse(r#"{"type":"ffi.Dict","args":[{"type":"ffi.String"},{"type":"int"}]}"#).unwrap();
    assert_eq!(dict.python(), "tvm_ffi.Dict[str, int]");
    assert_eq!(dict.to_json(), r#"{"type":"ffi.Dict","args":[{"type":"ffi.String"},{"type":"int"}]}"#);
    let published = abi_core::find_export("word_counts").unwrap().metadata_json();
    let meta = Metadata::parse(published).unwrap();
    let ret = meta.type_schema.unwrap().ret;
    assert!(matches!(ret, TypeSchema::Dict(..)), "{ret:?}");
    assert!(ret.same_as(&dict), "published as an ffi.Dict: {published}");
}

#[test]
fn imports_bind_across_the_two_kinds_and_refuse_other_elements() {
    let lib = AsArrayAndMap::bind_linked().unwrap();
    assert_eq!(lib.list_sum(vec![1, 2, 3]).unwrap(), 6);
    let counts = lib.word_counts(List(vec!["a".into(), "b".into(), "a".into()])).unwrap();
    assert_eq!((counts["a"], counts["b"]), (2, 1));
    let err = WrongElement::bind_linked().expect_err("refused");
    assert!(
        err.message()
            .contains("argument `xs` (#0) is declared tvm_ffi.List[str] but the callee takes tvm_ffi.List[int]"),
        "{}",
        err.message()
    );
}
