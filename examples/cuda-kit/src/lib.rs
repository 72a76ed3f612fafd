//! CUDA kernels launched from Rust on the caller's stream. The host code is Rust (the
//! driver API through cudarc, loaded at run time); the kernels are CUDA C compiled ahead to
//! PTX (kernels/kernels.cu, kernels/kernels.ptx), which the driver compiles for the device
//! when the module loads. Every launch is queued on `env::stream(device)`: PyTorch's
//! current stream under torch, `ctx.stream` under jax-tvm-ffi, `tvm_ffi.use_raw_stream`'s,
//! and CUDA's legacy default stream when the caller set none. Nothing waits for a kernel.
//!
//! Without a driver or a GPU the library loads and describes itself as any other; a call
//! fails with a `RuntimeError` saying what is missing ("no CUDA driver").
//!
//! `add` and `sum` allocate their result with `Tensor::empty` on the input's device, which
//! needs the caller's allocator (PyTorch lends its caching allocator; CuPy and plain
//! `__dlpack__` callers lend none, and then the call fails saying so): such callers use
//! `add_into`, which writes into an output they allocated.

mod driver;
pub mod launch;

use core::ffi::c_void;

use abi_core::ffi::device_type;
use abi_core::{env, Device, DeviceTensor, DeviceTensorMut, Error, Result, Tensor};

use crate::launch::{elementwise, reduction, Kernel, Launch};

/// `x + y`, elementwise, in a new tensor on their device (from the caller's allocator:
/// PyTorch's caching allocator under torch).
#[abi_core::export_fn]
pub fn add(x: DeviceTensor<'_, f32, 1>, y: DeviceTensor<'_, f32, 1>) -> Result<Tensor> {
    let what = "cuda_kit.add";
    let (device, n, launch) = add_launch(what, &[operand("x", &x), operand("y", &y)])?;
    let kernels = driver::kernels(what, device)?;
    let out = Tensor::empty::<f32>(x.shape(), device)?;
    if let Some(launch) = launch {
        // SAFETY: add_f32's arguments: three device arrays of `n` f32 (the inputs checked,
        // `out` just allocated compact) on this device, alive until the kernel ran: the
        // inputs are the caller's, and `out` goes back to the caller.
        unsafe { queue_add(what, kernels, &launch, x.data_ptr(), y.data_ptr(), data_of(&out), n)? };
    }
    Ok(out)
}

/// `out = x + y`, elementwise, written into the caller's `out` (refused if it shares
/// memory with `x` or `y`): for callers that lend no allocator (CuPy), and for JAX.
#[abi_core::export_fn(op)]
pub fn add_into(
    x: DeviceTensor<'_, f32, 1>,
    y: DeviceTensor<'_, f32, 1>,
    #[abi(out = x)] mut out: DeviceTensorMut<'_, f32, 1>,
) -> Result<()> {
    add_into_impl("cuda_kit.add_into", &x, &y, &mut out)
}

/// `add_into` for jax-tvm-ffi (`arg_spec=["ctx.stream", "args", "rets"]`), first checking
/// that `env::stream` is the stream XLA gave the call (`stream`), which
/// `TVMFFIEnvSetStream` set.
#[abi_core::export_fn]
pub fn add_into_on(
    stream: i64,
    x: DeviceTensor<'_, f32, 1>,
    y: DeviceTensor<'_, f32, 1>,
    mut out: DeviceTensorMut<'_, f32, 1>,
) -> Result<()> {
    let what = "cuda_kit.add_into_on";
    let current = env::stream(out.device()).as_ptr() as i64;
    if current != stream {
        return Err(Error::value_error(format!(
            "{what}: env::stream({}) is {current:#x}, but the call's stream is {stream:#x}",
            out.device()
        )));
    }
    add_into_impl(what, &x, &y, &mut out)
}

/// The checks and the launch of `add_into` and `add_into_on` (`what` names the export in
/// errors).
fn add_into_impl(
    what: &str,
    x: &DeviceTensor<'_, f32, 1>,
    y: &DeviceTensor<'_, f32, 1>,
    out: &mut DeviceTensorMut<'_, f32, 1>,
) -> Result<()> {
    let out_operand = Operand { name: "out", device: out.device(), numel: out.numel() };
    let (device, n, launch) = add_launch(what, &[operand("x", x), operand("y", y), out_operand])?;
    let kernels = driver::kernels(what, device)?;
    if let Some(launch) = launch {
        // SAFETY: add_f32's arguments: three device arrays of `n` f32 on this device (checked),
        // the caller's, alive until the kernel ran on the caller's stream.
        unsafe { queue_add(what, kernels, &launch, x.data_ptr(), y.data_ptr(), out.data_ptr(), n)? };
    }
    Ok(())
}

