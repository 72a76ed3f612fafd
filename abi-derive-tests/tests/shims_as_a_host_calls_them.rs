//! Export shims, object field accessors and typed imports driven exactly as a host drives
//! them: through the `__tvm_ffi_*` symbols as C function pointers, the type table's
//! accessor pointers, and import wrappers bound to those pointers. Nothing here needs the
//! linker's registries or `dlopen`, so scripts/test-miri.sh runs this file under Miri
//! (both aliasing models) as well as `cargo test` running it natively.

use core::ffi::c_void;
use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};

use abi_core::ffi::type_index as ti;
use abi_core::ffi::type_table::{FieldInfo, FieldSetter};
use abi_core::{
    Any, Error, Function, HostTensor, HostTensorMut, Object, RawAny, Result, SafeCall, Tensor, TensorView,
    TensorViewMut, TypedFunction,
};

/// A 2-D point, crossing as a tuple.
#[derive(abi_core::AbiStruct, Debug, Clone, Copy, PartialEq)]
pub struct Point {
    x: f64,
    y: f64,
}

/// A named counter.
#[derive(abi_core::Object)]
#[abi(type_key = "miri.Counter")]
pub struct Counter {
    #[abi(get)]
    name: String,
    #[abi(get, set)]
    hits: AtomicI64,
}

/// Adds.
/// Trailing defaults: a call may stop after `x`.
#[abi_core::export_fn]
fn scaled(
    x: i64,
    #[abi(default = 2)] k: i64,
    #[abi(default)] note: Option<String>,
    #[abi(default = "u")] unit: &str,
) -> String {
    format!("{}{unit}{}", x * k, note.map(|n| format!(" ({n})")).unwrap_or_default())
}

/// Every parameter defaulted: a call may pass nothing (and a null `args` with it).
#[abi_core::export_fn]
fn all_defaulted(#[abi(default = -1.5)] x: f64, #[abi(default = true)] flag: bool) -> String {
    format!("{x} {flag}")
}

#[abi_core::export_fn]
fn add(a: i64, b: i64) -> i64 {
    a.wrapping_add(b)
}

/// Greets.
#[abi_core::export_fn]
fn greet(name: &str) -> String {
    format!("hello, {name}")
}

/// Joins.
#[abi_core::export_fn]
fn join(parts: Vec<String>, sep: Option<String>) -> String {
    parts.join(sep.as_deref().unwrap_or(","))
}

/// The length of a point.
#[abi_core::export_fn]
fn norm(p: Point) -> f64 {
    (p.x * p.x + p.y * p.y).sqrt()
}

/// The length of a point passed as two slots.
#[abi_core::export_fn]
fn norm_flat(#[abi(expand)] p: Point) -> f64 {
    (p.x * p.x + p.y * p.y).sqrt()
}

/// Sum of a float64 tensor.
#[abi_core::export_fn]
fn total(x: TensorView<'_>) -> Result<f64> {
    Ok(x.as_slice::<f64>()?.iter().sum())
}

/// Doubles each element in place (`ValueError` unless float64 host memory).
#[abi_core::export_fn]
fn double_in_place(mut x: TensorViewMut<'_>) -> Result<()> {
    x.as_mut_slice::<f64>()?.iter_mut().for_each(|v| *v *= 2.0);
    Ok(())
}

/// dst = src * k, through a typed mutable slice (refused when they share memory).
#[abi_core::export_fn]
fn scaled_into(src: HostTensor<'_, f64, 1>, k: f64, mut dst: HostTensorMut<'_, f64, 1>) {
    dst.as_mut_slice().iter_mut().zip(src.as_slice()).for_each(|(d, s)| *d = s * k);
}

/// A new tensor.
#[abi_core::export_fn]
fn iota(n: i64) -> Result<Tensor> {
    Tensor::from_vec((0..n).map(|i| i as f32).collect(), &[n])
}

/// Sum of the values.
#[abi_core::export_fn]
fn map_total(m: HashMap<String, i64>) -> i64 {
    m.values().sum()
}

