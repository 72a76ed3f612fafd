//! The C boundary: every packed call made or served here goes through an export's shim
//! (`convert::export_call::export`, with [`finish`]) or [`ffi_boundary`], which catch
//! panics, write results, and raise errors so that a non-zero return always has an error
//! set. Argument errors are raised lazily: the message is
//! formatted when somebody reads it, never on the call path.

use core::any::Any as StdAny;
use core::ffi::c_void;
use core::mem::MaybeUninit;
use core::ptr::{self, NonNull};
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::ffi::type_index as ti;
use crate::ffi::{cell_ptr, DLTensor, RawAny};
use crate::reflect::RETRY_SLOTS;
use crate::runtime::calls::error_slot::{set_raised, set_raised_pending};
use crate::runtime::calls::export_entry::Export;
use crate::runtime::calls::pending::PendingError;
use crate::value::any::{Any, AnyView};
use crate::value::conv_error::{ConvError, ReturnError};
use crate::value::error::{kind, Error, Result};

/// Why an exported call failed.
#[derive(Debug)]
pub enum CallError {
    /// Argument slot `slot` did not convert.
    Arg {
        /// The slot index (after expansion).
        slot: u32,
        /// The failure.
        err: ConvError,
    },
    /// Slots `slot` and `other` hold tensors that share memory, and at least one of them
    /// may write it (`reflect::Access`).
    Overlap {
        /// The slot of the parameter that may write, or of the shared slice.
        slot: u32,
        /// The slot it overlaps.
        other: u32,
    },
    /// The function failed or its result did not convert.
    Return(ReturnError),
}

/// The message of a panic payload.
pub fn panic_message(payload: &(dyn StdAny + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic with a non-string payload".to_owned()
    }
}

/// The payload of the unwind `Obj::new` starts when the process refused its type. It
/// skips the panic hook (`std::panic::resume_unwind`): an export boundary takes the error
/// out and raises it unchanged (the library said once, when it loaded, that the type was
/// refused). Anywhere else the unwind ends with the payload dropped (a host's `main`, which
/// then exits with status 101, a joined thread, a `catch_unwind`), and dropping it prints
/// what happened, so that no process ends without a word.
pub struct RefusedType(Option<Error>);

impl RefusedType {
    /// Unwinds with `error`, the refusal of the object's type.
    #[cold]
    #[inline(never)]
    pub fn unwind(error: Error) -> ! {
        std::panic::resume_unwind(Box::new(RefusedType(Some(error))))
    }

    /// The error, taken out (nothing is printed then).
    pub fn take(&mut self) -> Option<Error> {
        self.0.take()
    }
}

impl Drop for RefusedType {
    fn drop(&mut self) {
        if let Some(e) = self.0.take() {
            eprintln!("abi: Obj::new panicked outside an exported call: {e} (Obj::try_new returns this error instead)");
        }
    }
}

#[cold]
#[inline(never)]
fn raise_panic(what: &str, payload: Box<dyn StdAny + Send>) -> i32 {
    // An unwind that carries an `Error` (`Obj::new` of a type the process refused) raises
    // that error as it is.
    let payload = match payload.downcast::<RefusedType>() {
        Ok(mut refused) => {
            if let Some(error) = refused.take() {
                set_raised(error);
            }
            return -1;
        }
        Err(other) => other,
    };
    let msg = panic_message(&*payload);
    // Dropping a payload can itself panic; never let that unwind into C.
    let _ = catch_unwind(AssertUnwindSafe(move || drop(payload)));
    set_raised(Error::new(kind::RUNTIME_ERROR, format!("{what} panicked: {msg}")));
    -1
}

// An export's panic: its name is looked up here, off the shim's path.
#[cold]
#[inline(never)]
fn raise_export_panic(export: &'static Export, payload: Box<dyn StdAny + Send>) -> i32 {
    raise_panic(export.name(), payload)
}

#[cold]
#[inline(never)]
fn raise_call_error(export: &'static Export, e: CallError, args: &[AnyView<'_>]) -> i32 {
    match e {
        CallError::Arg { slot, err } => set_raised_pending(PendingError::Arg { export, slot, err }),
        CallError::Overlap { slot, other } => set_raised_pending(PendingError::Overlap { export, slot, other }),
        CallError::Return(ReturnError::Conv(err)) => set_raised_pending(PendingError::Return { export, err }),
        CallError::Return(ReturnError::User(err)) => match tensor_slot(&err, args) {
            Some(slot) => set_raised_pending(PendingError::InArg { export, slot, err }),
            None => set_raised(err),
        },
    }
    -1
}

