//! Stand-ins for a tvm-ffi runtime that predates the environment API (apache/tvm-ffi PR
//! 131): no stream is ever set, no allocator exists, signals are never pending, and setting
//! either fails with a message saying why.

use crate::ffi::{DLTensor, EnvApi, StreamHandle, TensorAllocator};
use crate::runtime::error_slot::set_raised;
use crate::value::error::Error;

/// The stand-ins' entry points.
pub(crate) const API: EnvApi =
    EnvApi { get_stream, set_stream, get_allocator, set_allocator, tensor_alloc, check_signals };

#[cold]
fn unsupported(what: &str) -> i32 {
    set_raised(Error::runtime_error(format!(
        "{what}: the tvm-ffi runtime in this process has no environment API (it predates apache/tvm-ffi PR 131); \
         upgrade apache-tvm-ffi"
    )));
    -1
}

unsafe extern "C" fn get_stream(_: i32, _: i32) -> StreamHandle {
    core::ptr::null_mut()
}

unsafe extern "C" fn set_stream(_: i32, _: i32, _: StreamHandle, _: *mut StreamHandle) -> i32 {
    unsupported("setting a stream")
}

unsafe extern "C" fn get_allocator() -> Option<TensorAllocator> {
    None
}

unsafe extern "C" fn set_allocator(_: Option<TensorAllocator>, _: i32, _: *mut Option<TensorAllocator>) -> i32 {
    unsupported("setting a tensor allocator")
}

unsafe extern "C" fn tensor_alloc(_: *mut DLTensor, _: *mut *mut core::ffi::c_void) -> i32 {
    unsupported("allocating a tensor through the environment")
}

unsafe extern "C" fn check_signals() -> i32 {
    0
}
