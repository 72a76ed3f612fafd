//! Keeps this library loaded for the rest of the process once a runtime it does not own
//! (a tvm-ffi host's type table, or its opener's) holds pointers into its code and data:
//! field getters, method entries, names and metadata texts. Unloading it then would leave
//! that table pointing at unmapped memory (docs/ABI.md section 10).

use std::sync::Once;

use crate::sys;

/// Pins the shared object containing this code, once (`RTLD_NODELETE` on unix, a pinned
/// module reference on Windows): a later `dlclose` or `FreeLibrary` (a C++ `Module` going
/// out of scope, for example) then leaves it mapped. In a program (not a shared library)
/// nothing is unloaded anyway and the call changes nothing.
pub fn pin_this_library() {
    static PINNED: Once = Once::new();
    PINNED.call_once(|| {
        // Miri cannot run `dladdr`/`dlopen`, and a Miri run loads no shared object anyway
        // (scripts/test-miri.sh lists this switch-off).
        if cfg!(miri) {
            return;
        }
        sys::pin_module_containing(pin_this_library as *const core::ffi::c_void);
    });
}
