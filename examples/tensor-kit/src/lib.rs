//! Kernels over typed tensors. Each parameter's element type and rank are in its Rust
//! type, so the shim checks them (and the device and layout) before the body runs, and a
//! wrong array is refused with a message naming the function and the parameter. Compact
//! arrays come as slices (`HostTensor`), arrays of any strides (`x.T`, `x[:, ::2]`) by
//! index (`StridedTensor`), and other dtypes converted on request (`HostTensorAs`).

use abi_core::half::f16;
use abi_core::{
    env, Device, DeviceTensor, Error, HostTensor, HostTensorAs, HostTensorMut, Result, StridedTensor, StridedTensorMut,
    Tensor,
};

/// `out[i][j] = x[i][j] * w[j]`: each row of `x` scaled by the weights `w`.
#[abi_core::export_fn]
pub fn scale_rows(x: HostTensor<'_, f32, 2>, w: HostTensor<'_, f32, 1>) -> Result<Tensor> {
    let [rows, cols] = x.dims();
    if w.numel() != cols {
        return Err(Error::value_error(format!("`w` has {} weights for {cols} columns", w.numel())));
    }
    let mut out = Vec::with_capacity(rows * cols);
    for row in x.as_slice().chunks_exact(cols.max(1)) {
        out.extend(row.iter().zip(w.as_slice()).map(|(a, b)| a * b));
    }
    Tensor::from_vec(out, &[rows as i64, cols as i64])
}

/// out = x * w per row, written into the caller's `out` (refused if it shares memory with
/// `x` or `w`). Also the global `tensor_kit.scale_rows_into`, in destination-passing style
/// for Apache TVM programs (`R.call_dps_packed`, `T.call_packed`).
#[abi_core::export_fn(global = "tensor_kit.scale_rows_into")]
pub fn scale_rows_into(
    x: HostTensor<'_, f32, 2>,
    w: HostTensor<'_, f32, 1>,
    mut out: HostTensorMut<'_, f32, 2>,
) -> Result<()> {
    let [rows, cols] = x.dims();
    if w.numel() != cols || out.dims() != [rows, cols] {
        return Err(Error::value_error(format!(
            "`w` has {} weights and `out` shape {:?} for x of shape [{rows}, {cols}]",
            w.numel(),
            out.shape()
        )));
    }
    let rows_in = x.as_slice().chunks_exact(cols.max(1));
    for (row_out, row_in) in out.as_mut_slice().chunks_exact_mut(cols.max(1)).zip(rows_in) {
        row_out.iter_mut().zip(row_in.iter().zip(w.as_slice())).for_each(|(o, (a, b))| *o = a * b);
    }
    Ok(())
}

/// The sums of the rows of a float64 matrix of any strides: `x.T` gives the column sums of
/// `x`, `x[::-1]` the row sums reversed.
#[abi_core::export_fn]
pub fn strided_row_sums(x: StridedTensor<'_, f64, 2>) -> Vec<f64> {
    let [rows, cols] = x.dims();
    (0..rows).map(|i| (0..cols).map(|j| x[[i, j]]).sum()).collect()
}

/// out = factor * x, element by element, both of any strides (`out` may be `buf[:, ::2]`
/// while `x` is `buf[:, 1::2]`: they interleave without sharing an element).
#[abi_core::export_fn]
pub fn scale_strided_into(
    x: StridedTensor<'_, f32, 2>,
    factor: f32,
    mut out: StridedTensorMut<'_, f32, 2>,
) -> Result<()> {
    if x.dims() != out.dims() {
        return Err(Error::value_error(format!("`out` has shape {:?} for x of shape {:?}", out.shape(), x.shape())));
    }
    out.iter_mut().zip(x.iter()).for_each(|(o, &v)| *o = factor * v);
    Ok(())
}

/// factor * x as float32, for an `x` of float32 (not copied) or any dtype numpy's
/// same_kind casting takes to float32 (converted first): `np.arange(6.0)` included.
#[abi_core::export_fn]
pub fn scale_as_f32(x: HostTensorAs<'_, f32, 1>, factor: f32) -> Result<Tensor> {
    Tensor::from_vec(x.as_slice().iter().map(|v| v * factor).collect(), x.shape())
}

/// `x` as int32, converted as `x.astype(np.int32)` would be, for any dtype numpy's
/// same_kind casting takes to int32 (bools and integers, not floats).
#[abi_core::export_fn]
pub fn as_i32(x: HostTensorAs<'_, i32, 1>) -> Result<Tensor> {
    Tensor::from_vec(x.as_slice().to_vec(), x.shape())
}

/// The sum of a float16 vector, accumulated in f32.
#[abi_core::export_fn]
pub fn half_sum(x: HostTensor<'_, f16, 1>) -> f32 {
    x.as_slice().iter().map(|v| v.to_f32()).sum()
}

/// The number of elements of an int64 matrix per row (its shape as the body sees it).
#[abi_core::export_fn]
pub fn row_lengths(x: HostTensor<'_, i64, 2>) -> Vec<i64> {
    let [rows, cols] = x.dims();
    vec![cols as i64; rows]
}

/// Where a device kernel would launch: the device (`cpu:0`, `cuda:1`) and the data
/// address of a float32 vector, without touching its elements.
#[abi_core::export_fn]
pub fn launch_site(x: DeviceTensor<'_, f32, 1>) -> (String, i64) {
    (x.device().to_string(), x.data_ptr() as i64)
}

/// The caller's stream for `device`, as an address (0 when none is set): where a kernel on
/// that device would be launched.
#[abi_core::export_fn]
pub fn current_stream(device: Device) -> i64 {
    env::stream(device).as_ptr() as i64
}

/// The stream a kernel over `x` would launch on: the caller's for `x`'s device.
#[abi_core::export_fn]
pub fn launch_stream(x: DeviceTensor<'_, f32, 1>) -> i64 {
    env::stream(x.device()).as_ptr() as i64
}

/// `n` ones (float32, CPU), in memory the caller's framework allocated when it lends an
/// allocator (a numpy-backed Rust allocation otherwise).
#[abi_core::export_fn]
pub fn ones(n: i64) -> Result<Tensor> {
    let mut t = Tensor::empty::<f32>(&[n], Device::CPU)?;
    t.as_mut_slice::<f32>()?.fill(1.0);
    Ok(t)
}

/// A float32 tensor shaped like `x` on `x`'s device, from the caller's allocator (zeros on
/// the host; a device kernel would write it).
#[abi_core::export_fn]
pub fn empty_like(x: DeviceTensor<'_, f32, 1>) -> Result<Tensor> {
    Tensor::empty::<f32>(x.shape(), x.device())
}

/// Counts to `n`, checking every 4096 steps whether Ctrl-C arrived (then Python raises
/// `KeyboardInterrupt`). A long loop: Python callers release the GIL while it runs, so
/// their other threads go on (`gil = "release"`; a call taking only numbers keeps it).
#[abi_core::export_fn(gil = "release")]
pub fn spin(n: i64) -> Result<i64> {
    let mut count = 0i64;
    for i in 0..n {
        if i % 4096 == 0 {
            env::check_signals()?;
        }
        count = std::hint::black_box(count + 1);
    }
    Ok(count)
}