/// Byte count.
#[abi_core::export_fn]
fn byte_len(b: &[u8]) -> usize {
    b.len()
}

/// `f(f(x))`.
#[abi_core::export_fn]
fn twice(f: TypedFunction<fn(i64) -> i64>, x: i64) -> Result<i64> {
    f.call(f.call(x)?)
}

/// Whatever it was given.
#[abi_core::export_fn]
fn echo(x: Any) -> Any {
    x
}

/// Fails for negatives (`ValueError`).
#[abi_core::export_fn]
fn checked(x: i64) -> Result<i64> {
    if x < 0 {
        return Err(Error::value_error(format!("x must not be negative, got {x}")));
    }
    Ok(x)
}

/// Panics.
#[abi_core::export_fn]
fn panics() -> i64 {
    panic!("on purpose")
}

/// A counter.
#[abi_core::export_fn]
fn make_counter(name: &str) -> Counter {
    Counter { name: name.to_owned(), hits: AtomicI64::new(0) }
}

/// Hits a counter.
#[abi_core::export_fn]
fn hit(c: &Counter) -> i64 {
    c.hits.fetch_add(1, Ordering::SeqCst) + 1
}

unsafe extern "C" {
    fn __tvm_ffi_add(h: *mut c_void, args: *const RawAny, n: i32, out: *mut RawAny) -> i32;
    fn __tvm_ffi_greet(h: *mut c_void, args: *const RawAny, n: i32, out: *mut RawAny) -> i32;
    fn __tvm_ffi_join(h: *mut c_void, args: *const RawAny, n: i32, out: *mut RawAny) -> i32;
    fn __tvm_ffi_norm(h: *mut c_void, args: *const RawAny, n: i32, out: *mut RawAny) -> i32;
    fn __tvm_ffi_norm_flat(h: *mut c_void, args: *const RawAny, n: i32, out: *mut RawAny) -> i32;
    fn __tvm_ffi_total(h: *mut c_void, args: *const RawAny, n: i32, out: *mut RawAny) -> i32;
    fn __tvm_ffi_double_in_place(h: *mut c_void, args: *const RawAny, n: i32, out: *mut RawAny) -> i32;
    fn __tvm_ffi_scaled_into(h: *mut c_void, args: *const RawAny, n: i32, out: *mut RawAny) -> i32;
    fn __tvm_ffi_scaled(h: *mut c_void, args: *const RawAny, n: i32, out: *mut RawAny) -> i32;
    fn __tvm_ffi_all_defaulted(h: *mut c_void, args: *const RawAny, n: i32, out: *mut RawAny) -> i32;
    fn __tvm_ffi_iota(h: *mut c_void, args: *const RawAny, n: i32, out: *mut RawAny) -> i32;
    fn __tvm_ffi_map_total(h: *mut c_void, args: *const RawAny, n: i32, out: *mut RawAny) -> i32;
    fn __tvm_ffi_byte_len(h: *mut c_void, args: *const RawAny, n: i32, out: *mut RawAny) -> i32;
    fn __tvm_ffi_twice(h: *mut c_void, args: *const RawAny, n: i32, out: *mut RawAny) -> i32;
    fn __tvm_ffi_echo(h: *mut c_void, args: *const RawAny, n: i32, out: *mut RawAny) -> i32;
    fn __tvm_ffi_checked(h: *mut c_void, args: *const RawAny, n: i32, out: *mut RawAny) -> i32;
    fn __tvm_ffi_panics(h: *mut c_void, args: *const RawAny, n: i32, out: *mut RawAny) -> i32;
    fn __tvm_ffi_make_counter(h: *mut c_void, args: *const RawAny, n: i32, out: *mut RawAny) -> i32;
    fn __tvm_ffi_hit(h: *mut c_void, args: *const RawAny, n: i32, out: *mut RawAny) -> i32;
    fn __tvm_ffi__metadata_add(h: *mut c_void, args: *const RawAny, n: i32, out: *mut RawAny) -> i32;
    fn __tvm_ffi__metadata_greet(h: *mut c_void, args: *const RawAny, n: i32, out: *mut RawAny) -> i32;
    fn __tvm_ffi__metadata_twice(h: *mut c_void, args: *const RawAny, n: i32, out: *mut RawAny) -> i32;
}