/// The sum of `x`'s elements, as a 0-d tensor on its device (from the caller's allocator,
/// as its scratch space for the partial sums). Deterministic: the same input gives the
/// same bits on the same device.
#[abi_core::export_fn]
pub fn sum(x: DeviceTensor<'_, f32, 1>) -> Result<Tensor> {
    let what = "cuda_kit.sum";
    let (device, n) = operands(what, &[operand("x", &x)])?;
    let (first, second) = reduction(n, env::stream(device));
    let kernels = driver::kernels(what, device)?;
    let out = Tensor::empty::<f32>(&[], device)?;
    let out_ptr = data_of(&out);
    match second {
        // SAFETY: sum_f32's arguments: `n` f32 of the caller's on this device, and `out`, one
        // f32 allocated just before on it, alive after the call (the caller's).
        None => unsafe { queue_sum(what, kernels, &first, x.data_ptr(), n, out_ptr)? },
        Some(second) => {
            // Freed when this returns, with the kernels maybe still queued: a stream-ordered
            // allocator (PyTorch's, whose current stream these launches use) reuses the
            // memory only for work queued after them.
            let partials = Tensor::empty::<f32>(&[i64::from(first.grid)], device)?;
            // SAFETY: as above, with `partials` holding one f32 per block of this pass.
            unsafe { queue_sum(what, kernels, &first, x.data_ptr(), n, data_of(&partials))? };
            // SAFETY: the `first.grid` partial sums in, one f32 `out` out.
            unsafe { queue_sum(what, kernels, &second, data_of(&partials), u64::from(first.grid), out_ptr)? };
        }
    }
    Ok(out)
}

/// The launches `kernel` (`"add"`, `"add_into"` or `"sum"`) would queue over `x` (as every
/// operand), in CUDA's spelling (`add_f32<<<grid, block, shared, stream>>>`), without
/// the driver: the configuration and the stream a call would use, here and now.
#[abi_core::export_fn]
pub fn launches(kernel: &str, x: DeviceTensor<'_, f32, 1>) -> Result<Vec<String>> {
    let what = "cuda_kit.launches";
    let plan: Vec<Launch> = match kernel {
        "add" | "add_into" => add_launch(what, &[operand("x", &x)])?.2.into_iter().collect(),
        "sum" => {
            let (device, n) = operands(what, &[operand("x", &x)])?;
            let (first, second) = reduction(n, env::stream(device));
            [Some(first), second].into_iter().flatten().collect()
        }
        other => return Err(Error::value_error(format!("{what}: no kernel {other:?} (add, add_into, sum)"))),
    };
    Ok(plan.iter().map(Launch::to_string).collect())
}

/// A tensor argument as the checks see it.
struct Operand<'n> {
    name: &'n str,
    device: Device,
    numel: usize,
}

fn operand<'n>(name: &'n str, t: &DeviceTensor<'_, f32, 1>) -> Operand<'n> {
    Operand { name, device: t.device(), numel: t.numel() }
}

/// The device and length the operands share: a CUDA device and one length, else a
/// `ValueError` naming the operand.
fn operands(what: &str, all: &[Operand<'_>]) -> Result<(Device, u64)> {
    let first = &all[0];
    if first.device.device_type != device_type::CUDA {
        return Err(Error::value_error(format!(
            "{what}: `{}` is on {}; these kernels take CUDA tensors",
            first.name, first.device
        )));
    }
    for o in &all[1..] {
        if o.device != first.device {
            return Err(Error::value_error(format!(
                "{what}: `{}` is on {} and `{}` on {}",
                o.name, o.device, first.name, first.device
            )));
        }
        if o.numel != first.numel {
            return Err(Error::value_error(format!(
                "{what}: `{}` has {} elements and `{}` {}",
                o.name, o.numel, first.name, first.numel
            )));
        }
    }
    Ok((first.device, first.numel as u64))
}

/// The checked device and length of an elementwise add, and its launch on the caller's
/// stream for that device (none for no elements).
fn add_launch(what: &str, all: &[Operand<'_>]) -> Result<(Device, u64, Option<Launch>)> {
    let (device, n) = operands(what, all)?;
    Ok((device, n, elementwise(Kernel::Add, n, env::stream(device))))
}

/// The first element's address of a tensor this library allocated.
fn data_of(t: &Tensor) -> *mut f32 {
    let dl = t.view().dl_tensor();
    dl.data.cast::<u8>().wrapping_add(dl.byte_offset as usize).cast()
}

/// Queues `add_f32(x, y, out, n)`.
///
/// # Safety
/// As [`driver::Kernels::launch`]: `x`, `y` and `out` hold `n` f32 on the kernels' device.
unsafe fn queue_add(
    what: &str,
    kernels: &driver::Kernels,
    launch: &Launch,
    x: *const f32,
    y: *const f32,
    out: *mut f32,
    n: u64,
) -> Result<()> {
    let (mut x, mut y, mut out, mut n) = (x as u64, y as u64, out as u64, n);
    let mut params = [arg(&mut x), arg(&mut y), arg(&mut out), arg(&mut n)];
    // SAFETY: the caller's promise, for add_f32's four arguments.
    unsafe { kernels.launch(what, launch, &mut params) }
}

/// Queues `sum_f32(x, n, out)`.
///
/// # Safety
/// As [`driver::Kernels::launch`]: `x` holds `n` f32 and `out` `launch.grid` f32 on the
/// kernels' device.
unsafe fn queue_sum(
    what: &str,
    kernels: &driver::Kernels,
    launch: &Launch,
    x: *const f32,
    n: u64,
    out: *mut f32,
) -> Result<()> {
    let (mut x, mut n, mut out) = (x as u64, n, out as u64);
    let mut params = [arg(&mut x), arg(&mut n), arg(&mut out)];
    // SAFETY: the caller's promise, for sum_f32's three arguments.
    unsafe { kernels.launch(what, launch, &mut params) }
}

/// A kernel argument as `cuLaunchKernel` takes it: a pointer to its value.
fn arg(value: &mut u64) -> *mut c_void {
    (value as *mut u64).cast()
}