/// The argument slot holding the tensor a check of abi's own refused in the body
/// (`Error::about_tensor`), if the error is one and the tensor is an argument: a Tensor
/// object (its `DLTensor` in its cell) or a bare `DLTensor*`, as `TensorView` reads them.
fn tensor_slot(err: &Error, args: &[AnyView<'_>]) -> Option<u32> {
    let dl = err.take_subject()?;
    let holds = |raw: &RawAny| match raw.type_index {
        ti::TENSOR => cell_ptr::<DLTensor>(raw.ptr().cast()) as usize == dl,
        ti::DL_TENSOR_PTR => raw.ptr() as usize == dl,
        _ => false,
    };
    args.iter().position(|a| holds(a.raw())).map(|slot| slot as u32)
}

#[cold]
#[inline(never)]
fn raise_bad_call(export: &'static Export, expected: usize, args: *const RawAny, n: i32, result: *mut RawAny) -> i32 {
    let in_range = n >= 0 && n as usize <= expected && n as usize >= export.required_slots as usize;
    let lazy = if !in_range {
        PendingError::Arity { export, got: n }
    } else if args.is_null() {
        PendingError::NullPointer { export, what: "args" }
    } else {
        debug_assert!(result.is_null());
        PendingError::NullPointer { export, what: "result" }
    };
    set_raised_pending(lazy);
    -1
}

/// The handle [`retry_exact`] calls a shim with (shims ignore their handle): a call with it
/// that falls back again, a fast path refusing what `exact_slot` made for it, is raised
/// rather than retried forever.
static RETRY_HANDLE: u8 = 0;

#[cold]
#[inline(never)]
fn raise_refused_retry(export: &'static Export) -> i32 {
    set_raised(Error::new(
        kind::RUNTIME_ERROR,
        format!("{}: the fast path refused its coerced arguments", export.name()),
    ));
    -1
}

#[cold]
#[inline(never)]
fn raise_arg_error(export: &'static Export, slot: usize, err: ConvError) -> i32 {
    set_raised_pending(PendingError::Arg { export, slot: slot as u32, err });
    -1
}

/// The fallback of every export that `FnDesc::retries_exact`: shared, not generic, never on
/// a call whose arguments have their exact types. Checks the count and pointers, converts
/// every argument as the full pass would (raising the error that names the first one that
/// fails) to the exact-type slot its fast path takes, and calls the export's shim again with
/// those, which then takes its fast path (conversions, call, panic guard, result) as for any
/// exact-typed call.
///
/// # Safety
/// The packed calling convention: `args` points to `n` valid slots when `n` is the slot
/// count and it is non-null; `result` is null or writable and holds None. `export` is the
/// entry of the shim that received `handle`, whose description `retries_exact`.
#[cold]
#[inline(never)]
// The shim's parameters first, in its order, so its fast path never moves them; `extern
// "C"` cannot unwind (panics are caught inside), so the shim calling it needs no landing pad.
pub unsafe extern "C" fn retry_exact(
    handle: *mut c_void,
    args: *const RawAny,
    n: i32,
    result: *mut RawAny,
    export: &'static Export,
) -> i32 {
    let params = export.params();
    let count = params.len();
    if n < 0 || n as usize != count || count > RETRY_SLOTS || args.is_null() || result.is_null() {
        return raise_bad_call(export, count, args, n, result);
    }
    let retry_handle = ptr::addr_of!(RETRY_HANDLE).cast_mut().cast::<c_void>();
    if handle == retry_handle {
        return raise_refused_retry(export);
    }
    let mut slots = [MaybeUninit::<RawAny>::uninit(); RETRY_SLOTS];
    let coerced = catch_unwind(AssertUnwindSafe(|| {
        for (slot, param) in params.iter().enumerate() {
            // SAFETY: `count` slots at a non-null `args`, guaranteed by the caller.
            let v = unsafe { &*args.add(slot) };
            let Some(exact) = param.exact else {
                return raise_arg_error(export, slot, ConvError::mismatch(param.ty, v.type_index));
            };
            // SAFETY: a valid slot of this call, which outlives `slots`.
            match unsafe { exact(v) } {
                Ok(raw) => slots[slot] = MaybeUninit::new(raw),
                Err(err) => return raise_arg_error(export, slot, err),
            }
        }
        0
    }));
    match coerced {
        Ok(0) => {}
        Ok(code) => return code,
        Err(payload) => return raise_export_panic(export, payload),
    }
    // SAFETY: the export's own shim (its slot count is `count`), called with the `count`
    // slots written just above (plain data, or views borrowing the caller's arguments,
    // which outlive the call) and the caller's non-null `result`.
    unsafe { (export.safe_call)(retry_handle, slots.as_ptr().cast::<RawAny>(), n, result) }
}

/// The slots of a call whose count is the export's `slots` and whose pointers are
/// non-null, for its fast pass; `None` sends the call to the fallback, which reports what
/// is wrong.
///
/// # Safety
/// `args` points to `n` valid slots when `n` is the slot count and `args` is non-null.
#[inline(always)]
pub unsafe fn fast_slots<'a>(
    slots: usize,
    args: *const RawAny,
    n: i32,
    result: *mut RawAny,
) -> Option<&'a [AnyView<'a>]> {
    if n as usize != slots || n < 0 || args.is_null() || result.is_null() {
        return None;
    }
    // SAFETY: `slots` slots at a non-null `args`, guaranteed by the caller; AnyView is
    // transparent.
    Some(unsafe { core::slice::from_raw_parts(args.cast::<AnyView<'a>>(), slots) })
}

/// The slots of a call for an export's full pass: checks the count (`slots`, or down to
/// `export.required_slots` when trailing parameters have defaults) and pointers, and raises
/// what is wrong (`Err`, the code to return: the raising call's own, so the shim returns
/// it straight away).
///
/// # Safety
/// `args` points to `n` valid slots when `n` is in range and `args` is non-null.
#[inline(always)]
pub unsafe fn full_slots<'a>(
    export: &'static Export,
    slots: usize,
    args: *const RawAny,
    n: i32,
    result: *mut RawAny,
) -> core::result::Result<&'a [AnyView<'a>], i32> {
    let count_ok =
        n as usize == slots || (n >= 0 && (n as usize) < slots && n as usize >= export.required_slots as usize);
    if !count_ok || (n > 0 && args.is_null()) || result.is_null() {
        return Err(raise_bad_call(export, slots, args, n, result));
    }
    let n = n as usize;
    let args = if n == 0 { NonNull::dangling().as_ptr() } else { args.cast_mut() };
    // SAFETY: `n` slots checked above (a dangling pointer for zero); AnyView is transparent.
    Ok(unsafe { core::slice::from_raw_parts(args.cast::<AnyView<'a>>(), n) })
}

/// Settles an export's call once its body ran behind the panic guard: writes the value,
/// or raises the error or the panic (a non-zero return always has an error set). `args`
/// are the call's slots, read only on the error path (to name the argument a tensor check
/// in the body refused).
///
/// # Safety
/// `result` is non-null, writable, and holds None.
#[inline(always)]
pub unsafe fn finish(
    export: &'static Export,
    args: &[AnyView<'_>],
    result: *mut RawAny,
    outcome: std::thread::Result<core::result::Result<Any, CallError>>,
) -> i32 {
    match outcome {
        Ok(Ok(v)) => {
            // SAFETY: `result` is writable; it held no owned value (None on entry).
            unsafe { result.write(v.into_raw()) };
            0
        }
        Ok(Err(e)) => raise_call_error(export, e, args),
        Err(payload) => raise_export_panic(export, payload),
    }
}

/// Views `n` argument slots.
///
/// # Safety
/// When `n > 0`, `args` points to `n` valid slots alive for `'a`.
#[inline]
pub unsafe fn args_slice<'a>(args: *const RawAny, n: i32) -> Result<&'a [AnyView<'a>]> {
    if n < 0 {
        return Err(Error::type_error(format!("negative argument count {n}")));
    }
    if n == 0 {
        return Ok(&[]);
    }
    if args.is_null() {
        return Err(Error::value_error(format!("args is a null pointer with {n} arguments")));
    }
    // SAFETY: guaranteed by the caller.
    Ok(unsafe { core::slice::from_raw_parts(args.cast::<AnyView<'a>>(), n as usize) })
}

/// Runs `f` behind the boundary for a hand-made packed function (closures, metadata).
///
/// # Safety
/// `result` is null or writable.
#[inline(always)]
pub unsafe fn ffi_boundary(result: *mut RawAny, f: impl FnOnce() -> Result<Any>) -> i32 {
    if result.is_null() {
        set_raised(Error::value_error("result is a null pointer"));
        return -1;
    }
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(v)) => {
            // SAFETY: checked non-null; it held no owned value.
            unsafe { result.write(v.into_raw()) };
            0
        }
        Ok(Err(e)) => {
            set_raised(e);
            -1
        }
        Err(payload) => raise_panic("function", payload),
    }
}
