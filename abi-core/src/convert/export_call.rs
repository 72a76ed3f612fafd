//! The body of every exported shim, written once and monomorphised per export (pyo3's
//! trampoline is the precedent). `#[export_fn]` generates only a small `call<M: Mode>`
//! function that converts each parameter in mode `M` and calls the user's function;
//! [`export`] runs it twice over: first with [`Fast`] (exact-type conversions, no
//! fallback, inline, no stack frame), then, for anything else, with [`Full`] (every
//! conversion and error, out of line), behind the panic guard, raising what fails.

use core::ffi::c_void;

use crate::convert::overlap::check_overlaps;
use crate::convert::{AbiStruct, Expand, FromArg};
use crate::ffi::RawAny;
use crate::runtime::calls::boundary::{checked_slots, retry_exact, run_export, try_fast_call, CallError};
use crate::runtime::calls::export_entry::Export;
use crate::value::any::{Any, AnyView};

/// An export's argument slots as its generated `call` receives them: holding one vouches
/// that the overlap check ran when a parameter needs it (`FnDesc::checks_overlaps`) and that
/// each slot converts once, which a `HostTensorMut` parameter relies on.
#[repr(transparent)]
#[derive(Debug)]
pub struct Slots<'a>([AnyView<'a>]);

impl<'a> Slots<'a> {
    /// # Safety
    /// When the parameters that will convert `slots` need the overlap check, it ran on
    /// them and found nothing; each slot is converted at most once.
    #[inline(always)]
    pub unsafe fn new(slots: &'a [AnyView<'a>]) -> &'a Slots<'a> {
        // SAFETY: `Slots` is a transparent wrapper of the slice.
        unsafe { &*(slots as *const [AnyView<'a>] as *const Slots<'a>) }
    }

    /// How many slots the call passed: fewer than the parameters' when it omitted
    /// trailing arguments that have defaults.
    #[inline(always)]
    pub fn passed(&self) -> usize {
        self.0.len()
    }
}

/// What one pass of an export's `call` returns.
pub type Outcome<M> = Result<Any, <M as Mode>::Error>;

/// How a pass converts arguments.
pub trait Mode {
    /// Why a conversion stopped: nothing in the fast pass (fall back), the error in the full one.
    type Stop;
    /// Why the pass failed: a stopped conversion, or the call's own error.
    type Error: From<Self::Stop> + From<CallError>;

    /// Converts slot `slot` to a plain parameter of type `T`.
    fn arg<'a, T: FromArg<'a>>(slots: &'a Slots<'a>, slot: usize) -> Result<T, Self::Stop>;

    /// Converts the `T::LEAVES` slots from `slot` to an expanded struct parameter.
    fn expand<'a, T: AbiStruct + Expand<'a>>(slots: &'a Slots<'a>, slot: usize) -> Result<T, Self::Stop>;
}

/// The fast pass: exact types only, anything else falls back to [`Full`].
#[derive(Debug)]
pub enum Fast {}

/// The full pass: every conversion, errors naming the slot.
#[derive(Debug)]
pub enum Full {}

/// The fast pass met a value it does not convert exactly: take the full pass.
#[derive(Debug)]
pub struct Fallback;

/// How the fast pass ended, when not with a value.
#[derive(Debug)]
pub enum FastError {
    /// Before the function ran: take the full pass.
    Fallback,
    /// The function or its result failed.
    Call(CallError),
}

impl From<Fallback> for FastError {
    #[inline(always)]
    fn from(_: Fallback) -> FastError {
        FastError::Fallback
    }
}

impl From<CallError> for FastError {
    #[inline(always)]
    fn from(e: CallError) -> FastError {
        FastError::Call(e)
    }
}

impl Mode for Fast {
    type Stop = Fallback;
    type Error = FastError;

    #[inline(always)]
    fn arg<'a, T: FromArg<'a>>(slots: &'a Slots<'a>, slot: usize) -> Result<T, Fallback> {
        T::fast_path(&slots.0[slot]).ok_or(Fallback)
    }

    #[inline(always)]
    fn expand<'a, T: AbiStruct + Expand<'a>>(_: &'a Slots<'a>, _: usize) -> Result<T, Fallback> {
        Err(Fallback)
    }
}

impl Mode for Full {
    type Stop = CallError;
    type Error = CallError;

