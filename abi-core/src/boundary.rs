//! The C boundary: every packed call made or served here goes through [`run_export`] or
//! [`ffi_boundary`], which catch panics, write results, and raise errors so that a non-zero
//! return always has an error set. Argument errors are raised lazily: the message is
//! formatted when somebody reads it, never on the call path.

use core::any::Any as StdAny;
use core::ptr::NonNull;
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::any::{Any, AnyView, RawAny};
use crate::convert::{ConvError, ReturnError};
use crate::error::{kind, Error, Result};
use crate::host;
use crate::reflect::{fn_signature_text, FnDesc, TypeDesc, Writer};

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
    /// The function failed or its result did not convert.
    Return(ReturnError),
}

/// An error raised but not yet formatted.
#[derive(Debug)]
pub(crate) enum LazyError {
    Arity { desc: &'static FnDesc, got: i32 },
    NullPointer { desc: &'static FnDesc, what: &'static str },
    Arg { desc: &'static FnDesc, slot: u32, err: ConvError },
    Return { desc: &'static FnDesc, err: ConvError },
}

/// Renders `desc`'s signature (`add(a: int, b: int) -> int`); only error paths call it.
pub fn signature_text(desc: &FnDesc) -> String {
    let mut count = Writer::new(&mut []);
    fn_signature_text(&mut count, desc);
    let mut buf = vec![0u8; count.len()];
    fn_signature_text(&mut Writer::new(&mut buf), desc);
    String::from_utf8(buf).unwrap_or_default()
}

/// The dotted name of argument slot `slot` (`p.x` for expanded structs).
pub fn slot_name(desc: &FnDesc, slot: u32) -> String {
    fn walk(prefix: &str, ty: &TypeDesc, slot: &mut u32, out: &mut Option<String>) {
        match ty {
            TypeDesc::Struct(s) => {
                for f in s.fields {
                    walk(&format!("{prefix}.{}", f.name), f.ty, slot, out);
                    if out.is_some() {
                        return;
                    }
                }
            }
            _ => {
                if *slot == 0 {
                    *out = Some(prefix.to_owned());
                } else {
                    *slot -= 1;
                }
            }
        }
    }
    let mut remaining = slot;
    let mut out = None;
    for p in desc.params {
        if p.expand {
            walk(p.name, p.ty, &mut remaining, &mut out);
        } else if remaining == 0 {
            out = Some(p.name.to_owned());
        } else {
            remaining -= 1;
        }
        if let Some(name) = out {
            return name;
        }
    }
    format!("#{slot}")
}

impl LazyError {
    pub(crate) fn into_error(self) -> Error {
        match self {
            LazyError::Arity { desc, got } => {
                let n = desc.slot_count();
                let plural = if n == 1 { "argument" } else { "arguments" };
                Error::type_error(format!("{} takes {n} {plural}, got {got}", signature_text(desc)))
            }
            LazyError::NullPointer { desc, what } => {
                Error::value_error(format!("{}: {what} is a null pointer", signature_text(desc)))
            }
            LazyError::Arg { desc, slot, err } => Error::new(
                err.kind(),
                format!("{}: argument `{}` (#{slot}) {err}", signature_text(desc), slot_name(desc, slot)),
            ),
            LazyError::Return { desc, err } => {
                Error::new(err.kind(), format!("{}: the result cannot be returned: {err}", signature_text(desc)))
            }
        }
    }
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

#[cold]
#[inline(never)]
fn raise_panic(what: &str, payload: Box<dyn StdAny + Send>) -> i32 {
    let msg = panic_message(&*payload);
    // Dropping a payload can itself panic; never let that unwind into C.
    let _ = catch_unwind(AssertUnwindSafe(move || drop(payload)));
    host::set_raised(Error::new(kind::RUNTIME_ERROR, format!("{what} panicked: {msg}")));
    -1
}

#[cold]
#[inline(never)]
fn raise_call_error(desc: &'static FnDesc, e: CallError) -> i32 {
    match e {
        CallError::Arg { slot, err } => host::set_raised_lazy(LazyError::Arg { desc, slot, err }),
        CallError::Return(ReturnError::Conv(err)) => host::set_raised_lazy(LazyError::Return { desc, err }),
        CallError::Return(ReturnError::User(err)) => host::set_raised(err),
    }
    -1
}

#[cold]
#[inline(never)]
fn raise_bad_call(desc: &'static FnDesc, expected: usize, args: *const RawAny, n: i32, result: *mut RawAny) -> i32 {
    let lazy = if n as i64 != expected as i64 {
        LazyError::Arity { desc, got: n }
    } else if args.is_null() {
        LazyError::NullPointer { desc, what: "args" }
    } else {
        debug_assert!(result.is_null());
        LazyError::NullPointer { desc, what: "result" }
    };
    host::set_raised_lazy(lazy);
    -1
}

/// Runs an exported function's body behind the boundary: checks the count and pointers,
/// catches panics, writes the result, raises failures.
///
/// # Safety
/// `args` points to `n` valid slots when `n == N` and non-null; `result` is writable.
#[inline(always)]
pub unsafe fn run_export<const N: usize, F>(
    desc: &'static FnDesc,
    args: *const RawAny,
    n: i32,
    result: *mut RawAny,
    body: F,
) -> i32
where
    F: for<'a> FnOnce(&'a [AnyView<'a>; N]) -> core::result::Result<Any, CallError>,
{
    if n as usize != N || n < 0 || (N > 0 && args.is_null()) || result.is_null() {
        return raise_bad_call(desc, N, args, n, result);
    }
    let args = if N == 0 { NonNull::dangling().as_ptr() } else { args.cast_mut() };
    // SAFETY: N slots checked above (a dangling pointer for zero); AnyView is transparent.
    let slots = unsafe { &*args.cast::<[AnyView<'_>; N]>() };
    // SAFETY: `result` was checked non-null; the caller vouches it is writable.
    unsafe { finish_call(desc, result, || body(slots)) }
}

/// The slots of a call whose count and pointers are right, for an export's fast path;
/// `None` sends the call to the full path, which reports what is wrong.
///
/// # Safety
/// As for [`run_export`].
#[inline(always)]
pub unsafe fn checked_slots<'a, const N: usize>(
    args: *const RawAny,
    n: i32,
    result: *mut RawAny,
) -> Option<&'a [AnyView<'a>; N]> {
    if N == 0 || n as usize != N || n < 0 || args.is_null() || result.is_null() {
        return None;
    }
    // SAFETY: N > 0 slots at a non-null `args`, guaranteed by the caller; AnyView is transparent.
    Some(unsafe { &*args.cast::<[AnyView<'a>; N]>() })
}

/// Runs an export's fast path: `body` converts the arguments with no fallback (`None`:
/// the caller takes the full path, nothing has run) and calls the function. Conversions
/// happen inside the panic guard so the arguments never leave registers.
///
/// # Safety
/// `result` is non-null and writable.
#[inline(always)]
pub unsafe fn try_fast_call<F>(desc: &'static FnDesc, result: *mut RawAny, body: F) -> Option<i32>
where
    F: FnOnce() -> Option<core::result::Result<Any, CallError>>,
{
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(None) => None,
        Ok(Some(Ok(v))) => {
            // SAFETY: `result` is writable; it held no owned value (None on entry).
            unsafe { result.write(v.into_raw()) };
            Some(0)
        }
        Ok(Some(Err(e))) => Some(raise_call_error(desc, e)),
        Err(payload) => Some(raise_panic(desc.name, payload)),
    }
}

/// Runs a body whose arguments are converted: catches panics, writes the result, raises
/// failures.
///
/// # Safety
/// `result` is non-null and writable.
#[inline(always)]
pub unsafe fn finish_call<F>(desc: &'static FnDesc, result: *mut RawAny, body: F) -> i32
where
    F: FnOnce() -> core::result::Result<Any, CallError>,
{
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(v)) => {
            // SAFETY: `result` is writable; it held no owned value (None on entry).
            unsafe { result.write(v.into_raw()) };
            0
        }
        Ok(Err(e)) => raise_call_error(desc, e),
        Err(payload) => raise_panic(desc.name, payload),
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
pub unsafe fn ffi_boundary(result: *mut RawAny, f: impl FnOnce() -> Result<Any>) -> i32 {
    if result.is_null() {
        host::set_raised(Error::value_error("result is a null pointer"));
        return -1;
    }
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(v)) => {
            // SAFETY: checked non-null; it held no owned value.
            unsafe { result.write(v.into_raw()) };
            0
        }
        Ok(Err(e)) => {
            host::set_raised(e);
            -1
        }
        Err(payload) => raise_panic("function", payload),
    }
}
