//! The body of every exported shim, written once and generic only over which of its two
//! forms an export runs ([`Passes::kind`]): `#[export_fn]` generates only a small
//! `call<M: Mode>` function that converts each parameter in mode `M` and calls the user's
//! function, and a const [`Passes`] holding the plain function pointers `call::<Fast>` and
//! `call::<Full>` (only those the export takes). [`export`] runs them: first [`Fast`]
//! (conversions that build no error: exact types, and the whole conversion of `&str` and
//! `Vec<T>`; inlined into the shim through the const pointer, no stack frame), then, for
//! anything else, [`Full`] (every conversion and error) or the shared `retry_exact`,
//! behind the panic guard, raising what fails. What does
//! not depend on the export's types (count and pointer checks, the overlap check, writing
//! the result or raising the error, the panic's outcome) is compiled once in abi-core.

use core::ffi::c_void;

use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::convert::overlap::check_overlaps;
use crate::convert::{AbiStruct, Expand, FromArg};
use crate::ffi::{RawAny, ResultSink};
use crate::reflect::FnDesc;
use crate::runtime::calls::boundary::{fast_slots, finish, full_slots, retry_exact, CallError};
use crate::runtime::calls::export_entry::Export;
use crate::runtime::process::discovery::{calls_accepted, first_call};
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

/// One pass of an export's `call`, in mode `M`, as a plain function.
pub type Pass<M> = for<'a> fn(&'a Slots<'a>, ResultSink) -> Outcome<M>;

/// How an export's shim runs, computed at compile time from its description
/// ([`FnDesc::passes`]). The shim passes it as a const, so its [`export`] knows every field
/// and LLVM inlines the fast pass into the shim through its pointer.
#[derive(Debug, Clone, Copy)]
pub struct Passes {
    /// The argument slots ([`FnDesc::slot_count`]).
    slots: usize,
    /// `call::<Fast>`, when every parameter has an exact fast path ([`FnDesc::fast_path`]).
    fast: Option<Pass<Fast>>,
    /// `call::<Full>`, unless the fast pass falls back through the shared [`retry_exact`]
    /// ([`FnDesc::retries_exact`]).
    full: Option<Pass<Full>>,
    /// Whether the full pass compares the tensor arguments' memory first
    /// ([`FnDesc::checks_overlaps`]).
    checks_overlaps: bool,
    /// Whether a parameter's slot may hold a tensor ([`FnDesc::holds_tensors`]): only then
    /// does a failed call look among its arguments for the tensor a check in the body
    /// refused (`boundary::finish`), so that other exports keep no argument alive past the
    /// body.
    holds_tensors: bool,
}

impl Passes {
    /// [`Passes::kind`] of an export with a fast pass, inline, whose fallback (the shared
    /// `retry_exact`, or its full pass) is out of line.
    pub const FAST: u8 = 0;
    /// [`Passes::kind`] of an export with no fast pass: its full pass runs inline.
    pub const FULL: u8 = 1;

    /// Which of [`export`]'s bodies the export runs, its `KIND`: a const generic argument,
    /// so each shim compiles only its own body (the other is never code-generated, not
    /// even for LLVM to delete).
    pub const fn kind(&self) -> u8 {
        if self.fast.is_some() {
            Passes::FAST
        } else {
            Passes::FULL
        }
    }

    /// The slots a failed call searches for a refused tensor: none unless a parameter may
    /// hold one (a constant, so that the other exports' shims drop `slots` at the body).
    #[inline(always)]
    fn tensor_args<'s, 'a>(&self, slots: &'s [AnyView<'a>]) -> &'s [AnyView<'a>] {
        if self.holds_tensors {
            slots
        } else {
            &[]
        }
    }
}

impl FnDesc {
    /// An export's [`Passes`]: `fast` and `full` are its `call::<Fast>` and `call::<Full>`.
    /// Only the passes it takes are kept, so the other is never compiled.
    pub const fn passes(&self, fast: Pass<Fast>, full: Pass<Full>) -> Passes {
        Passes {
            slots: self.slot_count(),
            fast: if self.fast_path() { Some(fast) } else { None },
            full: if self.retries_exact() { None } else { Some(full) },
            checks_overlaps: self.checks_overlaps(),
            holds_tensors: self.holds_tensors(),
        }
    }
}