fn v<T: abi_core::IntoAny>(x: T) -> Any {
    Any::from_value(x).unwrap()
}

/// Calls a shim as a host does: borrowed slots, an owned result, the raised error.
fn call(shim: SafeCall, args: &[Any]) -> Result<Any> {
    let raw: Vec<RawAny> = args.iter().map(|a| *a.as_raw()).collect();
    // SAFETY: the slots borrow `args`, alive for the call.
    unsafe { call_raw(shim, raw.as_ptr(), raw.len() as i32) }
}

/// # Safety
/// `args` points to `n` slots valid for the call, or is whatever a hostile caller sends.
unsafe fn call_raw(shim: SafeCall, args: *const RawAny, n: i32) -> Result<Any> {
    let mut out = RawAny::NONE;
    // SAFETY: forwarded from the caller; `out` is a writable result slot.
    if unsafe { shim(core::ptr::null_mut(), args, n, &mut out) } == 0 {
        // SAFETY: success transfers the result.
        Ok(unsafe { Any::from_raw(out) })
    } else {
        Err(abi_core::host::take_raised().expect("a non-zero return has an error set"))
    }
}

#[test]
fn scalars_strings_and_containers_round_trip() {
    assert_eq!(call(__tvm_ffi_add, &[v(40i64), v(2i64)]).unwrap().to::<i64>().unwrap(), 42);
    assert_eq!(call(__tvm_ffi_greet, &[v("ab")]).unwrap().to::<String>().unwrap(), "hello, ab");
    let long = "a name past the seven-byte inline form";
    assert_eq!(call(__tvm_ffi_greet, &[v(long)]).unwrap().to::<String>().unwrap(), format!("hello, {long}"));
    let parts = v(vec!["x".to_owned(), "a longer element".to_owned()]);
    assert_eq!(
        call(__tvm_ffi_join, &[parts.clone(), Any::NONE]).unwrap().to::<String>().unwrap(),
        "x,a longer element"
    );
    assert_eq!(call(__tvm_ffi_join, &[parts, v("-")]).unwrap().to::<String>().unwrap(), "x-a longer element");
    assert_eq!(call(__tvm_ffi_norm, &[v(Point { x: 3.0, y: 4.0 })]).unwrap().to::<f64>().unwrap(), 5.0);
    assert_eq!(call(__tvm_ffi_norm_flat, &[v(3.0), v(4.0)]).unwrap().to::<f64>().unwrap(), 5.0);
    let m = v(HashMap::from([("a".to_owned(), 1i64), ("b".to_owned(), 2)]));
    assert_eq!(call(__tvm_ffi_map_total, &[m]).unwrap().to::<i64>().unwrap(), 3);
    assert_eq!(call(__tvm_ffi_byte_len, &[v(vec![0u8; 20])]).unwrap().to::<usize>().unwrap(), 20);
    let echoed = call(__tvm_ffi_echo, &[v(vec![1i64, 2])]).unwrap();
    assert_eq!(echoed.to::<Vec<i64>>().unwrap(), [1, 2]);
}

