//! Bindings `abi bindgen` wrote for the pinned apache-tvm-ffi's own globals (checked in:
//! tests/bindgen/testing.rs for the 59 `testing.*` globals `libtvm_ffi_testing.so`
//! registers, tests/bindgen/ffi.rs for libtvm_ffi's 100 `ffi.*`): compiled as generated,
//! bound (every signature checked against the registry's metadata) and called. Needs the
//! wheel's libraries loaded before the first abi call, so the tests are ignored by `cargo
//! test` and run by scripts/test-bindgen.sh with `ABI_TVM_FFI_LIBDIR` set; the same script
//! checks that regenerating gives these files byte for byte.

// As generated: the workspace's rustfmt settings are not the generator's.
#[rustfmt::skip]
#[path = "bindgen/ffi.rs"]
#[allow(dead_code)]
mod ffi;
#[rustfmt::skip]
#[path = "bindgen/testing.rs"]
#[allow(dead_code)]
mod testing;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Once;

use abi_core::{Any, Dict, List, Tensor, TypedFunction, Variant2};

/// `testing.add_one` as generated, then edited by hand to take a float.
#[abi_core::import(HandEdited)]
extern "C" {
    #[abi(name = "testing.add_one")]
    fn add_one(arg0: f64) -> i64;
}

/// Loads libtvm_ffi and libtvm_ffi_testing.so (symbols global) before any abi call.
fn load() {
    static LOAD: Once = Once::new();
    LOAD.call_once(|| {
        let dir = PathBuf::from(std::env::var_os("ABI_TVM_FFI_LIBDIR").expect("ABI_TVM_FFI_LIBDIR"));
        for name in ["libtvm_ffi.so", "libtvm_ffi_testing.so"] {
            use libloading::os::unix::{Library, RTLD_GLOBAL, RTLD_NOW};
            // SAFETY: loading the wheel's libraries runs their initialisers, which register
            // their globals and types; they stay loaded for the process.
            let lib = unsafe { Library::open(Some(dir.join(name)), RTLD_NOW | RTLD_GLOBAL) }.expect(name);
            std::mem::forget(lib);
        }
        assert!(abi_core::host::has_tvm_ffi_runtime());
    });
}

#[test]
#[ignore = "needs the wheel's libtvm_ffi: run by scripts/test-bindgen.sh"]
fn every_testing_global_binds_and_the_typed_ones_work() {
    load();
    let t = testing::TestingGlobals::bind_globals().unwrap();
    assert_eq!(t.add_one(41).unwrap(), 42);
    assert_eq!(t.schema_id_float(1.5).unwrap(), 1.5);
    assert_eq!(t.schema_id_string("héllo, world").unwrap(), "héllo, world");
    assert_eq!(t.schema_id_bytes(b"\0ab").unwrap(), b"\0ab");
    assert_eq!(t.schema_id_opt_int(None).unwrap(), None);
    assert_eq!(t.schema_id_arr_int(vec![1, 2]).unwrap(), [1, 2]);
    // ffi.List and ffi.Dict both ways.
    assert_eq!(t.schema_id_list_int(List(vec![3, 4])).unwrap(), List(vec![3, 4]));
    assert_eq!(t.schema_id_list_str(List(vec!["x".into()])).unwrap().0, ["x"]);
    let dict = Dict::from_iter([("k".to_owned(), 7i64)]);
    assert_eq!(t.schema_id_dict_str_int(dict.clone()).unwrap(), dict);
    let map = HashMap::from([("m".to_owned(), 1i64)]);
    assert_eq!(t.schema_id_map_str_int(map.clone()).unwrap(), map);
    // Variants, by member.
    assert_eq!(t.schema_id_variant_int_str(Variant2::A(5)).unwrap(), Variant2::A(5));
    assert_eq!(t.schema_id_variant_int_str(Variant2::B("s".into())).unwrap(), Variant2::B("s".into()));
    // Tensors, as Tensor objects (which `DLTensor*` parameters take too).
    let x = Tensor::from_vec(vec![1.0f32, 2.0], &[2]).unwrap();
    let back = t.schema_id_tensor(x.clone()).unwrap();
    assert_eq!(back.view().as_slice::<f32>().unwrap(), [1.0, 2.0]);
    assert!(t.optional_tensor_view_has_value(Some(x.clone())).unwrap());
    assert!(!t.optional_tensor_view_has_value(None).unwrap());
    // A typed callback handed back.
    let f = TypedFunction::<fn(i64, f64, abi_core::Function)>::new(|_, _, _| ());
    t.schema_id_func_typed(f).unwrap();
    // Errors keep their kind and message.
    let err = t.test_raise_error("ValueError", "from C++").unwrap_err();
    assert_eq!((err.kind(), err.message()), ("ValueError", "from C++"));
    // The packed ones, through the unchecked form.
    assert_eq!(t.echo(Any::from_value(9i64).unwrap()).unwrap().to::<i64>().unwrap(), 9);
}

#[test]
#[ignore = "needs the wheel's libtvm_ffi: run by scripts/test-bindgen.sh"]
fn a_cpp_object_is_read_through_its_typed_handle() {
    load();
    let ffi = ffi::FfiGlobals::bind_globals().unwrap();
    let t = testing::TestingGlobals::bind_globals().unwrap();
    // Made by the type's constructor, as Python's `TestIntPair(3, 4)` is.
    let pair = testing::TestIntPair::new(3, 4).unwrap();
    assert_eq!((pair.a().unwrap(), pair.b().unwrap()), (3, 4));
    assert_eq!(pair.sum().unwrap(), 7);
    assert_eq!(t.test_int_pair_sum(pair.clone()).unwrap(), 7);
    assert_eq!(pair.type_key(), "testing.TestIntPair");
    let _ = ffi;
}

#[test]
#[ignore = "needs the wheel's libtvm_ffi: run by scripts/test-bindgen.sh"]
fn every_ffi_global_binds_and_builds_containers() {
    load();
    let ffi = ffi::FfiGlobals::bind_globals().unwrap();
    assert_eq!(ffi.string("abc").unwrap(), "abc");
    let list = List(vec![Any::from_value(1i64).unwrap()]);
    assert_eq!(ffi.list_size(list.clone()).unwrap(), 1);
    let map = abi_core::Map::new(vec![(Any::from_value("k").unwrap(), Any::from_value(1i64).unwrap())]).unwrap();
    assert_eq!(ffi.map_size(map).unwrap(), 1);
}

#[test]
#[ignore = "needs the wheel's libtvm_ffi: run by scripts/test-bindgen.sh"]
fn a_mismatched_hand_edit_is_refused_when_bound() {
    load();
    let err = HandEdited::bind_globals().expect_err("refused");
    assert_eq!(err.kind(), "TypeError");
    assert!(
        err.message().contains("argument `arg0` (#0) is declared float but the callee takes int"),
        "{}",
        err.message()
    );
}
