//! The host bridge (ABI.md section 5). When a tvm-ffi runtime is in the process its C entry
//! points are resolved once at run time (`RTLD_DEFAULT`, then `libtvm_ffi.so` with
//! `RTLD_NOLOAD`) and errors and global functions go through it. Otherwise an embedded
//! runtime does the same job: a thread-local error slot and a global registry.
//!
//! C callers without tvm-ffi take errors through the exported `abi_error_move_from_raised`.

use core::cell::RefCell;
use core::ffi::c_void;
use core::ptr::{self, NonNull};
use std::collections::HashMap;
use std::sync::{OnceLock, RwLock};

use crate::boundary::LazyError;
use crate::error::Error;
use crate::function::Function;
use crate::object::{ObjectHeader, ObjectRef};
use crate::string::ByteArray;

/// The C entry points of a runtime, with the exact signatures of tvm-ffi's
/// `TVMFFIErrorSetRaised`, `TVMFFIErrorMoveFromRaised`, `TVMFFIFunctionGetGlobal` and
/// `TVMFFIFunctionSetGlobal`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct HostApi {
    /// Stores an error (borrowed: the runtime adds its own reference).
    pub error_set_raised: unsafe extern "C" fn(*mut c_void),
    /// Moves the stored error out (an owned reference, or null).
    pub error_move_from_raised: unsafe extern "C" fn(*mut *mut c_void),
    /// Looks up a global function (an owned reference, or null).
    pub function_get_global: unsafe extern "C" fn(*const ByteArray, *mut *mut c_void) -> i32,
    /// Registers a global function.
    pub function_set_global: unsafe extern "C" fn(*const ByteArray, *mut c_void, i32) -> i32,
}

static HOST: OnceLock<Option<HostApi>> = OnceLock::new();

/// The tvm-ffi runtime of this process, resolved on first use.
#[inline]
pub fn host() -> Option<&'static HostApi> {
    HOST.get_or_init(resolve_host).as_ref()
}

/// Whether a tvm-ffi runtime was found in this process.
pub fn has_tvm_ffi_runtime() -> bool {
    host().is_some()
}

#[cfg(target_os = "linux")]
const RTLD_NOLOAD: i32 = 0x4;
#[cfg(not(target_os = "linux"))]
const RTLD_NOLOAD: i32 = 0x10;

fn resolve_host() -> Option<HostApi> {
    use libloading::os::unix::{Library, RTLD_LAZY};
    // SAFETY: looking symbols up runs no code; the signatures are those of tvm-ffi's C API.
    unsafe {
        if let Some(api) = api_from(&Library::this()) {
            return Some(api);
        }
        let lib = Library::open(Some("libtvm_ffi.so"), RTLD_LAZY | RTLD_NOLOAD).ok()?;
        let api = api_from(&lib);
        // The runtime was already loaded by somebody else; keep our handle so it stays.
        core::mem::forget(lib);
        api
    }
}

unsafe fn api_from(lib: &libloading::os::unix::Library) -> Option<HostApi> {
    // SAFETY: the caller vouches for the signatures; symbols of a loaded library stay valid
    // while it is loaded, and tvm-ffi is never unloaded once a host has loaded it.
    unsafe {
        Some(HostApi {
            error_set_raised: *lib.get(b"TVMFFIErrorSetRaised\0").ok()?,
            error_move_from_raised: *lib.get(b"TVMFFIErrorMoveFromRaised\0").ok()?,
            function_get_global: *lib.get(b"TVMFFIFunctionGetGlobal\0").ok()?,
            function_set_global: *lib.get(b"TVMFFIFunctionSetGlobal\0").ok()?,
        })
    }
}

