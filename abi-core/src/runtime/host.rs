//! The host bridge (docs/ABI.md section 5): when a tvm-ffi runtime is in the process its C
//! entry points are resolved once at run time (`RTLD_DEFAULT`, then `libtvm_ffi.so` with
//! `RTLD_NOLOAD`), and the error slot and the global registry go through it.

use core::ffi::c_void;
use std::sync::OnceLock;

use crate::ffi::ByteArray;

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
