//! `#[export_fn(global = "...")]`: the export joins the global registry with its docs and
//! metadata, and `bind_globals()` checks declared signatures against that metadata.

use abi_core::host::global_metadata;
use abi_core::{find_export, Function, Metadata, TypedFunction};

/// Doubles `x`; also the global `tests.double`.
#[abi_core::export_fn(global = "tests.double")]
fn double(x: i64) -> i64 {
    x * 2
}

#[abi_core::import(Doubler)]
extern "C" {
    #[abi(name = "tests.double")]
    fn double(x: i64) -> i64;
}

#[abi_core::import(WrongDoubler)]
extern "C" {
    #[abi(name = "tests.double")]
    fn double(x: &str) -> Option<i64>;
}

#[abi_core::import(Untyped)]
extern "C" {
    #[abi(name = "tests.untyped")]
    fn untyped(x: i64) -> i64;
}

#[abi_core::import(DynamicDoubler)]
extern "C" {
    #[abi(name = "tests.double")]
    fn double(x: abi_core::Any) -> abi_core::Any;
}

#[test]
fn a_global_export_is_registered_with_its_metadata() {
    let d = Doubler::bind_globals().unwrap();
    assert_eq!(d.double(21).unwrap(), 42);
    let published = global_metadata("tests.double").unwrap().expect("registered with metadata");
    assert_eq!(published, find_export("double").unwrap().metadata_json());
    let meta = Metadata::parse(&published).unwrap();
    assert_eq!(meta.python_signature("tests.double"), "tests.double(x: int) -> int");
    assert!(abi_core::host::embedded_global_names().contains(&"tests.double".to_owned()));
}

#[test]
fn a_mismatched_global_import_is_refused_with_both_signatures() {
    let e = WrongDoubler::bind_globals().map(|_| ()).unwrap_err();
    assert_eq!(e.kind(), "TypeError");
    let msg = e.message();
    for part in [
        "declared tests.double(x: str) -> Optional[int]",
        "publishes tests.double(x: int) -> int",
        "argument `x` (#0) is declared str but the callee takes int",
    ] {
        assert!(msg.contains(part), "{part:?} not in {msg}");
    }
    // `Optional[int]` accepts the callee's `int`: only the parameter is reported.
    assert!(!msg.contains("the result"), "{msg}");
}

#[test]
fn any_defers_the_check_to_call_time() {
    let d = DynamicDoubler::bind_globals().unwrap();
    let r = d.double(abi_core::IntoAny::into_any(4i64).unwrap()).unwrap();
    assert_eq!(r.to::<i64>().unwrap(), 8);
    let e = d.double(abi_core::IntoAny::into_any("x").unwrap()).unwrap_err();
    assert_eq!(e.kind(), "TypeError");
}

#[test]
fn a_global_registered_without_metadata_binds_unchecked() {
    let f = TypedFunction::<fn(String) -> i64>::new(|s| s.len() as i64);
    f.as_function().register_global("tests.untyped", false).unwrap();
    assert_eq!(global_metadata("tests.untyped").unwrap(), None);
    assert!(Function::get_global("tests.untyped").is_some());
    // Nothing to check against: a wrong declaration binds, and the call reports the type.
    let wrong = Untyped::bind_globals().unwrap();
    let e = wrong.untyped(3).unwrap_err();
    assert_eq!(e.kind(), "TypeError", "{}", e.message());
    assert!(global_metadata("tests.absent").is_err(), "an absent global is an error, as in tvm-ffi");
}
