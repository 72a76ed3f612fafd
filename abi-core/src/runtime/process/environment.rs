//! The embedded runtime's environment (`abi_core::env` reads it) (no tvm-ffi in the process): the per-thread stream
//! table and allocator slot and the process-wide allocator slot, with tvm-ffi's semantics
//! (docs/ABI.md section 12), behind the C entry points of [`EnvApi`]. Libraries attached to
//! this runtime reach the same tables through the runtime table.

use core::cell::{Cell, RefCell};
use core::ffi::{c_char, c_void, CStr};
use std::sync::Mutex;

use crate::ffi::type_index as ti;
use crate::ffi::{DLManagedTensorVersioned, DLTensor, EnvApi, StreamHandle, TensorAllocator};
use crate::runtime::calls::error_slot::set_raised;
use crate::value::error::{kind, Error};
use crate::value::object::{new_object, ObjectRef};

/// The embedded runtime's entry points.
pub(crate) const API: EnvApi = EnvApi {
    get_stream: Some(get_stream),
    set_stream: Some(set_stream),
    get_allocator: Some(get_allocator),
    set_allocator: Some(set_allocator),
    tensor_alloc: Some(tensor_alloc),
    check_signals: Some(check_signals),
};

/// A thread's streams: those of its first few devices in cells (no destructor, so a lookup
/// is a plain thread-local read and a compare per device), the rest in a list.
struct Streams {
    len: Cell<usize>,
    /// `device_key` of each kept device.
    keys: [Cell<u64>; FIRST_STREAMS],
    streams: [Cell<StreamHandle>; FIRST_STREAMS],
}

/// Devices whose streams a thread keeps without allocating: more than a thread uses.
const FIRST_STREAMS: usize = 8;

thread_local! {
    static STREAMS: Streams = const {
        Streams {
            len: Cell::new(0),
            keys: [const { Cell::new(0) }; FIRST_STREAMS],
            streams: [const { Cell::new(core::ptr::null_mut()) }; FIRST_STREAMS],
        }
    };
    /// `(device key, stream)` of devices beyond the first `FIRST_STREAMS`.
    static MORE_STREAMS: RefCell<Vec<(u64, StreamHandle)>> = const { RefCell::new(Vec::new()) };
    static THREAD_ALLOCATOR: Cell<Option<TensorAllocator>> = const { Cell::new(None) };
}

static PROCESS_ALLOCATOR: Mutex<Option<TensorAllocator>> = Mutex::new(None);

/// A device as one number: its type and id.
#[inline(always)]
fn device_key(device_type: i32, device_id: i32) -> u64 {
    (u64::from(device_type as u32) << 32) | u64::from(device_id as u32)
}

impl Streams {
    /// The index of `key`'s cell, if kept in one.
    #[inline(always)]
    fn position(&self, key: u64) -> Option<usize> {
        self.keys[..self.len.get()].iter().position(|k| k.get() == key)
    }
}

unsafe extern "C" fn get_stream(device_type: i32, device_id: i32) -> StreamHandle {
    stream_of(device_type, device_id)
}

/// The calling thread's stream for the device (`TVMFFIEnvGetStream`), inlined into
/// `env::stream` when this runtime serves the process.
#[inline]
pub(crate) fn stream_of(device_type: i32, device_id: i32) -> StreamHandle {
    let key = device_key(device_type, device_id);
    STREAMS.with(|s| match s.position(key) {
        Some(i) => s.streams[i].get(),
        None if s.len.get() < FIRST_STREAMS => core::ptr::null_mut(),
        None => more_stream(key, None),
    })
}

/// Reads (`set: None`) or replaces the stream of a device kept in the list.
#[cold]
#[inline(never)]
fn more_stream(key: u64, set: Option<StreamHandle>) -> StreamHandle {
    MORE_STREAMS.with_borrow_mut(|more| match (more.iter_mut().find(|s| s.0 == key), set) {
        (Some(slot), Some(stream)) => core::mem::replace(&mut slot.1, stream),
        (Some(slot), None) => slot.1,
        (None, Some(stream)) => {
            more.push((key, stream));
            core::ptr::null_mut()
        }
        (None, None) => core::ptr::null_mut(),
    })
}

/// # Safety
/// `original` is null or writable.
unsafe extern "C" fn set_stream(
    device_type: i32,
    device_id: i32,
    stream: StreamHandle,
    original: *mut StreamHandle,
) -> i32 {
    let key = device_key(device_type, device_id);
    let previous = STREAMS.with(|s| {
        if let Some(i) = s.position(key) {
            return s.streams[i].replace(stream);
        }
        let len = s.len.get();
        if len == FIRST_STREAMS {
            return more_stream(key, Some(stream));
        }
        s.keys[len].set(key);
        s.streams[len].set(stream);
        s.len.set(len + 1);
        core::ptr::null_mut()
    });
    if !original.is_null() {
        // SAFETY: non-null and writable by the caller's guarantee.
        unsafe { *original = previous };
    }
    0
}

unsafe extern "C" fn get_allocator() -> Option<TensorAllocator> {
    // The thread's slot first, then the process-wide one (tvm-ffi's code does the same).
    THREAD_ALLOCATOR.get().or_else(|| *PROCESS_ALLOCATOR.lock().unwrap_or_else(|e| e.into_inner()))
}

