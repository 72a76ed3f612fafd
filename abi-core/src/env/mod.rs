//! The caller's environment: its device streams, its tensor allocator and its signals
//! (tvm-ffi's `c_env_api.h`, docs/ABI.md section 12). Under a tvm-ffi host these are the
//! host's: the stream PyTorch, JAX or `tvm_ffi.use_raw_stream` set for the call, the
//! allocator of the framework whose tensors were passed, Python's pending Ctrl-C. With no
//! tvm-ffi in the process they are the embedded runtime's, shared by every abi library it
//! opened. Everything here is per thread: worker threads (rayon's, say) see no stream and
//! no allocator unless the calling thread passes them on.

use core::ffi::c_void;
use core::marker::PhantomData;

use crate::ffi::{Device, EnvApi, StreamHandle, TensorAllocator};
use crate::runtime::calls::error_slot::take_raised_after;
use crate::runtime::process::discovery::{services, Services};
use crate::runtime::process::environment;
use crate::value::error::{kind, Error, Result};

/// A device stream (`cudaStream_t`, `hipStream_t`...), opaque; null when the caller set
/// none, which for CUDA means the default stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stream(StreamHandle);

impl Stream {
    /// No stream.
    pub const NULL: Stream = Stream(core::ptr::null_mut());

    /// A stream from its handle (what a CUDA runtime call returned, say).
    pub const fn from_ptr(ptr: *mut c_void) -> Stream {
        Stream(ptr)
    }

    /// The handle, to pass to a kernel launch.
    pub fn as_ptr(self) -> *mut c_void {
        self.0
    }

    /// Whether no stream is set.
    pub fn is_null(self) -> bool {
        self.0.is_null()
    }
}

/// The environment entry points of the runtime this library uses: the embedded runtime's,
/// tvm-ffi's, or its opener's.
#[inline]
fn api() -> &'static EnvApi {
    match services() {
        Services::Embedded => &environment::API,
        Services::TvmFfi(table) | Services::Attached(table) => &table.env,
    }
}

/// The error for an entry the runtime lacks (a libtvm_ffi older than apache/tvm-ffi PR
/// 131), said once on stderr too: from then on no stream is set and no allocator exists.
#[cold]
fn missing(what: &str) -> Error {
    static SAID: std::sync::Once = std::sync::Once::new();
    let message = format!(
        "{what}: the tvm-ffi runtime in this process has no environment API (it predates apache/tvm-ffi PR 131); \
         upgrade apache-tvm-ffi"
    );
    SAID.call_once(|| eprintln!("abi: {message}"));
    Error::runtime_error(message)
}

/// The calling thread's stream for `device`: the one the caller (its framework, or
/// [`set_stream`]) set, else [`Stream::NULL`].
#[inline]
pub fn stream(device: Device) -> Stream {
    let table = match services() {
        // This library's own tables: no call through a pointer.
        Services::Embedded => return Stream(environment::stream_of(device.device_type, device.device_id)),
        Services::TvmFfi(table) | Services::Attached(table) => table,
    };
    match table.env.get_stream {
        // SAFETY: the runtime's `TVMFFIEnvGetStream`, which takes any device.
        Some(get) => Stream(unsafe { get(device.device_type, device.device_id) }),
        None => Stream::NULL,
    }
}

/// Sets the calling thread's stream for `device` until the guard drops, which restores
/// the previous one. Guards restore in LIFO order: a guard finding another stream in the
/// slot when it drops (a later `set_stream` still in force, or a callee that left its own
/// stream set) leaves it. The guard stays on the thread that made it.
pub fn set_stream(device: Device, stream: Stream) -> StreamGuard {
    let mut previous = core::ptr::null_mut();
    let set = match api().set_stream {
        // SAFETY: the runtime's `TVMFFIEnvSetStream`; `previous` is writable.
        Some(set) => match unsafe { set(device.device_type, device.device_id, stream.0, &mut previous) } {
            0 => true,
            rc => {
                // Nothing was set: nothing to restore. The runtime's reason is said, not lost.
                eprintln!("abi: setting the stream of {device} failed: {}", take_raised_after(rc).message());
                false
            }
        },
        None => {
            drop(missing("setting a stream"));
            false
        }
    };
    StreamGuard { device, stream: stream.0, previous, set, _thread: PhantomData }
}