#[test]
fn tensors_are_read_written_and_returned() {
    let t = Tensor::from_vec(vec![1.0f64, 2.0, 3.5], &[3]).unwrap();
    assert_eq!(call(__tvm_ffi_total, &[Any::from(t.clone())]).unwrap().to::<f64>().unwrap(), 6.5);
    call(__tvm_ffi_double_in_place, &[Any::from(t.clone())]).unwrap();
    assert_eq!(t.view().as_slice::<f64>().unwrap(), &[2.0, 4.0, 7.0]);
    let out = Tensor::from_vec(vec![0.0f64; 3], &[3]).unwrap();
    call(__tvm_ffi_scaled_into, &[Any::from(t.clone()), v(0.5f64), Any::from(out.clone())]).unwrap();
    assert_eq!(out.view().as_slice::<f64>().unwrap(), &[1.0, 2.0, 3.5]);
    let e = call(__tvm_ffi_scaled_into, &[Any::from(t.clone()), v(0.5f64), Any::from(t.clone())]).unwrap_err();
    assert!(e.message().contains("argument `dst` (#2) shares memory with argument `src` (#0)"), "{}", e.message());
    let made = call(__tvm_ffi_iota, &[v(4i64)]).unwrap().to::<Tensor>().unwrap();
    assert_eq!(made.view().as_slice::<f32>().unwrap(), &[0.0, 1.0, 2.0, 3.0]);
    let empty = Tensor::from_vec(Vec::<f64>::new(), &[0, 3]).unwrap();
    assert_eq!(call(__tvm_ffi_total, &[Any::from(empty)]).unwrap().to::<f64>().unwrap(), 0.0);
    let e = call(__tvm_ffi_total, &[Any::from(made)]).unwrap_err();
    assert_eq!(e.kind(), "TypeError");
}

#[test]
fn callbacks_errors_and_panics_cross_as_errors() {
    let inc = TypedFunction::<fn(i64) -> i64>::new(|x| x + 1);
    assert_eq!(
        call(__tvm_ffi_twice, &[Any::from(inc.as_function().clone()), v(5i64)]).unwrap().to::<i64>().unwrap(),
        7
    );
    let refuses = Function::from_closure(|_| Err(Error::key_error("nope")));
    let e = call(__tvm_ffi_twice, &[Any::from(refuses), v(5i64)]).unwrap_err();
    assert_eq!((e.kind(), e.message()), ("KeyError", "nope"));
    let e = call(__tvm_ffi_checked, &[v(-7i64)]).unwrap_err();
    assert_eq!((e.kind(), e.message()), ("ValueError", "x must not be negative, got -7"));
    let e = call(__tvm_ffi_panics, &[]).unwrap_err();
    assert_eq!(e.kind(), "RuntimeError");
    assert!(e.message().contains("on purpose"), "{}", e.message());
}

#[test]
fn bad_calls_are_refused_before_any_slot_is_read() {
    let e = call(__tvm_ffi_add, &[v(1i64)]).unwrap_err();
    assert_eq!(e.message(), "add(a: int, b: int) -> int takes 2 arguments, got 1: missing `b` (#1)");
    let e = call(__tvm_ffi_add, &[v(1i64), v("x")]).unwrap_err();
    assert_eq!(e.message(), "add(a: int, b: int) -> int: argument `b` (#1) expected int, got str");
    // SAFETY: the shim must refuse these without reading a slot.
    let e = unsafe { call_raw(__tvm_ffi_add, core::ptr::null(), 2) }.unwrap_err();
    assert!(e.message().ends_with("args is a null pointer"), "{}", e.message());
    // SAFETY: as above.
    let e = unsafe { call_raw(__tvm_ffi_add, core::ptr::null(), -1) }.unwrap_err();
    assert_eq!(e.kind(), "TypeError");
}

