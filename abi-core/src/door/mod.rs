//! The Python door: a second way into the same exports, for CPython only. The package `abi
//! stubs` writes opens it at import ([`abi_python_door_open`], handing over the table of
//! the interpreter's C API it needs, [`capi::PyApi`]) and asks for one native callable per
//! plain export ([`abi_python_door_function`]); each converts Python objects straight to
//! packed arguments, calls the export's own shim and converts the result straight back, with
//! no Python `def` and no `tvm_ffi` dispatch in between. Whatever it does not convert goes,
//! unchanged, to the package's `tvm_ffi` route. Every other host calls the library as
//! before: nothing here runs unless a package opens the door. The handshake is in
//! docs/ABI.md ("The Python door").

mod args;
mod arrays;
mod callable;
pub mod capi;
mod exchange;
mod ops;
mod results;
mod tensors;

use core::ffi::{c_char, CStr};
use core::ptr::null_mut;

use crate::link::exports::find_export;
use capi::{PyApi, PyObject};

/// The handshake's version: the table's layout and the entries' contracts. A package that
/// asks for another gets this one back and keeps the `tvm_ffi` route.
pub const DOOR_VERSION: u32 = 2;

/// C entry: opens the door with the running interpreter's C API. Returns 0, or this
/// library's door version when `version` or the table's size is not its own (nothing is
/// kept then).
///
/// # Safety
/// `api` is null or points to `size` readable bytes: a [`PyApi`] of the running
/// interpreter, whose addresses stay valid for the life of the process; the GIL is held.
#[no_mangle]
pub unsafe extern "C" fn abi_python_door_open(version: u32, api: *const PyApi, size: usize) -> u32 {
    if version != DOOR_VERSION || api.is_null() || size != core::mem::size_of::<PyApi>() {
        return DOOR_VERSION;
    }
    // SAFETY: a readable table of the right size (the caller's guarantee).
    capi::install(unsafe { *api });
    crate::ffi::result_sink::register_python_str(results::python_str);
    0
}

/// C entry: the door callable of the export `name` (a new reference), calling `fallback`
/// (the package's `tvm_ffi` route for it) for what it does not convert, and passing
/// `defaults` (`fallback.__defaults__`: the last parameters' default values, or `None`)
/// for parameters a call's keywords skip; `None` (a new reference) when the export keeps
/// the `tvm_ffi` route, null when the door is not open.
///
/// # Safety
/// The door is open; `name` is a C string; `fallback` is a live object; `defaults` is a
/// tuple or `None`; the GIL is held.
#[no_mangle]
pub unsafe extern "C" fn abi_python_door_function(
    name: *const c_char,
    fallback: *mut PyObject,
    defaults: *mut PyObject,
) -> *mut PyObject {
    let Some(api) = capi::api() else { return null_mut() };
    // SAFETY: a C string (the caller's guarantee).
    let export = unsafe { CStr::from_ptr(name) }.to_str().ok().and_then(find_export);
    let callable = match export {
        // SAFETY: the GIL is held; `fallback` is live.
        Some(export) => unsafe { callable::new_callable(api, export, (fallback, defaults), export.releases_gil()) },
        None => null_mut(),
    };
    if callable.is_null() {
        // SAFETY: the GIL is held.
        unsafe { (api.inc_ref)(api.none) };
        return api.none;
    }
    callable
}