/// An exported shim's body, the same for every export of a kind: `export` is its registry
/// entry (what errors name), `handle`, `args`, `n` and `result` the shim's parameters,
/// `passes` its const [`FnDesc::passes`] and `KIND` their [`Passes::kind`]. The fast pass,
/// when there is one, runs inline; its fallback is the shared [`retry_exact`] or the full
/// pass out of line; an export without a fast pass runs the full pass inline.
///
/// # Safety
/// The packed calling convention: `args` points to `n` valid slots when `n` is in range and
/// it is non-null; `result` is null or writable and holds None. `passes` is the
/// [`FnDesc::passes`] of the export's description and `KIND` their kind.
#[inline(always)]
pub unsafe fn export<const KIND: u8>(
    export: &'static Export,
    handle: *mut c_void,
    args: *const RawAny,
    n: i32,
    result: *mut RawAny,
    passes: Passes,
) -> i32 {
    // Until a call found the libtvm_ffi in the process in the supported range (or none),
    // the check runs out of line and calls the shim again (a tail call: the shim's own
    // path keeps no frame for it).
    if !calls_accepted() {
        // SAFETY: forwarded from the caller; `safe_call` is this export's shim.
        return unsafe { first_call(handle, args, n, result, export.safe_call) };
    }
    // A switch on the const argument alone: code generation keeps the one arm it takes.
    match KIND {
        Passes::FAST => {
            // SAFETY: forwarded from the caller.
            if let Some(code) = passes.fast.and_then(|fast| unsafe { fast_pass(export, args, n, result, passes, fast) })
            {
                return code;
            }
            match passes.full {
                // SAFETY: forwarded from the caller.
                Some(full) => unsafe { full_out_of_line(export, args, n, result, passes, full) },
                // SAFETY: forwarded from the caller; the export retries exact.
                None => unsafe { retry_exact(handle, args, n, result, export) },
            }
        }
        _ => match passes.full {
            // SAFETY: forwarded from the caller.
            Some(full) => unsafe { full_pass(export, args, n, result, passes, full) },
            // Not this kind's passes (the caller's contract): the retry refuses it as a
            // bad call.
            // SAFETY: forwarded from the caller.
            None => unsafe { retry_exact(handle, args, n, result, export) },
        },
    }
}

// The fast pass, inline: `None` when its count, pointers or conversions send the call to
// the fallback.
#[inline(always)]
unsafe fn fast_pass(
    export: &'static Export,
    args: *const RawAny,
    n: i32,
    result: *mut RawAny,
    passes: Passes,
    fast: Pass<Fast>,
) -> Option<i32> {
    // SAFETY: forwarded from the caller; `fast_slots` checks count and pointers.
    let slots = unsafe { fast_slots(passes.slots, args, n, result) }?;
    // SAFETY: a fast-path export has no parameter needing the overlap check
    // (`FnDesc::fast_path`); `fast` converts each slot once.
    let outcome = catch_unwind(AssertUnwindSafe(|| fast(unsafe { Slots::new(slots) }, ResultSink::new(result))));
    let settled = match outcome {
        Ok(Err(FastError::Fallback)) => return None,
        Ok(Ok(v)) => Ok(Ok(v)),
        Ok(Err(FastError::Call(e))) => Ok(Err(e)),
        Err(payload) => Err(payload),
    };
    // SAFETY: `fast_slots` checked `result` non-null; the caller vouches it is writable and
    // holds None.
    Some(unsafe { finish(export, passes.tensor_args(slots), result, settled) })
}

// The full pass after a fast pass fell back, shared and out of line: the fast path stays a
// leaf with no frame.
#[cold]
#[inline(never)]
unsafe fn full_out_of_line(
    export: &'static Export,
    args: *const RawAny,
    n: i32,
    result: *mut RawAny,
    passes: Passes,
    full: Pass<Full>,
) -> i32 {
    // SAFETY: forwarded from the caller.
    unsafe { full_pass(export, args, n, result, passes, full) }
}

// Checks the count and pointers, compares the tensors' memory when a parameter needs it and
// runs `full`, all behind the panic guard.
#[inline(always)]
unsafe fn full_pass(
    export: &'static Export,
    args: *const RawAny,
    n: i32,
    result: *mut RawAny,
    passes: Passes,
    full: Pass<Full>,
) -> i32 {
    // SAFETY: forwarded from the caller; `full_slots` checks count and pointers, raising
    // what is wrong.
    let slots = match unsafe { full_slots(export, passes.slots, args, n, result) } {
        Ok(slots) => slots,
        Err(code) => return code,
    };
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        if passes.checks_overlaps {
            check_overlaps(export.params(), slots)?;
        }
        // SAFETY: checked just above when a parameter needs it; `full` converts each slot
        // once.
        full(unsafe { Slots::new(slots) }, ResultSink::new(result))
    }));
    // SAFETY: `full_slots` checked `result` non-null; the caller vouches it is writable and
    // holds None.
    unsafe { finish(export, passes.tensor_args(slots), result, outcome) }
}
