//! User object types in one Rust program with no tvm-ffi host: the embedded type table,
//! `Obj<T>` ownership, `&T` and `Obj<T>` parameters through the exported shims, fields and
//! methods read back through the type table exactly as a host reads them, and drops.

use std::sync::atomic::{AtomicI64, AtomicUsize, Ordering};
use std::sync::Mutex;

use abi_core::ffi::type_index as ti;
use abi_core::{Any, Obj, Object};
use abi_derive_tests::call_export;

static DROPS: AtomicUsize = AtomicUsize::new(0);

/// A point with a drop counter.
#[derive(abi_core::Object, Debug)]
#[abi(type_key = "tests.Point")]
pub struct Point {
    /// Horizontal.
    #[abi(get)]
    pub x: f64,
    #[abi(get)]
    pub y: f64,
    /// Hits, writable from any holder.
    #[abi(get, set)]
    pub hits: AtomicI64,
    /// A writable label.
    #[abi(get, set)]
    pub label: Mutex<String>,
}

impl Drop for Point {
    fn drop(&mut self) {
        DROPS.fetch_add(1, Ordering::SeqCst);
    }
}

#[abi_core::methods]
impl Point {
    /// A point.
    #[abi(init)]
    pub fn new(x: f64, y: f64) -> Self {
        Point { x, y, hits: AtomicI64::new(0), label: Mutex::new(String::new()) }
    }
    /// Distance from the origin.
    pub fn norm(&self) -> f64 {
        self.hits.fetch_add(1, Ordering::SeqCst);
        (self.x * self.x + self.y * self.y).sqrt()
    }
    /// The origin.
    #[abi(static)]
    pub fn origin() -> Obj<Point> {
        Obj::new(Point::new(0.0, 0.0))
    }
}

/// A point made by an export.
#[abi_core::export_fn]
fn make_point(x: f64, y: f64) -> Point {
    Point::new(x, y)
}

/// Reads a borrowed point.
#[abi_core::export_fn]
fn point_x(p: &Point) -> f64 {
    p.x
}

/// Keeps a point.
#[abi_core::export_fn]
fn keep_point(p: Obj<Point>) -> Obj<Point> {
    p
}

fn drops() -> usize {
    DROPS.load(Ordering::SeqCst)
}

// Tests share the drop counter: every test that makes a point runs alone.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

#[test]
fn the_embedded_table_allocates_a_dynamic_index() {
    let _g = serial();
    let index = Point::type_index().unwrap();
    assert!(index >= ti::DYN_OBJECT_BEGIN, "{index}");
    assert_eq!(Point::type_index().unwrap(), index, "registered once");
    let p = Obj::new(Point::new(3.0, 4.0));
    assert_eq!(p.as_object().type_index(), index);
    assert_eq!(p.norm(), 5.0);
}

#[test]
fn obj_clone_counts_and_drops_exactly_once() {
    let _g = serial();
    let before = drops();
    let p = Obj::new(Point::new(1.0, 2.0));
    let q = p.clone();
    assert_eq!(Obj::strong_count(&p), 2);
    assert!(Obj::ptr_eq(&p, &q));
    drop(p);
    assert_eq!(drops(), before);
    drop(q);
    assert_eq!(drops(), before + 1);
}

#[test]
fn borrowed_and_owned_parameters_through_the_shims() {
    let _g = serial();
    let before = drops();
    let p = Obj::new(Point::new(7.0, 1.0));
    let arg = Any::from_value(p.clone()).unwrap();
    assert_eq!(call_export("point_x", std::slice::from_ref(&arg)).unwrap().to::<f64>().unwrap(), 7.0);
    let back = call_export("keep_point", &[arg]).unwrap().to::<Obj<Point>>().unwrap();
    assert!(Obj::ptr_eq(&p, &back));
    let made = call_export("make_point", &[Any::from_value(2.0).unwrap(), Any::from_value(0.5).unwrap()]).unwrap();
    assert_eq!(made.to::<Obj<Point>>().unwrap().y, 0.5);
    drop((p, back, made));
    assert_eq!(drops(), before + 2);
}

#[test]
fn other_values_are_refused_with_the_type_key() {
    for bad in [Any::from_value("p").unwrap(), Any::default(), Any::from_value(1i64).unwrap()] {
        let err = call_export("point_x", &[bad]).unwrap_err();
        assert_eq!(err.kind(), "TypeError");
        assert!(err.message().contains("argument `p` (#0) expected tests.Point"), "{}", err.message());
    }
    let shape = Any::from_value(abi_core::Shape::new(&[1, 2])).unwrap();
    let err = call_export("point_x", &[shape]).unwrap_err();
    assert!(err.message().contains("expected tests.Point"), "{}", err.message());
}

