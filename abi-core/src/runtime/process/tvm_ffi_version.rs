//! Which tvm-ffi runtimes this library works with: the version a libtvm_ffi reports
//! (`TVMFFIGetVersion`, in every release) must lie in [`abi_shared::TVM_FFI_ABI_LOWEST`]
//! up to [`abi_shared::TVM_FFI_ABI_BELOW`]. A library outside that range is used for
//! nothing but saying so: discovery does not adopt it (so nothing registers in its type
//! table or registry while the library loads), and every exported call raises the one-line
//! refusal through its `TVMFFIErrorSetRaisedFromCStr`, which every release has.

use core::ffi::{c_char, c_void};
use std::ffi::CString;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

use crate::ffi::{RawAny, SafeCall};
use abi_shared::{TVM_FFI_ABI_BELOW, TVM_FFI_ABI_LOWEST, TVM_FFI_REQUIREMENT};

/// `TVMFFIVersion`: three `uint32_t`.
#[repr(C)]
#[derive(Debug, Default)]
pub struct Version {
    /// Major version.
    pub major: u32,
    /// Minor version.
    pub minor: u32,
    /// Patch version.
    pub patch: u32,
}

/// `TVMFFIGetVersion`.
pub type GetVersion = unsafe extern "C" fn(*mut Version);
/// `TVMFFIErrorSetRaisedFromCStr(kind, message)`.
pub type SetRaisedFromCStr = unsafe extern "C" fn(*const c_char, *const c_char);

/// A libtvm_ffi this library refuses, and how to raise that in its host.
#[derive(Debug)]
pub struct Refusal {
    message: CString,
    raise: Option<SetRaisedFromCStr>,
}

impl Refusal {
    /// The one-line message: the supported range and the loaded version.
    pub fn message(&self) -> &str {
        self.message.to_str().unwrap_or_default()
    }
}

static REFUSAL: OnceLock<Refusal> = OnceLock::new();

/// Set once the first exported call found nothing to refuse.
static ACCEPTED: AtomicBool = AtomicBool::new(false);

/// The message refusing a libtvm_ffi that reports `loaded` (`None`: it has no
/// `TVMFFIGetVersion`); `None` when the version is in range.
pub fn refusal_message(loaded: Option<[u32; 3]>) -> Option<String> {
    let dotted = |v: [u32; 3]| format!("{}.{}.{}", v[0], v[1], v[2]);
    let loaded = match loaded {
        Some(v) if TVM_FFI_ABI_LOWEST <= v && v < TVM_FFI_ABI_BELOW => return None,
        Some(v) => format!("reports version {}", dotted(v)),
        None => "has no TVMFFIGetVersion".to_owned(),
    };
    Some(format!(
        "this library supports {TVM_FFI_REQUIREMENT} (libtvm_ffi versions {} up to {}), but the libtvm_ffi \
         loaded in this process {loaded}",
        dotted(TVM_FFI_ABI_LOWEST),
        dotted(TVM_FFI_ABI_BELOW),
    ))
}

/// Whether a libtvm_ffi with these entry points is one to use; when not, the refusal is
/// kept for every exported call to raise.
///
/// # Safety
/// The pointers are the libtvm_ffi's own `TVMFFIGetVersion` and
/// `TVMFFIErrorSetRaisedFromCStr`, from a library that stays loaded.
pub unsafe fn accept(get_version: Option<GetVersion>, raise: Option<SetRaisedFromCStr>) -> bool {
    let loaded = get_version.map(|get| {
        let mut v = Version::default();
        // SAFETY: the caller vouches for the function; `v` is writable.
        unsafe { get(&mut v) };
        [v.major, v.minor, v.patch]
    });
    let Some(message) = refusal_message(loaded) else {
        return true;
    };
    let message = CString::new(message).unwrap_or_default();
    let _ = REFUSAL.set(Refusal { message, raise });
    false
}

/// Whether exported calls run without asking: set by the first call that found nothing to
/// refuse (one relaxed load; the check itself is [`first_call`], out of line).
#[inline(always)]
pub fn accepted() -> bool {
    ACCEPTED.load(Ordering::Relaxed)
}

/// An exported call made before [`accepted`]: looks for a tvm-ffi runtime once (`lookup`,
/// which records a refusal), then raises the refusal and returns -1, or, with nothing to
/// refuse, runs the call (`call`, the export's own shim, which then passes the check).
///
/// # Safety
/// The packed calling convention, as for `call`.
#[cold]
#[inline(never)]
pub unsafe fn first_call(
    handle: *mut c_void,
    args: *const RawAny,
    n: i32,
    result: *mut RawAny,
    call: SafeCall,
    lookup: fn(),
) -> i32 {
    if REFUSAL.get().is_none() {
        lookup();
    }
    let Some(refusal) = REFUSAL.get() else {
        ACCEPTED.store(true, Ordering::Relaxed);
        // SAFETY: forwarded from the caller.
        return unsafe { call(handle, args, n, result) };
    };
    match refusal.raise {
        Some(raise) => {
            // SAFETY: the refused library's own entry point; both texts are NUL-terminated.
            unsafe { raise(c"RuntimeError".as_ptr(), refusal.message.as_ptr()) };
            -1
        }
        // No way to raise in that host: say it and run the call (a non-zero return with
        // no error set would crash Python).
        None => {
            eprintln!("abi: {}", refusal.message());
            ACCEPTED.store(true, Ordering::Relaxed);
            // SAFETY: forwarded from the caller.
            unsafe { call(handle, args, n, result) }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::refusal_message;
    use abi_shared::{TVM_FFI_ABI_BELOW, TVM_FFI_ABI_LOWEST};

    #[test]
    fn the_range_is_lowest_inclusive_below_exclusive() {
        assert_eq!(refusal_message(Some(TVM_FFI_ABI_LOWEST)), None);
        assert_eq!(refusal_message(Some([0, 1, 16])), None);
        let below = refusal_message(Some(TVM_FFI_ABI_BELOW)).expect("refused");
        assert!(below.ends_with("but the libtvm_ffi loaded in this process reports version 0.2.0"), "{below}");
        assert!(!below.contains('\n'));
        let older = refusal_message(Some([0, 1, 7])).expect("refused");
        assert!(older.contains("reports version 0.1.7"), "{older}");
        let none = refusal_message(None).expect("refused");
        assert!(none.ends_with("has no TVMFFIGetVersion"), "{none}");
    }

    #[test]
    fn the_message_names_the_supported_range() {
        let text = refusal_message(Some([9, 0, 0])).expect("refused");
        assert_eq!(
            text,
            format!(
                "this library supports {} (libtvm_ffi versions 0.1.8 up to 0.2.0), but the libtvm_ffi loaded \
                 in this process reports version 9.0.0",
                abi_shared::TVM_FFI_REQUIREMENT
            )
        );
    }
}
