//! Function objects: closures called through `call_packed` and through the raw
//! `safe_call` in the cell (as hosts call them), errors and panics crossing the boundary
//! with the error set, hostile argument pointers, captured-data lifetime, and the global
//! registry of the embedded runtime (no tvm-ffi is loaded in a cargo test process).

use core::ffi::c_void;
use core::ptr::NonNull;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use abi_core::ffi::type_index as ti;
use abi_core::ffi::ObjectHeader;
use abi_core::host;
use abi_core::ObjectHandle;
use abi_core::{Any, AnyView, Error, FromArg, Function, FunctionRef, RawAny, SafeCall, Str};

/// Calls `f` exactly as a host does: `safe_call` read from the cell at +24, the object as
/// handle, `result` initialised to None. Returns the code and the (owned) result.
fn raw_call(f: &Function, args: *const RawAny, n: i32) -> (i32, Any) {
    let obj = f.as_object().as_ptr();
    let mut result = RawAny::NONE;
    // SAFETY: a Function object's cell starts with safe_call; the callee checks args/n.
    let rc = unsafe {
        let safe_call = obj.cast::<u8>().add(24).cast::<SafeCall>().read();
        safe_call(obj.cast(), args, n, &mut result)
    };
    // SAFETY: the callee transfers ownership of whatever it wrote (None on failure).
    (rc, unsafe { Any::from_raw(result) })
}

fn adder() -> Function {
    Function::from_closure(|args| {
        let mut sum = 0i64;
        for a in args {
            sum += a.to::<i64>()?;
        }
        Any::from_value(sum)
    })
}

fn ints(values: &[i64]) -> Vec<Any> {
    values.iter().map(|&v| Any::from_value(v).unwrap()).collect()
}

fn views(args: &[Any]) -> Vec<AnyView<'_>> {
    args.iter().map(Any::view).collect()
}

#[test]
fn call_packed_and_raw_safe_call_agree() {
    let f = adder();
    let args = ints(&[1, 2, 39]);
    assert_eq!(f.call_packed(&views(&args)).unwrap().to::<i64>().unwrap(), 42);
    let raws: Vec<RawAny> = args.iter().map(|a| *a.as_raw()).collect();
    let (rc, result) = raw_call(&f, raws.as_ptr(), 3);
    assert_eq!(rc, 0);
    assert_eq!((result.type_index(), result.as_raw().i64()), (ti::INT, 42));
    assert!(host::take_raised().is_none(), "success raises nothing");
    assert_eq!(f.call_packed(&[]).unwrap().to::<i64>().unwrap(), 0);
    // n == 0 with a null args pointer is a valid empty call.
    let (rc, result) = raw_call(&f, core::ptr::null(), 0);
    assert_eq!((rc, result.as_raw().i64()), (0, 0));
}

#[test]
fn closure_error_is_raised_unchanged() {
    let made = Arc::new(AtomicUsize::new(0));
    let seen = made.clone();
    let f = Function::from_closure(move |_| {
        let e = Error::key_error("missing key `k`");
        seen.store(e.as_object().as_ptr() as usize, Ordering::SeqCst);
        Err(e)
    });
    let (rc, result) = raw_call(&f, core::ptr::null(), 0);
    assert_ne!(rc, 0);
    assert!(result.is_none(), "a failed call leaves the result None");
    let e = host::take_raised().expect("non-zero must come with an error set");
    assert_eq!((e.kind(), e.message()), ("KeyError", "missing key `k`"));
    assert_eq!(e.as_object().as_ptr() as usize, made.load(Ordering::SeqCst), "the same object");
    assert_eq!(e.as_object().strong_count(), 1);

    let e = f.call_packed(&[]).unwrap_err();
    assert_eq!(e.to_string(), "KeyError: missing key `k`");
    assert!(host::take_raised().is_none(), "call_packed consumed the raised error");
}

#[test]
fn argument_errors_surface_from_closures() {
    let f = adder();
    let args = [Any::from_value(1i64).unwrap(), Any::from_value("two").unwrap()];
    let e = f.call_packed(&views(&args)).unwrap_err();
    assert_eq!((e.kind(), e.message()), ("TypeError", "expected int, got str"));
}