#[test]
fn eight_threads_share_one_object() {
    let _g = serial();
    let p = Obj::new(Point::new(3.0, 4.0));
    let before = p.hits.load(Ordering::SeqCst);
    let threads: Vec<_> = (0..8)
        .map(|_| {
            let p = p.clone();
            std::thread::spawn(move || {
                for _ in 0..1000 {
                    assert_eq!(p.norm(), 5.0);
                    let arg = Any::from_value(p.clone()).unwrap();
                    assert_eq!(call_export("point_x", &[arg]).unwrap().to::<f64>().unwrap(), 3.0);
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(p.hits.load(Ordering::SeqCst) - before, 8000);
    assert_eq!(Obj::strong_count(&p), 1);
}

#[test]
fn a_weak_reference_keeps_the_memory_not_the_value() {
    let _g = serial();
    let before = drops();
    let p = Obj::new(Point::new(1.0, 1.0));
    let weak = Obj::downgrade(&p);
    let weak2 = weak.clone();
    assert_eq!(Obj::strong_count(&p), 1, "weak references are not strong");
    let again = weak.upgrade().expect("alive while a strong reference exists");
    assert!(Obj::ptr_eq(&p, &again));
    assert_eq!(weak.strong_count(), 2);
    drop((p, again));
    assert_eq!(drops(), before + 1, "the value goes with the last strong reference");
    assert!(weak.upgrade().is_none());
    assert!(weak2.upgrade().is_none());
    assert_eq!(weak.strong_count(), 0);
    assert!(format!("{weak:?}").contains("tests.Point"));
    // The memory goes with the last weak reference (valgrind and ASan run this test).
    drop((weak, weak2));
    assert_eq!(drops(), before + 1, "dropped exactly once");
}

#[test]
fn upgrades_racing_the_last_release_never_revive_the_value() {
    let _g = serial();
    let before = drops();
    for _ in 0..50 {
        let p = Obj::new(Point::new(2.0, 0.0));
        let weak = Obj::downgrade(&p);
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let weak = weak.clone();
                std::thread::spawn(move || {
                    // Bounded: valgrind runs one thread at a time, and an unbounded loop
                    // could keep the releasing thread waiting.
                    for _ in 0..1000 {
                        let Some(p) = weak.upgrade() else { break };
                        assert_eq!(p.x, 2.0);
                    }
                })
            })
            .collect();
        drop(p);
        for t in threads {
            t.join().unwrap();
        }
        assert!(weak.upgrade().is_none());
    }
    assert_eq!(drops(), before + 50);
}

/// The type table as a host reads it: type info, fields through their getters and
/// setters, methods as Function objects.
mod table {
    use super::*;
    use abi_core::ffi::type_table::{field_flags, FieldInfo, MethodInfo, TypeInfo};
    use abi_core::ffi::RawAny;
    use abi_core::{Function, ObjectHandle, ObjectRef};

    fn info() -> &'static TypeInfo {
        let api = abi_core::__private::own_runtime_table().types;
        // SAFETY: the index is registered.
        unsafe { &*(api.get_type_info)(Point::type_index().unwrap()) }
    }

    fn fields() -> &'static [FieldInfo] {
        let info = info();
        // SAFETY: `num_fields` records.
        unsafe { core::slice::from_raw_parts(info.fields, info.num_fields as usize) }
    }

    fn methods() -> &'static [MethodInfo] {
        let info = info();
        // SAFETY: `num_methods` records.
        unsafe { core::slice::from_raw_parts(info.methods, info.num_methods as usize) }
    }

    fn text(b: abi_core::ffi::ByteArray) -> String {
        // SAFETY: texts the table keeps.
        String::from_utf8(unsafe { b.as_slice() }.to_vec()).unwrap()
    }

    fn field(name: &str) -> FieldInfo {
        *fields().iter().find(|f| text(f.name) == name).unwrap_or_else(|| panic!("field {name}"))
    }

    fn get(p: &Obj<Point>, f: &FieldInfo) -> Any {
        let mut out = RawAny::NONE;
        let addr = p.as_object().as_ptr().cast::<u8>().wrapping_add(f.offset as usize);
        // SAFETY: the field's address inside a live object, as a host computes it.
        let rc = unsafe { (f.getter.unwrap())(addr.cast(), &mut out) };
        assert_eq!(rc, 0);
        // SAFETY: the getter wrote an owned value.
        unsafe { Any::from_raw(out) }
    }

    #[test]
    fn type_info_names_key_depth_and_object_ancestor() {
        let _g = serial();
        let info = info();
        assert_eq!(text(info.type_key), "tests.Point");
        assert_eq!(info.type_depth, 1);
        // SAFETY: depth 1: one ancestor.
        assert_eq!(unsafe { (**info.type_ancestors).type_index }, ti::OBJECT);
        // SAFETY: registered with metadata.
        let meta = unsafe { &*info.metadata };
        assert_eq!(text(meta.doc), "A point with a drop counter.");
        assert_eq!(meta.total_size as usize, 24 + size_of::<Point>());
    }

    #[test]
    fn fields_read_and_write_through_the_table() {
        let _g = serial();
        let names: Vec<String> = fields().iter().map(|f| text(f.name)).collect();
        assert_eq!(names, ["x", "y", "hits", "label"]);
        let p = Obj::new(Point::new(1.5, 2.5));
        assert_eq!(get(&p, &field("x")).to::<f64>().unwrap(), 1.5);
        assert_eq!(text(field("x").doc), "Horizontal.");
        assert_eq!(text(field("y").metadata), r#"{"type_schema":"{\"type\":\"float\"}"}"#);
        assert_eq!(field("x").flags & field_flags::WRITABLE, 0);
        assert!(field("x").setter.is_null());
        let label = field("label");
        assert_ne!(label.flags & field_flags::WRITABLE, 0);
        let setter: abi_core::ffi::type_table::FieldSetter = unsafe { core::mem::transmute(label.setter) };
        let value = Any::from_value("renamed").unwrap();
        let addr = p.as_object().as_ptr().cast::<u8>().wrapping_add(label.offset as usize);
        // SAFETY: a writable field of a live object.
        assert_eq!(unsafe { setter(addr.cast(), value.as_raw()) }, 0);
        assert_eq!(*p.label.lock().unwrap(), "renamed");
        assert_eq!(get(&p, &label).to::<String>().unwrap(), "renamed");
        let wrong = Any::from_value(3i64).unwrap();
        // SAFETY: as above; the value is refused before anything is written.
        assert_ne!(unsafe { setter(addr.cast(), wrong.as_raw()) }, 0);
        let err = abi_core::host::take_raised().unwrap();
        assert_eq!(err.kind(), "TypeError");
        assert_eq!(*p.label.lock().unwrap(), "renamed");
    }

    #[test]
    fn methods_are_functions_taking_self_first() {
        let _g = serial();
        let by_name = |n: &str| *methods().iter().find(|m| text(m.name) == n).unwrap_or_else(|| panic!("{n}"));
        let function = |m: MethodInfo| {
            // SAFETY: the table holds a reference to the Function.
            let obj = unsafe { ObjectRef::from_borrowed(core::ptr::NonNull::new(m.method.ptr().cast()).unwrap()) };
            Function::from_object(obj).unwrap()
        };
        let p = Obj::new(Point::new(3.0, 4.0));
        let this = Any::from_value(p.clone()).unwrap();
        let norm = by_name("norm");
        assert_eq!(norm.flags & field_flags::STATIC_METHOD, 0);
        assert_eq!(text(norm.doc), "Distance from the origin.");
        assert_eq!(function(norm).call_packed(&[this.view()]).unwrap().to::<f64>().unwrap(), 5.0);
        let init = by_name("__ffi_init__");
        assert_ne!(init.flags & field_flags::STATIC_METHOD, 0);
        let args = [Any::from_value(6.0).unwrap(), Any::from_value(8.0).unwrap()];
        let made = function(init).call_packed(&[args[0].view(), args[1].view()]).unwrap();
        assert_eq!(made.to::<Obj<Point>>().unwrap().norm(), 10.0);
        let origin = function(by_name("origin")).call_packed(&[]).unwrap();
        assert_eq!(origin.to::<Obj<Point>>().unwrap().x, 0.0);
        let err = function(norm).call_packed(&[Any::from_value(1i64).unwrap().view()]).unwrap_err();
        assert!(err.message().starts_with("Point.norm(self: tests.Point) -> float"), "{}", err.message());
    }

    #[test]
    fn a_second_field_or_method_of_a_name_is_refused() {
        let _g = serial();
        let api = abi_core::__private::own_runtime_table().types;
        let index = Point::type_index().unwrap();
        let x = field("x");
        // SAFETY: a complete record.
        assert_ne!(unsafe { (api.register_field)(index, &x) }, 0);
        assert_eq!(abi_core::host::take_raised().unwrap().message(), "field `x` is already registered");
        let norm = *methods().iter().find(|m| text(m.name) == "norm").unwrap();
        // SAFETY: a complete record.
        assert_ne!(unsafe { (api.register_method)(index, &norm) }, 0);
        assert_eq!(abi_core::host::take_raised().unwrap().message(), "method `norm` is already registered");
        assert_eq!(fields().len(), 4);
        assert_eq!(methods().len(), 3);
    }

    #[test]
    fn the_fingerprint_is_a_type_attribute() {
        let _g = serial();
        let api = abi_core::__private::own_runtime_table().types;
        let layout = abi_core::__private::registered_layout(&api, Point::type_index().unwrap()).unwrap();
        assert!(layout.starts_with("abi-layout/1 tests.Point parent=ffi.Object size="), "{layout}");
        assert!(layout.contains("x:f64@"), "{layout}");
    }
}

#[test]
fn a_value_converted_into_an_any_is_dropped_with_its_last_holder() {
    let _g = serial();
    let before = drops();
    let any = Any::from_value(Point::new(0.0, 1.0)).unwrap();
    let copy = any.clone();
    drop(any);
    assert_eq!(drops(), before);
    drop(copy);
    assert_eq!(drops(), before + 1);
}
