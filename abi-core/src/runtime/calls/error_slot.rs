//! The thread's error slot: a failed packed call (non-zero return) always leaves its error
//! here. Under a tvm-ffi host this is the host's slot; otherwise a thread-local one, which
//! C callers without tvm-ffi read through the exported `abi_error_move_from_raised`.

use core::cell::RefCell;
use core::ffi::c_void;
use core::ptr::{self, NonNull};

use crate::ffi::ObjectHeader;
use crate::runtime::calls::pending::PendingError;
use crate::runtime::process::discovery::host;
use crate::value::error::Error;
use crate::value::object::{ObjectHandle, ObjectRef};

/// What the embedded slot holds: a finished error or one still to be formatted.
enum Raised {
    Error(Error),
    Pending(PendingError),
}

thread_local! {
    static SLOT: RefCell<Option<Raised>> = const { RefCell::new(None) };
}

/// Raises `err` on this thread: a following non-zero return reports it.
pub fn set_raised(err: Error) {
    match host() {
        Some(api) => {
            // SAFETY: the runtime borrows the error and adds its own reference.
            unsafe { (api.error_set_raised)(err.as_object().as_ptr().cast()) }
        }
        None => SLOT.with(|s| *s.borrow_mut() = Some(Raised::Error(err))),
    }
}

fn take_embedded() -> Option<Error> {
    SLOT.with(|s| s.borrow_mut().take()).map(|r| match r {
        Raised::Error(e) => e,
        Raised::Pending(p) => p.into_error(),
    })
}

/// The embedded slot's `TVMFFIErrorSetRaised`, in the runtime table handed to the
/// libraries this runtime attaches.
///
/// # Safety
/// `err` is null or a live Error object.
pub(crate) unsafe extern "C" fn embedded_error_set_raised(err: *mut c_void) {
    // SAFETY: forwarded from the caller.
    if let Some(e) = unsafe { borrowed_error(err) } {
        SLOT.with(|s| *s.borrow_mut() = Some(Raised::Error(e)));
    }
}

/// The embedded slot's `TVMFFIErrorMoveFromRaised`, in the runtime table.
///
/// # Safety
/// `out` is null or writable.
pub(crate) unsafe extern "C" fn embedded_error_move_from_raised(out: *mut *mut c_void) {
    // SAFETY: forwarded from the caller.
    unsafe { write_owned(out, take_embedded()) }
}

/// Our own reference to a borrowed Error object, if `err` is one.
unsafe fn borrowed_error(err: *mut c_void) -> Option<Error> {
    let obj = NonNull::new(err.cast::<ObjectHeader>())?;
    // SAFETY: the caller passes a live object; we take our own reference.
    Error::from_object(unsafe { ObjectRef::from_borrowed(obj) }).ok()
}

/// Moves `err` (or null) into `*out` as an owned reference.
unsafe fn write_owned(out: *mut *mut c_void, err: Option<Error>) {
    if out.is_null() {
        return;
    }
    let err = err.map_or(ptr::null_mut(), |e| e.into_object().into_raw().as_ptr().cast());
    // SAFETY: checked non-null; the caller owns the reference.
    unsafe { *out = err };
}

/// Raises an error whose message is formatted only when somebody reads it.
#[cold]
pub(crate) fn set_raised_pending(err: PendingError) {
    match host() {
        Some(_) => set_raised(err.into_error()),
        None => SLOT.with(|s| *s.borrow_mut() = Some(Raised::Pending(err))),
    }
}

/// Takes the error raised on this thread, if any.
pub fn take_raised() -> Option<Error> {
    match host() {
        Some(api) => {
            let mut out: *mut c_void = ptr::null_mut();
            // SAFETY: the runtime writes an owned reference or null.
            unsafe { (api.error_move_from_raised)(&mut out) };
            let obj = NonNull::new(out.cast::<ObjectHeader>())?;
            // SAFETY: an owned reference to an Error object.
            Error::from_object(unsafe { ObjectRef::from_raw(obj) }).ok()
        }
        None => take_embedded(),
    }
}

/// Takes the error a failed call (`code != 0`) raised, or makes one saying none was set.
#[cold]
pub fn take_raised_after(code: i32) -> Error {
    take_raised().unwrap_or_else(|| Error::runtime_error(format!("call failed with code {code} but raised no error")))
}

/// C entry: raise `err` (borrowed) on this thread, as `TVMFFIErrorSetRaised` does.
///
/// # Safety
/// `err` is null or a live Error object.
#[no_mangle]
pub unsafe extern "C" fn abi_error_set_raised(err: *mut c_void) {
    // SAFETY: forwarded from the caller.
    if let Some(e) = unsafe { borrowed_error(err) } {
        set_raised(e);
    }
}

/// C entry: move the error raised on this thread into `*out` (an owned reference, or null),
/// as `TVMFFIErrorMoveFromRaised` does. Read it with the Error cell layout of docs/ABI.md.
///
/// # Safety
/// `out` is null or writable.
#[no_mangle]
pub unsafe extern "C" fn abi_error_move_from_raised(out: *mut *mut c_void) {
    // SAFETY: forwarded from the caller.
    unsafe { write_owned(out, take_raised()) }
}
