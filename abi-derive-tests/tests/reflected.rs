//! Objects of any type read and called through reflection (`Reflected`), and typed handles
//! over it (`reflected_type!`): here over a Rust type, which the program only knows by its
//! type key; the C++ types of libtvm_ffi_testing.so are reached the same way
//! (tests/bindgen).

use std::sync::atomic::{AtomicI64, Ordering};

use abi_core::{Any, Obj, Reflected};

/// A counter the program links but reaches by reflection only.
#[derive(abi_core::Object)]
#[abi(type_key = "reflected_test.Counter")]
pub struct Counter {
    /// Its name.
    #[abi(get)]
    name: String,
    /// Its value.
    #[abi(get, set)]
    value: AtomicI64,
}

#[abi_core::methods]
impl Counter {
    /// Adds `by`, returns the new value.
    pub fn add(&self, by: i64) -> i64 {
        self.value.fetch_add(by, Ordering::SeqCst) + by
    }
    /// A new counter.
    #[abi(static)]
    pub fn named(name: String) -> Obj<Counter> {
        Obj::new(Counter { name, value: AtomicI64::new(0) })
    }
}

abi_core::reflected_type! {
    /// The counter, by its key.
    pub struct CounterHandle = "reflected_test.Counter";
}

impl CounterHandle {
    fn value(&self) -> abi_core::Result<i64> {
        self.get("value")
    }
}

fn counter() -> Reflected {
    let obj = Obj::new(Counter { name: "c".into(), value: AtomicI64::new(5) });
    Any::from_value(obj).unwrap().to::<Reflected>().unwrap()
}

#[test]
fn fields_are_read_and_written_by_name() {
    let c = counter();
    assert_eq!(c.type_key(), "reflected_test.Counter");
    assert_eq!(c.field_names(), ["name", "value"]);
    assert_eq!(c.get::<String>("name").unwrap(), "c");
    c.set("value", 9i64).unwrap();
    assert_eq!(c.get::<i64>("value").unwrap(), 9);
    let err = c.set("name", "d").unwrap_err();
    assert_eq!((err.kind(), err.message()), ("AttributeError", "field `name` of reflected_test.Counter is read-only"));
    let err = c.get::<i64>("nope").unwrap_err();
    assert!(err.message().contains("has no field `nope` (it has: name, value)"), "{}", err.message());
    let err = c.get::<i64>("name").unwrap_err();
    assert!(err.message().contains("field `name` of reflected_test.Counter"), "{}", err.message());
}

#[test]
fn methods_are_called_by_name_static_ones_without_the_object() {
    let c = counter();
    assert!(c.method_names().contains(&"add".to_owned()));
    let by = Any::from_value(2i64).unwrap();
    assert_eq!(c.call::<i64>("add", &[by.view()]).unwrap(), 7);
    let name = Any::from_value("fresh").unwrap();
    let fresh: Reflected = c.call("named", &[name.view()]).unwrap();
    assert_eq!(fresh.get::<String>("name").unwrap(), "fresh");
    // A static method needs no object: by the type's key.
    let made: Reflected = Reflected::call_static("reflected_test.Counter", "named", &[name.view()]).unwrap();
    assert_eq!(made.get::<String>("name").unwrap(), "fresh");
    let err = Reflected::call_static::<Any>("reflected_test.Nothing", "named", &[]).unwrap_err();
    assert_eq!(err.message(), "no type `reflected_test.Nothing` is registered in this process");
    assert!(c.call::<i64>("gone", &[]).unwrap_err().message().contains("has no method `gone`"));
}

#[test]
fn a_typed_handle_takes_only_its_type() {
    let c = Any::from(counter().object().clone());
    let handle: CounterHandle = c.to().unwrap();
    assert_eq!(handle.value().unwrap(), 5);
    assert_eq!(CounterHandle::TYPE_KEY, "reflected_test.Counter");
    let other = Any::from(abi_core::Array::new(vec![]));
    let err = other.to::<CounterHandle>().unwrap_err();
    assert!(err.to_string().contains("expected reflected_test.Counter"), "{err}");
    // It passes back as the object it holds.
    let back = Any::from_value(handle).unwrap();
    assert_eq!(back.to::<Reflected>().unwrap().type_key(), "reflected_test.Counter");
}