#[test]
fn panics_become_runtime_errors() {
    let f = Function::from_closure(|args| {
        let n = args.len();
        panic!("boom with {n} args");
    });
    let args = ints(&[1, 2]);
    let raws: Vec<RawAny> = args.iter().map(|a| *a.as_raw()).collect();
    let (rc, result) = raw_call(&f, raws.as_ptr(), 2);
    assert_ne!(rc, 0);
    assert!(result.is_none());
    let e = host::take_raised().expect("a panic must raise an error");
    assert_eq!(e.kind(), "RuntimeError");
    assert!(e.message().contains("boom with 2 args"), "{}", e.message());
    // The process survives and the same function can be called again.
    let e = f.call_packed(&[]).unwrap_err();
    assert!(e.message().contains("boom with 0 args"), "{}", e.message());
    assert_eq!(adder().call_packed(&views(&ints(&[5]))).unwrap().to::<i64>().unwrap(), 5);

    let g = Function::from_closure(|_| std::panic::panic_any(17u32));
    let e = g.call_packed(&[]).unwrap_err();
    assert_eq!(e.kind(), "RuntimeError");
    assert!(e.message().contains("non-string payload"), "{}", e.message());
}

#[test]
fn hostile_argument_pointers() {
    let f = adder();
    let (rc, _) = raw_call(&f, core::ptr::null(), 2);
    assert_ne!(rc, 0);
    let e = host::take_raised().unwrap();
    assert_eq!((e.kind(), e.message()), ("ValueError", "args is a null pointer with 2 arguments"));

    let one = ints(&[1]);
    let (rc, _) = raw_call(&f, one[0].as_raw(), -1);
    assert_ne!(rc, 0);
    let e = host::take_raised().unwrap();
    assert_eq!((e.kind(), e.message()), ("TypeError", "negative argument count -1"));

    let (rc, _) = raw_call(&f, core::ptr::null(), i32::MIN);
    assert_ne!(rc, 0);
    assert!(host::take_raised().is_some());

    let obj = f.as_object().as_ptr();
    // SAFETY: a null result pointer must be rejected before anything is written.
    let rc = unsafe {
        let safe_call = obj.cast::<u8>().add(24).cast::<SafeCall>().read();
        safe_call(obj.cast(), core::ptr::null(), 0, core::ptr::null_mut())
    };
    assert_ne!(rc, 0);
    let e = host::take_raised().unwrap();
    assert_eq!((e.kind(), e.message()), ("ValueError", "result is a null pointer"));
}

#[test]
fn results_transfer_and_arguments_stay_borrowed() {
    let kept = Str::new("kept by the closure");
    let inner = kept.clone();
    let f = Function::from_closure(move |args| {
        assert_eq!(args.len(), 1);
        Any::from_value(inner.clone())
    });
    let arg = Any::from_value(Str::new("an argument object")).unwrap();
    let arg_count = || arg.to::<Str>().unwrap().as_object().strong_count() - 1;
    assert_eq!(arg_count(), 1);
    let result = f.call_packed(&[arg.view()]).unwrap();
    assert_eq!(arg_count(), 1, "arguments are borrowed, never released by the callee");
    assert_eq!(kept.as_object().strong_count(), 3, "kept + closure's copy + result");
    assert_eq!(result.as_raw().ptr().cast::<ObjectHeader>(), kept.as_object().as_ptr());
    drop(result);
    assert_eq!(kept.as_object().strong_count(), 2);
}

#[test]
fn captured_data_is_dropped_exactly_once_with_the_last_reference() {
    let data = Arc::new(Mutex::new(Vec::<i64>::new()));
    let captured = data.clone();
    let f = Function::from_closure(move |args| {
        captured.lock().unwrap().push(args.len() as i64);
        Ok(Any::NONE)
    });
    assert_eq!(Arc::strong_count(&data), 2);
    let g = f.clone();
    let as_any = Any::from_value(f.clone()).unwrap();
    assert_eq!(Arc::strong_count(&data), 2, "handles share one closure");
    drop(f);
    g.call_packed(&[AnyView::NONE]).unwrap();
    drop(g);
    assert_eq!(Arc::strong_count(&data), 2, "the Any still holds the function");
    let back = as_any.to::<Function>().unwrap();
    drop(as_any);
    back.call_packed(&[]).unwrap();
    assert_eq!(Arc::strong_count(&data), 2);
    drop(back);
    assert_eq!(Arc::strong_count(&data), 1, "the closure was dropped with the last reference");
    assert_eq!(*data.lock().unwrap(), vec![1, 0]);
}

#[test]
fn function_refs_borrow() {
    let f = adder();
    let a = Any::from_value(f.clone()).unwrap();
    let v = a.view();
    let r = <FunctionRef as FromArg>::from_arg(&v).unwrap();
    assert_eq!(f.as_object().strong_count(), 2, "a FunctionRef adds no reference");
    assert_eq!(r.call_packed(&views(&ints(&[20, 22]))).unwrap().to::<i64>().unwrap(), 42);
    let raw_result = r.call_raw(&[*Any::from_value(3i64).unwrap().as_raw()]).unwrap();
    assert_eq!(raw_result.to::<i64>().unwrap(), 3);
    let owned = r.to_function();
    assert_eq!(f.as_object().strong_count(), 3);
    assert_eq!(owned.as_object().as_ptr(), r.as_ptr());
    let s = Any::from_value("not a function").unwrap();
    let sv = s.view();
    let e = <FunctionRef as FromArg>::from_arg(&sv).unwrap_err();
    assert_eq!(e.to_string(), "expected Function, got str");
}