#[test]
fn omitted_trailing_arguments_take_their_defaults() {
    let text = |r: Result<Any>| r.unwrap().to::<String>().unwrap();
    assert_eq!(text(call(__tvm_ffi_scaled, &[v(5i64)])), "10u");
    assert_eq!(text(call(__tvm_ffi_scaled, &[v(5i64), v(3i64)])), "15u");
    assert_eq!(text(call(__tvm_ffi_scaled, &[v(5i64), v(3i64), v("n")])), "15u (n)");
    assert_eq!(text(call(__tvm_ffi_scaled, &[v(5i64), v(3i64), Any::NONE, v("m")])), "15m");
    let sig = r#"scaled(x: int, k: int = 2, note: Optional[str] = None, unit: str = "u") -> str"#;
    let e = call(__tvm_ffi_scaled, &[]).unwrap_err();
    assert_eq!(
        (e.kind(), e.message()),
        ("TypeError", &*format!("{sig} takes 1 to 4 arguments, got 0: missing `x` (#0)"))
    );
    let e = call(__tvm_ffi_scaled, &[v(1i64), v(2i64), Any::NONE, v("u"), v(0i64)]).unwrap_err();
    assert_eq!(e.message(), format!("{sig} takes 1 to 4 arguments, got 5"));
    // A passed argument is converted and checked as ever.
    let e = call(__tvm_ffi_scaled, &[v(5i64), v("three")]).unwrap_err();
    assert_eq!(e.message(), format!("{sig}: argument `k` (#1) expected int, got str"));
    assert_eq!(text(call(__tvm_ffi_all_defaulted, &[])), "-1.5 true");
    // SAFETY: no slot is read when none is passed, so a null `args` is fine with n = 0.
    assert_eq!(text(unsafe { call_raw(__tvm_ffi_all_defaulted, core::ptr::null(), 0) }), "-1.5 true");
    // SAFETY: the shim must refuse a null `args` with a slot to read.
    let e = unsafe { call_raw(__tvm_ffi_scaled, core::ptr::null(), 1) }.unwrap_err();
    assert!(e.message().ends_with("args is a null pointer"), "{}", e.message());
}

#[test]
fn null_handles_are_refused_in_every_parameter_kind() {
    let shims: [(SafeCall, usize); 10] = [
        (__tvm_ffi_greet, 1),
        (__tvm_ffi_join, 2),
        (__tvm_ffi_norm, 1),
        (__tvm_ffi_total, 1),
        (__tvm_ffi_map_total, 1),
        (__tvm_ffi_byte_len, 1),
        (__tvm_ffi_twice, 2),
        (__tvm_ffi_echo, 1),
        (__tvm_ffi_hit, 1),
        (__tvm_ffi_double_in_place, 1),
    ];
    let counter = Counter::type_index().unwrap();
    let indices = [
        ti::STR,
        ti::BYTES,
        ti::FUNCTION,
        ti::TENSOR,
        ti::ARRAY,
        ti::LIST,
        ti::MAP,
        ti::DL_TENSOR_PTR,
        ti::RAW_STR,
        ti::BYTE_ARRAY_PTR,
        counter,
    ];
    for (shim, n) in shims {
        for index in indices {
            let args = vec![RawAny::from_ptr(index, core::ptr::null_mut()); n];
            // SAFETY: every slot is a null handle, which the shim must refuse unread.
            let e = unsafe { call_raw(shim, args.as_ptr(), n as i32) }.unwrap_err();
            assert!(e.message().contains("(#0)"), "{index}: {}", e.message());
        }
    }
}

