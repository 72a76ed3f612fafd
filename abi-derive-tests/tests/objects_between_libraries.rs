//! User objects between this program and two cdylibs with no tvm-ffi host: the program's
//! embedded type table is handed to each library `Library::open` attaches, so the program
//! and both libraries (all linking the same `mylib.Counter` source) agree on one index;
//! objects made anywhere are borrowed (`&Counter`) and owned (`Obj<Counter>`) everywhere,
//! and each value is dropped once, by the library whose code made it. A library declaring
//! the key with another layout is refused.

#[path = "../../fixtures/objects-lib/src/counter.rs"]
mod counter;

use abi_core::{Library, Obj, Object};
use abi_derive_tests::fixture_library;
use counter::Counter;

#[abi_core::import(Objects)]
extern "C" {
    fn make_counter(name: &str) -> Obj<Counter>;
    fn counter_value(c: &Obj<Counter>) -> i64;
    fn keep(c: Obj<Counter>) -> Obj<Counter>;
    fn dropped() -> usize;
}

#[abi_core::import(Twin)]
extern "C" {
    fn twin_make(name: &str, start: i64) -> Obj<Counter>;
    fn twin_value(c: &Obj<Counter>) -> i64;
    fn twin_dropped() -> usize;
}

fn libraries() -> (Objects, Twin) {
    let objects = Library::open(fixture_library("abi-objects-lib", "abi_objects_lib")).expect("open objects");
    let twin = Library::open(fixture_library("abi-objects-twin", "abi_objects_twin")).expect("open twin");
    (Objects::bind(&objects).expect("bind objects"), Twin::bind(&twin).expect("bind twin"))
}

// The drop counts are per library and every test makes values there: one test at a time.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

#[test]
fn one_index_and_objects_crossing_every_way() {
    let _serial = serial();
    assert!(!abi_core::host::has_tvm_ffi_runtime());
    let (objects, twin) = libraries();
    let a = objects.make_counter("a").unwrap();
    let b = twin.twin_make("b", 4).unwrap();
    let ours = Obj::new(Counter::new("c".into(), 9));
    let index = Counter::type_index().unwrap();
    for o in [&a, &b, &ours] {
        assert_eq!(o.as_object().type_index(), index, "one index for the key in the process");
    }
    assert_eq!((a.name.as_str(), b.name.as_str(), b.start), ("a", "b", 4), "read in place by the program");
    assert_eq!(objects.counter_value(&b).unwrap(), 4, "the twin's object borrowed by objects");
    assert_eq!(twin.twin_value(&a).unwrap(), 0, "objects' object borrowed by the twin");
    assert_eq!(twin.twin_value(&ours).unwrap(), 9, "the program's object borrowed by the twin");
    a.add(3);
    assert_eq!(twin.twin_value(&a).unwrap(), 3, "shared, not copied");
    let back = objects.keep(b.clone()).unwrap();
    assert!(Obj::ptr_eq(&back, &b));
}

#[test]
fn values_are_dropped_once_by_the_library_that_made_them() {
    let _serial = serial();
    let (objects, twin) = libraries();
    let (before_objects, before_twin) = (objects.dropped().unwrap(), twin.twin_dropped().unwrap());
    let a = objects.make_counter("a").unwrap();
    let b = twin.twin_make("b", 1).unwrap();
    let kept = objects.keep(b.clone()).unwrap();
    drop(b);
    assert_eq!(twin.twin_dropped().unwrap(), before_twin, "still held by `kept`");
    drop(kept);
    drop(a);
    assert_eq!(objects.dropped().unwrap(), before_objects + 1);
    assert_eq!(twin.twin_dropped().unwrap(), before_twin + 1);
}

#[test]
fn a_library_with_another_layout_for_the_key_is_refused() {
    let _serial = serial();
    let _ = Counter::type_index().unwrap();
    let lib = Library::open(fixture_library("abi-objects-conflict", "abi_objects_conflict")).unwrap();
    // Called untyped: its result type is the conflicting class.
    let make = lib.get("make_conflicting").unwrap();
    let call = |x: f64| make.call_raw(&[*abi_core::Any::from_value(x).unwrap().as_raw()]);
    let err = call(1.5).unwrap_err();
    assert_eq!(err.kind(), "TypeError");
    let message = err.message();
    assert!(message.contains("`mylib.Counter` is already registered with another layout"), "{message}");
    assert!(message.contains("fields=name:String@") && message.contains("fields=x:f64@0+8"), "{message}");
    // Every later use raises the same error.
    assert_eq!(call(2.0).unwrap_err().message(), message);
}