unsafe extern "C" fn count_args(_handle: *mut c_void, _args: *const RawAny, n: i32, result: *mut RawAny) -> i32 {
    // SAFETY: the caller passes a writable result slot.
    unsafe { result.write(RawAny::from_i64(ti::INT, n as i64 * 10)) };
    0
}

#[test]
fn plain_safe_call_functions() {
    let f = Function::from_safe_call(count_args);
    assert_eq!(f.as_object().type_index(), ti::FUNCTION);
    assert_eq!(f.call_packed(&[AnyView::NONE; 4]).unwrap().to::<i64>().unwrap(), 40);
    let (rc, r) = raw_call(&f, core::ptr::null(), 0);
    assert_eq!((rc, r.as_raw().i64()), (0, 0));
}

#[test]
fn errors_propagate_through_nested_calls() {
    let inner = Function::from_closure(|_| Err(Error::index_error("inner failed")));
    let inner_ptr = Arc::new(AtomicUsize::new(0));
    let seen = inner_ptr.clone();
    let outer = Function::from_closure(move |_| {
        let e = inner.call_packed(&[]).unwrap_err();
        seen.store(e.as_object().as_ptr() as usize, Ordering::SeqCst);
        Err(e)
    });
    let e = outer.call_packed(&[]).unwrap_err();
    assert_eq!(e.to_string(), "IndexError: inner failed");
    assert_eq!(e.as_object().as_ptr() as usize, inner_ptr.load(Ordering::SeqCst));
}

#[test]
fn functions_are_callable_from_other_threads() {
    let f = adder();
    // Miri checks every access of every call for races: a tenth of the calls there
    // (scripts/test-miri.sh).
    let calls: i64 = if cfg!(miri) { 100 } else { 1000 };
    let total: i64 = std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|t| {
                let f = f.clone();
                s.spawn(move || {
                    let mut acc = 0;
                    for i in 0..calls {
                        acc += f.call_packed(&views(&ints(&[t, i]))).unwrap().to::<i64>().unwrap();
                    }
                    acc
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).sum()
    });
    assert_eq!(total, (0..4).map(|t| calls * t).sum::<i64>() + 4 * (0..calls).sum::<i64>());
    assert_eq!(f.as_object().strong_count(), 1);
}

#[test]
fn global_registry() {
    assert!(!host::has_tvm_ffi_runtime(), "cargo test processes load no tvm-ffi");
    let name = "abi_core_tests.functions.global_registry";
    assert!(Function::get_global(name).is_none());
    let f = adder();
    f.register_global(name, false).unwrap();
    assert_eq!(f.as_object().strong_count(), 2, "the registry holds a reference");
    let found = Function::get_global(name).unwrap();
    assert_eq!(found.as_object().as_ptr(), f.as_object().as_ptr());
    assert_eq!(found.call_packed(&views(&ints(&[7, 8]))).unwrap().to::<i64>().unwrap(), 15);
    assert!(host::embedded_global_names().iter().any(|n| n == name));

    let other = Function::from_closure(|_| Any::from_value("replacement"));
    let e = other.register_global(name, false).unwrap_err();
    assert_eq!(e.kind(), "KeyError");
    assert!(e.message().contains(name) && e.message().contains("already registered"), "{}", e.message());
    assert_eq!(
        Function::get_global(name).unwrap().as_object().as_ptr(),
        f.as_object().as_ptr(),
        "a rejected registration changes nothing"
    );
    assert_eq!(other.as_object().strong_count(), 1, "nor keeps the rejected function");

    other.register_global(name, true).unwrap();
    let now = Function::get_global(name).unwrap();
    assert_eq!(now.call_packed(&[]).unwrap().to::<String>().unwrap(), "replacement");
    drop((found, now));
    assert_eq!(f.as_object().strong_count(), 1, "the replaced function was released");
}

#[test]
fn function_handles_from_objects() {
    let f = adder();
    let obj = f.as_object().clone();
    let back = Function::from_object(obj).unwrap();
    assert_eq!(back.as_object().as_ptr(), f.as_object().as_ptr());
    let not_fn = Str::new("s").as_object().clone();
    assert!(Function::from_object(not_fn).is_err());
    assert_eq!(format!("{:?}", f.view()), format!("FunctionRef({:p})", NonNull::new(f.as_object().as_ptr()).unwrap()));
}
