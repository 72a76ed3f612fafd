//! Keeps this library loaded for the rest of the process once a runtime it does not own
//! (a tvm-ffi host's type table, or its opener's) holds pointers into its code and data:
//! field getters, method entries, names and metadata texts. Unloading it then would leave
//! that table pointing at unmapped memory (docs/ABI.md section 10).

use std::sync::Once;

/// Marks the shared object containing this code `RTLD_NODELETE`, once. A later `dlclose`
/// (a C++ `Module` going out of scope, for example) then leaves it mapped. In a program
/// (not a shared library) nothing is unloaded anyway and the call changes nothing.
pub fn pin_this_library() {
    static PINNED: Once = Once::new();
    PINNED.call_once(|| {
        // Miri cannot run `dladdr`/`dlopen`, and a Miri run loads no shared object anyway
        // (scripts/test-miri.sh lists this switch-off).
        if cfg!(miri) {
            return;
        }
        let mut info = core::mem::MaybeUninit::<libc::Dl_info>::zeroed();
        let here = pin_this_library as *const core::ffi::c_void;
        // SAFETY: `here` is an address in this object; `info` is writable.
        if unsafe { libc::dladdr(here, info.as_mut_ptr()) } == 0 {
            return;
        }
        // SAFETY: `dladdr` succeeded, so `info` is initialised.
        let path = unsafe { info.assume_init() }.dli_fname;
        if path.is_null() {
            return;
        }
        // SAFETY: `path` is the loader's NUL-terminated name of an object already loaded;
        // RTLD_NOLOAD only looks it up and RTLD_NODELETE marks it. The handle's reference
        // is never released: the object stays for the life of the process either way.
        unsafe { libc::dlopen(path, libc::RTLD_LAZY | libc::RTLD_NOLOAD | libc::RTLD_NODELETE) };
    });
}