/// What the embedded slot holds: a finished error or one still to be formatted.
enum Raised {
    Error(Error),
    Lazy(LazyError),
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

/// Raises an error whose message is formatted only when somebody reads it.
#[cold]
pub(crate) fn set_raised_lazy(err: LazyError) {
    match host() {
        Some(_) => set_raised(err.into_error()),
        None => SLOT.with(|s| *s.borrow_mut() = Some(Raised::Lazy(err))),
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
        None => SLOT.with(|s| s.borrow_mut().take()).map(|r| match r {
            Raised::Error(e) => e,
            Raised::Lazy(l) => l.into_error(),
        }),
    }
}

/// Takes the error a failed call (`code != 0`) raised, or makes one saying none was set.
#[cold]
pub fn take_raised_after(code: i32) -> Error {
    take_raised().unwrap_or_else(|| Error::runtime_error(format!("call failed with code {code} but raised no error")))
}

fn registry() -> &'static RwLock<HashMap<String, Function>> {
    static REGISTRY: OnceLock<RwLock<HashMap<String, Function>>> = OnceLock::new();
    REGISTRY.get_or_init(Default::default)
}

/// Looks up a function in the global registry (tvm-ffi's when present).
pub fn get_global(name: &str) -> Option<Function> {
    match host() {
        Some(api) => {
            let key = ByteArray::from_slice(name.as_bytes());
            let mut out: *mut c_void = ptr::null_mut();
            // SAFETY: the runtime writes an owned reference or null.
            let rc = unsafe { (api.function_get_global)(&key, &mut out) };
            if rc != 0 {
                drop(take_raised());
                return None;
            }
            let obj = NonNull::new(out.cast::<ObjectHeader>())?;
            // SAFETY: an owned reference to a Function object.
            Function::from_object(unsafe { ObjectRef::from_raw(obj) }).ok()
        }
        None => registry().read().unwrap_or_else(|e| e.into_inner()).get(name).cloned(),
    }
}

/// Registers `f` under `name`; fails when the name is taken and `allow_override` is false.
pub fn register_global(name: &str, f: Function, allow_override: bool) -> crate::Result<()> {
    match host() {
        Some(api) => {
            let key = ByteArray::from_slice(name.as_bytes());
            // SAFETY: the runtime borrows the function and adds its own reference.
            let rc = unsafe { (api.function_set_global)(&key, f.as_object().as_ptr().cast(), allow_override as i32) };
            if rc == 0 {
                Ok(())
            } else {
                Err(take_raised_after(rc))
            }
        }
        None => {
            let mut map = registry().write().unwrap_or_else(|e| e.into_inner());
            if !allow_override && map.contains_key(name) {
                return Err(Error::key_error(format!("global function `{name}` is already registered")));
            }
            map.insert(name.to_owned(), f);
            Ok(())
        }
    }
}

/// Names in the embedded registry (empty under a tvm-ffi host, which has its own listing).
pub fn embedded_global_names() -> Vec<String> {
    let mut names: Vec<String> = registry().read().unwrap_or_else(|e| e.into_inner()).keys().cloned().collect();
    names.sort();
    names
}

/// C entry: raise `err` (borrowed) on this thread, as `TVMFFIErrorSetRaised` does.
///
/// # Safety
/// `err` is null or a live Error object.
#[no_mangle]
pub unsafe extern "C" fn abi_error_set_raised(err: *mut c_void) {
    let Some(obj) = NonNull::new(err.cast::<ObjectHeader>()) else {
        return;
    };
    // SAFETY: the caller passes a live object; we take our own reference.
    if let Ok(e) = Error::from_object(unsafe { ObjectRef::from_borrowed(obj) }) {
        set_raised(e);
    }
}

/// C entry: move the error raised on this thread into `*out` (an owned reference, or null),
/// as `TVMFFIErrorMoveFromRaised` does. Read it with the Error cell layout of ABI.md.
///
/// # Safety
/// `out` is a valid pointer.
#[no_mangle]
pub unsafe extern "C" fn abi_error_move_from_raised(out: *mut *mut c_void) {
    if out.is_null() {
        return;
    }
    let err = take_raised().map_or(ptr::null_mut(), |e| e.into_object().into_raw().as_ptr().cast());
    // SAFETY: checked non-null above; the caller owns the reference.
    unsafe { *out = err };
}
