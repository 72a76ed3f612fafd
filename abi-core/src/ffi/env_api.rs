//! The environment API of tvm-ffi's `c_env_api.h` (docs/ABI.md section 12) as plain data:
//! the per-thread stream table, the tensor allocator slots, tensor allocation and signal
//! checks, with the exact C signatures, and the DLPack types the allocator exchanges.

use core::ffi::{c_char, c_void};
use core::mem::offset_of;

use static_assertions::const_assert_eq;

use crate::ffi::DLTensor;

/// `TVMFFIStreamHandle`: a device stream (`cudaStream_t`...), opaque; null for none.
pub type StreamHandle = *mut c_void;

/// `DLPackVersion`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DLPackVersion {
    /// Major version.
    pub major: u32,
    /// Minor version.
    pub minor: u32,
}

/// `DLManagedTensorVersioned`: a DLTensor with the means to release it.
#[repr(C)]
#[derive(Debug)]
pub struct DLManagedTensorVersioned {
    /// The DLPack version the producer wrote.
    pub version: DLPackVersion,
    /// The producer's context.
    pub manager_ctx: *mut c_void,
    /// Releases the tensor (and this struct); may be null.
    pub deleter: Option<unsafe extern "C" fn(*mut DLManagedTensorVersioned)>,
    /// `DLPACK_FLAG_BITMASK_*` bits.
    pub flags: u64,
    /// The tensor.
    pub dl_tensor: DLTensor,
}

impl DLManagedTensorVersioned {
    /// Releases `this` through its deleter (a null deleter releases nothing).
    ///
    /// # Safety
    /// `this` is a live managed tensor its holder gives up; it is not used again.
    pub unsafe fn release(this: *mut DLManagedTensorVersioned) {
        // SAFETY: live (the caller's guarantee); the deleter runs once.
        unsafe {
            if let Some(deleter) = (*this).deleter {
                deleter(this);
            }
        }
    }
}

const_assert_eq!(offset_of!(DLManagedTensorVersioned, manager_ctx), 8);
const_assert_eq!(offset_of!(DLManagedTensorVersioned, deleter), 16);
const_assert_eq!(offset_of!(DLManagedTensorVersioned, flags), 24);
const_assert_eq!(offset_of!(DLManagedTensorVersioned, dl_tensor), 32);
const_assert_eq!(core::mem::size_of::<DLManagedTensorVersioned>(), 80);

/// `void (*SetError)(void* error_ctx, const char* kind, const char* message)`.
pub type SetError = unsafe extern "C" fn(*mut c_void, *const c_char, *const c_char);

/// `DLPackManagedTensorAllocator`: allocates a tensor like `prototype` (its dtype, ndim,
/// shape and device) into `out`; on failure calls `set_error` and returns non-zero.
pub type TensorAllocator = unsafe extern "C" fn(
    prototype: *mut DLTensor,
    out: *mut *mut DLManagedTensorVersioned,
    error_ctx: *mut c_void,
    set_error: SetError,
) -> i32;

/// The environment entry points of a runtime, with the signatures of tvm-ffi's
/// `TVMFFIEnvGetStream`, `TVMFFIEnvSetStream`, `TVMFFIEnvGetDLPackManagedTensorAllocator`,
/// `TVMFFIEnvSetDLPackManagedTensorAllocator`, `TVMFFIEnvTensorAlloc` and
/// `TVMFFIEnvCheckSignals`; an entry is NULL when the runtime lacks it (a libtvm_ffi older
/// than apache/tvm-ffi PR 131).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct EnvApi {
    /// The calling thread's stream for a device (null when none is set).
    pub get_stream: Option<unsafe extern "C" fn(i32, i32) -> StreamHandle>,
    /// Sets the calling thread's stream for a device; writes the previous one when asked.
    pub set_stream: Option<unsafe extern "C" fn(i32, i32, StreamHandle, *mut StreamHandle) -> i32>,
    /// The allocator: the calling thread's, else the process-wide one, else none.
    pub get_allocator: Option<unsafe extern "C" fn() -> Option<TensorAllocator>>,
    /// Sets the thread's allocator (and the process-wide one when the flag is non-zero);
    /// writes the thread's previous one when asked.
    pub set_allocator: Option<unsafe extern "C" fn(Option<TensorAllocator>, i32, *mut Option<TensorAllocator>) -> i32>,
    /// Allocates a tensor like the prototype through the allocator: an owned Tensor object.
    pub tensor_alloc: Option<unsafe extern "C" fn(*mut DLTensor, *mut *mut c_void) -> i32>,
    /// Checks for pending signals (Python's `PyErr_CheckSignals` under its host).
    pub check_signals: Option<unsafe extern "C" fn() -> i32>,
}

const_assert_eq!(core::mem::size_of::<EnvApi>(), 48);