#[test]
fn objects_fields_and_null_objects_through_the_type_table() {
    let c = call(__tvm_ffi_make_counter, &[v("c")]).unwrap();
    assert_eq!(call(__tvm_ffi_hit, std::slice::from_ref(&c)).unwrap().to::<i64>().unwrap(), 1);
    let api = abi_core::host::type_api();
    // SAFETY: a registered index.
    let info = unsafe { &*(api.get_type_info)(Counter::type_index().unwrap()) };
    // SAFETY: `num_fields` records.
    let fields: &[FieldInfo] = unsafe { core::slice::from_raw_parts(info.fields, info.num_fields as usize) };
    assert_eq!(fields.len(), 2);
    let obj = c.view().object().unwrap().cast::<u8>();
    let (name, hits) = (&fields[0], &fields[1]);
    let get = |f: &FieldInfo, base: *mut u8| {
        let mut out = RawAny::NONE;
        // SAFETY: a field address computed as a host does, or a null handle plus the offset.
        let rc = unsafe { (f.getter.unwrap())(base.wrapping_add(f.offset as usize).cast(), &mut out) };
        // SAFETY: on success the getter wrote an owned value.
        if rc == 0 {
            Ok(unsafe { Any::from_raw(out) })
        } else {
            Err(abi_core::host::take_raised().unwrap())
        }
    };
    assert_eq!(get(name, obj).unwrap().to::<String>().unwrap(), "c");
    assert_eq!(get(hits, obj).unwrap().to::<i64>().unwrap(), 1);
    // SAFETY: a writable field's setter.
    let set: FieldSetter = unsafe { core::mem::transmute::<*mut c_void, FieldSetter>(hits.setter) };
    // SAFETY: a field of a live object; the value is borrowed for the call.
    assert_eq!(unsafe { set(obj.wrapping_add(hits.offset as usize).cast(), v(9i64).as_raw()) }, 0);
    assert_eq!(get(hits, obj).unwrap().to::<i64>().unwrap(), 9);
    let e = get(name, core::ptr::null_mut()).unwrap_err();
    assert_eq!(e.kind(), "TypeError");
    assert!(e.message().starts_with("cannot read field `name` of `miri.Counter`"), "{}", e.message());
    // SAFETY: the setter must refuse a null handle plus the offset unread.
    assert_ne!(
        unsafe { set(core::ptr::null_mut::<u8>().wrapping_add(hits.offset as usize).cast(), v(1i64).as_raw()) },
        0
    );
    assert!(abi_core::host::take_raised().unwrap().message().starts_with("cannot write field `hits`"));
}

/// The exports above, imported back through the global registry: a wrapper bound to the
/// shims' function pointers, its signature checked against their published metadata.
#[abi_core::import(Imported)]
extern "C" {
    #[abi(name = "miri.add")]
    fn add(a: i64, b: i64) -> i64;
    #[abi(name = "miri.greet")]
    fn greet(name: &str) -> String;
    #[abi(name = "miri.twice")]
    fn twice(f: TypedFunction<fn(i64) -> i64>, x: i64) -> i64;
}

#[abi_core::import(Misdeclared)]
extern "C" {
    #[abi(name = "miri.add")]
    fn add(a: &str, b: i64) -> i64;
}

fn register(name: &str, shim: SafeCall, metadata: SafeCall) {
    let meta = call(metadata, &[]).unwrap().to::<String>().unwrap();
    abi_core::host::register_global_with_info(name, Function::from_safe_call(shim), "", &meta, true).unwrap();
}

#[test]
fn typed_imports_bind_and_call_through_the_shims() {
    register("miri.add", __tvm_ffi_add, __tvm_ffi__metadata_add);
    register("miri.greet", __tvm_ffi_greet, __tvm_ffi__metadata_greet);
    register("miri.twice", __tvm_ffi_twice, __tvm_ffi__metadata_twice);
    let imported = Imported::bind_globals().unwrap();
    assert_eq!(imported.add(2, 3).unwrap(), 5);
    assert_eq!(imported.greet("a longer name than seven").unwrap(), "hello, a longer name than seven");
    assert_eq!(imported.twice(TypedFunction::<fn(i64) -> i64>::new(|x| x * 3), 2).unwrap(), 18);
    let e = Misdeclared::bind_globals().unwrap_err();
    assert!(e.message().contains("argument `a` (#0) is declared str but the callee takes int"), "{}", e.message());
}

#[test]
fn weak_references_upgrade_until_the_last_strong_one_goes() {
    use abi_core::{Obj, WeakObj};
    let strong = Obj::new(Counter { name: "w".to_owned(), hits: AtomicI64::new(0) });
    let weak: WeakObj<Counter> = Obj::downgrade(&strong);
    let upgraded: Vec<i64> = std::thread::scope(|s| {
        let handles: Vec<_> =
            (0..2).map(|_| s.spawn(|| weak.upgrade().map(|c| c.hits.fetch_add(1, Ordering::SeqCst) + 1))).collect();
        handles.into_iter().map(|h| h.join().unwrap().unwrap()).collect()
    });
    assert_eq!(upgraded.iter().sum::<i64>(), 3);
    drop(strong);
    assert!(weak.upgrade().is_none());
    assert_eq!(weak.strong_count(), 0);
}