/// # Safety
/// `original` is null or writable.
unsafe extern "C" fn set_allocator(
    allocator: Option<TensorAllocator>,
    process_wide: i32,
    original: *mut Option<TensorAllocator>,
) -> i32 {
    let previous = THREAD_ALLOCATOR.replace(allocator);
    if process_wide != 0 {
        *PROCESS_ALLOCATOR.lock().unwrap_or_else(|e| e.into_inner()) = allocator;
    }
    if !original.is_null() {
        // SAFETY: non-null and writable by the caller's guarantee.
        unsafe { *original = previous };
    }
    0
}

/// What an allocator's `SetError` wrote.
#[derive(Default)]
struct AllocError(Option<Error>);

unsafe extern "C" fn collect_error(ctx: *mut c_void, kind: *const c_char, message: *const c_char) {
    let text = |p: *const c_char, default: &str| match p.is_null() {
        true => default.to_owned(),
        // SAFETY: the allocator passes NUL-terminated strings valid for the call.
        false => unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned(),
    };
    if !ctx.is_null() {
        // SAFETY: `ctx` is the `AllocError` `tensor_alloc` passed to this allocator.
        let slot = unsafe { &mut *ctx.cast::<AllocError>() };
        slot.0 = Some(Error::new(&text(kind, kind::RUNTIME_ERROR), text(message, "")));
    }
}

/// # Safety
/// `prototype` points to a DLTensor whose shape holds `ndim` entries; `out` is writable.
unsafe extern "C" fn tensor_alloc(prototype: *mut DLTensor, out: *mut *mut c_void) -> i32 {
    // SAFETY: forwarded from the caller.
    match unsafe { alloc(prototype) } {
        Ok(tensor) => {
            // SAFETY: writable by the caller's guarantee; the caller owns the reference.
            unsafe { *out = tensor.into_raw().as_ptr().cast() };
            0
        }
        Err(e) => {
            set_raised(e);
            -1
        }
    }
}

unsafe fn alloc(prototype: *mut DLTensor) -> Result<ObjectRef, Error> {
    // SAFETY: reading the allocator slots has no precondition.
    let Some(allocator) = (unsafe { get_allocator() }) else {
        return Err(no_allocator());
    };
    // SAFETY: forwarded from the caller.
    unsafe { alloc_with(allocator, prototype) }
}

// tvm-ffi's wording. Out of line: the error's construction kept the allocator lookup from
// being inlined into the entry point.
#[cold]
#[inline(never)]
fn no_allocator() -> Error {
    Error::runtime_error(
        "TVMFFIEnvTensorAlloc: allocator is nullptr, likely because TVMFFIEnvSetDLPackManagedTensorAllocator has \
         not been called.",
    )
}

/// What `TVMFFIEnvTensorAlloc` does once it has the allocator: calls it, and wraps the
/// managed tensor in a Tensor object whose end runs its deleter. `Tensor::empty` calls it
/// with the allocator it looked up, rather than the runtime's entry, which looks it up again.
///
/// # Safety
/// `prototype` points to a DLTensor whose shape holds `ndim` entries.
pub(crate) unsafe fn alloc_with(allocator: TensorAllocator, prototype: *mut DLTensor) -> Result<ObjectRef, Error> {
    let mut managed: *mut DLManagedTensorVersioned = core::ptr::null_mut();
    let mut error = AllocError::default();
    // SAFETY: the allocator's contract; `error` outlives the call.
    let rc = unsafe { allocator(prototype, &mut managed, (&raw mut error).cast(), collect_error) };
    if rc != 0 || managed.is_null() {
        return Err(error.0.unwrap_or_else(|| Error::runtime_error("the tensor allocator failed without an error")));
    }
    // SAFETY: a managed tensor the allocator handed over; its DLTensor's shape and strides
    // live in the producer's memory until the deleter runs, which `Managed` delays to the
    // object's end.
    let dl = unsafe { DLTensor { ..(*managed).dl_tensor } };
    Ok(new_object(ti::TENSOR, ManagedCell { dl, _owner: Managed(managed) }))
}

/// The cell of a Tensor object wrapping a managed tensor: the DLTensor at its start, as
/// every Tensor object has it (docs/ABI.md section 2), then the managed tensor.
#[repr(C)]
struct ManagedCell {
    dl: DLTensor,
    _owner: Managed,
}

// SAFETY: the DLTensor points into the managed tensor the cell owns; tensor data is plain
// memory any thread may reach, and DLPack deleters may run on any thread.
unsafe impl Send for ManagedCell {}
// SAFETY: see above; the cell is never mutated.
unsafe impl Sync for ManagedCell {}

/// A DLPack managed tensor, released by its deleter when dropped.
struct Managed(*mut DLManagedTensorVersioned);

impl Drop for Managed {
    fn drop(&mut self) {
        // SAFETY: the managed tensor is ours to release, once.
        unsafe { DLManagedTensorVersioned::release(self.0) }
    }
}

unsafe extern "C" fn check_signals() -> i32 {
    // No Python here: nothing to check.
    0
}
