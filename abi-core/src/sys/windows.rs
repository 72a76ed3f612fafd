//! Windows: modules found and pinned through kernel32 (`GetModuleHandleExW`, declared with
//! windows-link, the crate libloading imports kernel32 with), and IREE statuses without
//! message blocks.

use core::ffi::c_void;

use libloading::os::windows::Library;

windows_link::link!("kernel32.dll" "system" fn GetModuleHandleExW(flags: u32, name: *const u16, module: *mut *mut c_void) -> i32);
windows_link::link!("kernel32.dll" "system" fn GetModuleFileNameW(module: *mut c_void, name: *mut u16, size: u32) -> u32);

/// `GetModuleHandleExW`: keep the module loaded until the process ends.
const GET_MODULE_HANDLE_EX_FLAG_PIN: u32 = 0x1;
/// `GetModuleHandleExW`: the name is an address inside the module.
const GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS: u32 = 0x4;

/// `GetModuleHandleExW`: take no reference on the module.
const GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT: u32 = 0x2;

/// The file name of tvm_ffi's shared library on this system.
pub const TVM_FFI_LIBRARY: &str = "tvm_ffi.dll";

/// The symbols the program itself exports (Windows has no process-wide symbol scope: a
/// DLL's symbols are found through that DLL, [`loaded_library`]).
pub fn process_library() -> Option<libloading::Library> {
    Library::this().ok().map(Into::into)
}

/// The DLL `name` (a file name) when the process has already loaded it, without loading it.
pub fn loaded_library(name: &str) -> Option<libloading::Library> {
    Library::open_already_loaded(name).ok().map(Into::into)
}

/// Keeps the module (DLL or program) containing `addr` loaded for the rest of the process,
/// whatever `FreeLibrary` calls follow.
pub fn pin_module_containing(addr: *const c_void) {
    let mut module = core::ptr::null_mut();
    // SAFETY: with FROM_ADDRESS the name is read as an address, one inside a loaded module;
    // `module` is writable. PIN takes a reference that is never released.
    unsafe {
        GetModuleHandleExW(
            GET_MODULE_HANDLE_EX_FLAG_PIN | GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS,
            addr.cast(),
            &mut module,
        )
    };
}

/// The path of the module (DLL or program) containing `addr`.
pub fn module_path_containing(addr: *const c_void) -> Option<String> {
    let mut module = core::ptr::null_mut();
    // SAFETY: with FROM_ADDRESS the name is read as an address; `module` is writable;
    // UNCHANGED_REFCOUNT takes no reference.
    let found = unsafe {
        GetModuleHandleExW(
            GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT | GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS,
            addr.cast(),
            &mut module,
        )
    };
    if found == 0 {
        return None;
    }
    let mut name = vec![0u16; 32768];
    // SAFETY: a module handle of a loaded module and a writable buffer of that length.
    let n = unsafe { GetModuleFileNameW(module, name.as_mut_ptr(), name.len() as u32) } as usize;
    (n > 0 && n < name.len()).then(|| String::from_utf16_lossy(&name[..n]))
}

/// Null: no IREE status carries a message block on Windows. IREE frees a status's block
/// with its own C runtime's `_aligned_free` (IREE's and tvm_ffi's Windows builds are MSVC's
/// UCRT), and nothing shows that a Rust library's allocation would come from that runtime (a
/// windows-gnu library links msvcrt; an MSVC one may link another CRT than IREE's). Statuses
/// carry their code alone and the message goes to stderr, as `abi.messages=off` does on
/// every system.
pub fn status_block_alloc(_size: usize) -> *mut c_void {
    core::ptr::null_mut()
}

/// Frees a block of [`status_block_alloc`], which never gives one on Windows.
///
/// # Safety
/// `block` came from [`status_block_alloc`].
pub unsafe fn status_block_free(block: *mut c_void) {
    debug_assert!(block.is_null(), "no status block is allocated on Windows");
}