/// Restores the previous stream of a device when dropped (see [`set_stream`]).
#[must_use = "the stream is restored when the guard drops"]
#[derive(Debug)]
pub struct StreamGuard {
    device: Device,
    stream: StreamHandle,
    previous: StreamHandle,
    set: bool,
    /// The stream table is per thread: the guard is neither `Send` nor `Sync`.
    _thread: PhantomData<*const ()>,
}

impl Drop for StreamGuard {
    fn drop(&mut self) {
        if !self.set {
            return;
        }
        let (Some(get), Some(set)) = (api().get_stream, api().set_stream) else { return };
        let (ty, id) = (self.device.device_type, self.device.device_id);
        // SAFETY: the runtime's stream entry points, on the thread that set the stream.
        unsafe {
            if get(ty, id) == self.stream {
                set(ty, id, self.previous, core::ptr::null_mut());
            }
        }
    }
}

/// Fails with Python's pending exception (Ctrl-C becomes `KeyboardInterrupt`) when a
/// signal arrived: call it every few thousand iterations of a long loop. Without a Python
/// host it returns `Ok(())`.
pub fn check_signals() -> Result<()> {
    let Some(check) = api().check_signals else { return Ok(()) };
    // SAFETY: the runtime's `TVMFFIEnvCheckSignals`, no arguments.
    match unsafe { check() } {
        0 => Ok(()),
        // The host's exception stays pending: this kind tells it to raise that one.
        _ => Err(Error::new(kind::ENV_ERROR_ALREADY_SET, "a signal arrived (the host raises its pending exception)")),
    }
}

/// The allocator [`Tensor::empty`](crate::Tensor::empty) uses on this thread: the
/// thread's, else the process-wide one.
#[inline]
pub fn tensor_allocator() -> Option<TensorAllocator> {
    // SAFETY: the runtime's `TVMFFIEnvGetDLPackManagedTensorAllocator`, no arguments.
    api().get_allocator.and_then(|get| unsafe { get() })
}

/// Sets the calling thread's tensor allocator (a Rust host's; Python hosts set the
/// framework's around each call), and the process-wide one too when `process_wide`, until
/// the guard drops, which restores the thread's previous one (LIFO, as [`StreamGuard`]).
/// Fails when the runtime has no environment API.
pub fn set_tensor_allocator(allocator: Option<TensorAllocator>, process_wide: bool) -> Result<AllocatorGuard> {
    let set = api().set_allocator.ok_or_else(|| missing("setting a tensor allocator"))?;
    let mut previous = None;
    // SAFETY: the runtime's `TVMFFIEnvSetDLPackManagedTensorAllocator`; `previous` is writable.
    let rc = unsafe { set(allocator, i32::from(process_wide), &mut previous) };
    if rc != 0 {
        return Err(take_raised_after(rc));
    }
    Ok(AllocatorGuard { allocator, previous, _thread: PhantomData })
}

/// Restores the thread's previous tensor allocator when dropped (see
/// [`set_tensor_allocator`]); the process-wide slot is left as set.
#[must_use = "the allocator is restored when the guard drops"]
#[derive(Debug)]
pub struct AllocatorGuard {
    allocator: Option<TensorAllocator>,
    previous: Option<TensorAllocator>,
    _thread: PhantomData<*const ()>,
}

impl Drop for AllocatorGuard {
    fn drop(&mut self) {
        let (Some(get), Some(set)) = (api().get_allocator, api().set_allocator) else { return };
        // SAFETY: the runtime's allocator entry points, on the thread that set it. The
        // process-wide slot is not touched (flag 0).
        unsafe {
            if get().map(|f| f as usize) == self.allocator.map(|f| f as usize) {
                set(self.previous, 0, core::ptr::null_mut());
            }
        }
    }
}
