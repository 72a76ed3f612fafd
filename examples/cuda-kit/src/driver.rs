//! The CUDA driver, through cudarc's run-time loading: whether `libcuda` is there at all
//! (asked before any driver call, since cudarc panics on first use without it), the
//! kernels' module loaded once per device into its primary context (the one PyTorch, JAX
//! and CuPy use), and launches queued on a stream without waiting for them.

use core::ffi::c_void;
use std::ffi::CString;
use std::sync::{Mutex, OnceLock};

use abi_core::{Device, Error, Result};
use cudarc::driver::result::{self, DriverError};
use cudarc::driver::sys;

use crate::launch::{Kernel, Launch};

/// The kernels (kernels/kernels.cu, compiled ahead by NVRTC), NUL-terminated for
/// `cuModuleLoadData`, which JIT-compiles the PTX for the device it loads on.
static PTX: &str = concat!(include_str!("../kernels/kernels.ptx"), "\0");

/// Whether the driver can be used: checked once per process. `Err` holds the reason,
/// which every call then reports.
fn driver() -> core::result::Result<(), &'static str> {
    static STATE: OnceLock<core::result::Result<(), String>> = OnceLock::new();
    let state = STATE.get_or_init(|| {
        // SAFETY: only tries to open the library under its usual names, and closes it.
        if !unsafe { sys::is_culib_present() } {
            return Err("no CUDA driver: libcuda.so (the NVIDIA driver's library) is not on this machine".to_owned());
        }
        result::init().map_err(|e| format!("the CUDA driver did not start: cuInit: {}", describe(e)))
    });
    state.as_ref().map(|_| ()).map_err(String::as_str)
}

/// A driver error's name and text (`CUDA_ERROR_NO_DEVICE: no CUDA-capable device is
/// detected`).
fn describe(e: DriverError) -> String {
    let name = e.error_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|_| format!("{:?}", e.0));
    match e.error_string() {
        Ok(text) => format!("{name}: {}", text.to_string_lossy()),
        Err(_) => name,
    }
}

/// The error of a failed driver call, naming the export, the call and the device.
fn failed(what: &str, call: &str, device: Device, e: DriverError) -> Error {
    Error::runtime_error(format!("{what}: {call} on {device} failed: {}", describe(e)))
}

/// The kernels loaded on one device: its primary context and the functions in it. Never
/// unloaded: the handles live as long as the process.
#[derive(Debug)]
pub struct Kernels {
    device: Device,
    context: sys::CUcontext,
    add: sys::CUfunction,
    sum: sys::CUfunction,
}

// SAFETY: driver handles are plain identifiers the driver API accepts from any thread;
// nothing here is mutated after loading.
unsafe impl Send for Kernels {}
// SAFETY: as for Send: shared use only passes the handles to thread-safe driver calls.
unsafe impl Sync for Kernels {}

/// The kernels on `device` (a CUDA device), loaded on first use; `what` names the export
/// in errors. Fails with "no CUDA driver" where there is none, without a driver call.
pub fn kernels(what: &str, device: Device) -> Result<&'static Kernels> {
    driver().map_err(|reason| Error::runtime_error(format!("{what}: {reason}")))?;
    static LOADED: Mutex<Vec<&'static Kernels>> = Mutex::new(Vec::new());
    let mut loaded = LOADED.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(k) = loaded.iter().find(|k| k.device == device) {
        return Ok(k);
    }
    let k: &'static Kernels = Box::leak(Box::new(load(what, device)?));
    loaded.push(k);
    Ok(k)
}

/// Retains `device`'s primary context and loads the module into it.
fn load(what: &str, device: Device) -> Result<Kernels> {
    let ordinal = device.device_id;
    let dev = result::device::get(ordinal).map_err(|e| failed(what, "cuDeviceGet", device, e))?;
    // SAFETY: a device handle the driver just returned; the retain is never released, so
    // the context outlives every handle kept here.
    let context =
        unsafe { result::primary_ctx::retain(dev) }.map_err(|e| failed(what, "cuDevicePrimaryCtxRetain", device, e))?;
    let _current = Current::push(what, device, context)?;
    // SAFETY: a NUL-terminated PTX image, loaded into the current (primary) context.
    let module = unsafe { result::module::load_data(PTX.as_ptr().cast()) }
        .map_err(|e| failed(what, "cuModuleLoadData", device, e))?;
    let function = |kernel: Kernel| {
        let name = CString::new(kernel.name()).expect("kernel names have no NUL");
        // SAFETY: the module just loaded, never unloaded.
        unsafe { result::module::get_function(module, name) }
            .map_err(|e| failed(what, "cuModuleGetFunction", device, e))
    };
    Ok(Kernels { device, context, add: function(Kernel::Add)?, sum: function(Kernel::Sum)? })
}

/// A context made current on this thread until dropped (a push, then a pop): the calling
/// thread's own current context, if any, is back afterwards.
struct Current;

impl Current {
    fn push(what: &str, device: Device, context: sys::CUcontext) -> Result<Current> {
        // SAFETY: a primary context retained for the process's life.
        unsafe { sys::cuCtxPushCurrent_v2(context) }
            .result()
            .map_err(|e| failed(what, "cuCtxPushCurrent", device, e))?;
        Ok(Current)
    }
}

impl Drop for Current {
    fn drop(&mut self) {
        let mut popped = core::ptr::null_mut();
        // SAFETY: pops the context `push` made current on this thread (guards drop in order).
        let _ = unsafe { sys::cuCtxPopCurrent_v2(&mut popped) };
    }
}

impl Kernels {
    /// Queues `launch` with `params` (one pointer to each kernel argument, in order) on its
    /// stream, and returns without waiting.
    ///
    /// # Safety
    /// `params` are the arguments `launch.kernel` takes (kernels/kernels.cu), and the
    /// device memory they point to stays allocated until the kernel has run on that stream.
    pub unsafe fn launch(&self, what: &str, launch: &Launch, params: &mut [*mut c_void]) -> Result<()> {
        let function = match launch.kernel {
            Kernel::Add => self.add,
            Kernel::Sum => self.sum,
        };
        let _current = Current::push(what, self.device, self.context)?;
        let stream: sys::CUstream = launch.stream.as_ptr().cast();
        // SAFETY: a function of this context, the caller's stream (null: the legacy
        // default stream), and the arguments the caller vouches for.
        unsafe {
            result::launch_kernel(
                function,
                (launch.grid, 1, 1),
                (launch.block, 1, 1),
                launch.shared_bytes,
                stream,
                params,
            )
        }
        .map_err(|e| failed(what, "cuLaunchKernel", self.device, e))
    }
}
