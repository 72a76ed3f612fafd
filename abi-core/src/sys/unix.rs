//! Unix (Linux, the BSDs, macOS): the dynamic loader's `dl*` functions and libc's allocator.

use core::ffi::c_void;

use libloading::os::unix::{Library, RTLD_LAZY};

/// The file name of tvm_ffi's shared library on this system.
#[cfg(target_vendor = "apple")]
pub const TVM_FFI_LIBRARY: &str = "libtvm_ffi.dylib";
/// The file name of tvm_ffi's shared library on this system.
#[cfg(not(target_vendor = "apple"))]
pub const TVM_FFI_LIBRARY: &str = "libtvm_ffi.so";

/// The symbols of the program and of what it loaded with `RTLD_GLOBAL` (Python's tvm_ffi
/// loads its library so).
pub fn process_library() -> Option<libloading::Library> {
    Some(Library::this().into())
}

/// The library `name` (a file name) when the process has already loaded it, without loading
/// it: `RTLD_NOLOAD`, whose value differs between systems (libc has each one's).
pub fn loaded_library(name: &str) -> Option<libloading::Library> {
    // SAFETY: with RTLD_NOLOAD nothing is loaded, so no initialiser runs.
    if let Ok(lib) = unsafe { Library::open(Some(name), RTLD_LAZY | libc::RTLD_NOLOAD) } {
        return Some(lib.into());
    }
    // macOS's dlopen looks a file name up in the search paths, not among the loaded
    // images: find the image's path first.
    #[cfg(target_vendor = "apple")]
    if let Some(path) = super::apple::loaded_image_path(name) {
        // SAFETY: as above.
        return unsafe { Library::open(Some(path), RTLD_LAZY | libc::RTLD_NOLOAD) }.ok().map(Into::into);
    }
    None
}

/// Keeps the shared object containing `addr` loaded for the rest of the process: marks it
/// `RTLD_NODELETE`, so a later `dlclose` leaves it mapped. In a program nothing changes.
pub fn pin_module_containing(addr: *const c_void) {
    let mut info = core::mem::MaybeUninit::<libc::Dl_info>::zeroed();
    // SAFETY: `addr` is an address in a loaded object; `info` is writable.
    if unsafe { libc::dladdr(addr, info.as_mut_ptr()) } == 0 {
        return;
    }
    // SAFETY: `dladdr` succeeded, so `info` is initialised.
    let path = unsafe { info.assume_init() }.dli_fname;
    if path.is_null() {
        return;
    }
    // SAFETY: `path` is the loader's NUL-terminated name of an object already loaded;
    // RTLD_NOLOAD only looks it up and RTLD_NODELETE marks it. The handle's reference is
    // never released: the object stays for the life of the process either way.
    unsafe { libc::dlopen(path, libc::RTLD_LAZY | libc::RTLD_NOLOAD | libc::RTLD_NODELETE) };
}

/// The path of the shared object (or program) containing `addr`, as the loader names it.
pub fn module_path_containing(addr: *const c_void) -> Option<String> {
    let mut info = core::mem::MaybeUninit::<libc::Dl_info>::zeroed();
    // SAFETY: `info` is writable; `dladdr` only reads the loader's tables.
    if unsafe { libc::dladdr(addr, info.as_mut_ptr()) } == 0 {
        return None;
    }
    // SAFETY: `dladdr` succeeded, so `info` is initialised.
    let path = unsafe { info.assume_init() }.dli_fname;
    // SAFETY: when not null, the loader's NUL-terminated name of a loaded object.
    (!path.is_null()).then(|| unsafe { core::ffi::CStr::from_ptr(path) }.to_string_lossy().into_owned())
}

/// `size` bytes aligned to 32 for an IREE status message, from the C allocator whose `free`
/// IREE's host calls on it; null when the allocation fails.
pub fn status_block_alloc(size: usize) -> *mut c_void {
    let mut block: *mut c_void = core::ptr::null_mut();
    // SAFETY: `block` is writable; 32 is a power of two and a multiple of the pointer size.
    if unsafe { libc::posix_memalign(&mut block, 32, size) } != 0 {
        return core::ptr::null_mut();
    }
    block
}

/// Frees a block of [`status_block_alloc`].
///
/// # Safety
/// `block` came from [`status_block_alloc`] and is not used afterwards.
pub unsafe fn status_block_free(block: *mut c_void) {
    // SAFETY: allocated by posix_memalign, which `free` releases.
    unsafe { libc::free(block) };
}
