//! macOS: finding a loaded image by its file name (dyld's `dlopen` looks a bare file name up
//! in the search paths, not among the images already loaded).

use std::ffi::{c_char, CStr, OsStr};
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

// dyld's image list (<mach-o/dyld.h>), in libSystem.
extern "C" {
    fn _dyld_image_count() -> u32;
    fn _dyld_get_image_name(image_index: u32) -> *const c_char;
}

/// The path of the loaded image whose file name is `name` (`libtvm_ffi.dylib`), if any.
pub fn loaded_image_path(name: &str) -> Option<PathBuf> {
    // SAFETY: dyld's image list; an index below the count names an image (one unloaded
    // meanwhile gives NULL, skipped).
    let count = unsafe { _dyld_image_count() };
    (0..count).find_map(|i| {
        // SAFETY: as above.
        let path = unsafe { _dyld_get_image_name(i) };
        if path.is_null() {
            return None;
        }
        // SAFETY: dyld's NUL-terminated path of a loaded image.
        let path = OsStr::from_bytes(unsafe { CStr::from_ptr(path) }.to_bytes());
        let file = std::path::Path::new(path).file_name()?;
        (file == name).then(|| PathBuf::from(path))
    })
}