    #[inline(always)]
    fn arg<'a, T: FromArg<'a>>(slots: &'a Slots<'a>, slot: usize) -> Result<T, CallError> {
        // SAFETY: holding `Slots` vouches for the overlap check and one conversion per slot.
        unsafe { T::from_checked_arg(&slots.0[slot]) }.map_err(|err| CallError::Arg { slot: slot as u32, err })
    }

    #[inline(always)]
    fn expand<'a, T: AbiStruct + Expand<'a>>(slots: &'a Slots<'a>, slot: usize) -> Result<T, CallError> {
        T::from_slots(&slots.0[slot..slot + T::LEAVES])
            .map_err(|(leaf, err)| CallError::Arg { slot: slot as u32 + leaf, err })
    }
}

/// An exported shim's body: `N` argument slots, `FAST` when every parameter has an exact
/// fast path (`FnDesc::fast_path`), `RETRY` when then its fallback is the shared
/// [`retry_exact`] rather than its own full pass (`FnDesc::retries_exact`); `export` returns the export's registry entry (a function
/// rather than a value, so the out-of-line full pass knows it at compile time); `fast` and
/// `full` are the export's `call::<Fast>` and `call::<Full>`; `handle` is the shim's.
///
/// # Safety
/// The packed calling convention: `args` points to `n` valid slots when `n == N` and it is
/// non-null; `result` is null or writable and holds None.
#[inline(always)]
pub unsafe fn export<const N: usize, const FAST: bool, const RETRY: bool>(
    export: impl Fn() -> &'static Export,
    handle: *mut c_void,
    args: *const RawAny,
    n: i32,
    result: *mut RawAny,
    fast: impl for<'a> FnOnce(&'a Slots<'a>) -> Outcome<Fast>,
    full: impl for<'a> FnOnce(&'a Slots<'a>) -> Outcome<Full>,
) -> i32 {
    if FAST {
        // SAFETY: forwarded from the caller; `checked_slots` checks count and pointers.
        if let Some(slots) = unsafe { checked_slots::<N>(args, n, result) } {
            // SAFETY: `checked_slots` checked that `result` is non-null. A FAST export has no
            // parameters needing the overlap check (`FnDesc::fast_path`); `fast` converts each
            // slot once.
            let done = unsafe {
                try_fast_call(export(), result, || match fast(Slots::new(slots)) {
                    Ok(v) => Some(Ok(v)),
                    Err(FastError::Fallback) => None,
                    Err(FastError::Call(e)) => Some(Err(e)),
                })
            };
            if let Some(code) = done {
                return code;
            }
        }
        if RETRY {
            // SAFETY: forwarded from the caller; this export's description retries exact.
            return unsafe { retry_exact(handle, args, n, result, export()) };
        }
        // SAFETY: forwarded from the caller.
        return unsafe { export_out_of_line::<N, _>(export, args, n, result, full) };
    }
    // SAFETY: forwarded from the caller.
    unsafe { export_full::<N, _>(export, args, n, result, full) }
}

// The full pass out of line: the fast path stays a leaf with no frame.
#[inline(never)]
unsafe fn export_out_of_line<const N: usize, F>(
    export: impl Fn() -> &'static Export,
    args: *const RawAny,
    n: i32,
    result: *mut RawAny,
    full: F,
) -> i32
where
    F: for<'a> FnOnce(&'a Slots<'a>) -> Outcome<Full>,
{
    // SAFETY: forwarded from the caller.
    unsafe { export_full::<N, F>(export, args, n, result, full) }
}

#[inline(always)]
unsafe fn export_full<const N: usize, F>(
    export: impl Fn() -> &'static Export,
    args: *const RawAny,
    n: i32,
    result: *mut RawAny,
    full: F,
) -> i32
where
    F: for<'a> FnOnce(&'a Slots<'a>) -> Outcome<Full>,
{
    let export = export();
    let body = |slots: &[AnyView<'_>]| {
        if export.checks_overlaps {
            check_overlaps(export.desc, slots)?;
        }
        // SAFETY: checked just above when a parameter needs it; `full` converts each slot
        // once.
        full(unsafe { Slots::new(slots) })
    };
    // SAFETY: forwarded from the caller; `run_export` checks count and pointers.
    unsafe { run_export::<N, _>(export, args, n, result, body) }
}
