//! Framework ops: kernels in destination-passing form (`#[abi_core::export_fn(op)]`), each
//! output declared with the rule that gives its shape, so a generated Python package can
//! allocate outputs and register each kernel as a torch custom op and a JAX FFI target.
//! `scale_rows` has a backward (`scale_rows_bwd`), `relu_` and `axpy_` work in place, `matmul`
//! and `minmax` take their output shapes from input axes, `ramp` from a scalar; `quad` and
//! `power` have backwards and scalars between their inputs and outputs, and after the outputs;
//! `strides_of` takes a `StridedTensor` (any layout, never copied); `activate` (with a
//! backward) takes a fieldless enum as its scalar, which crosses as its name: a string to
//! torch schemas and JAX attributes.

use abi_core::{Error, HostTensor, HostTensorMut, Result, StridedTensor};

/// Refuses an output whose shape is not the one its rule gives.
fn check_shape(name: &str, got: &[i64], want: &[usize]) -> Result<()> {
    if got.len() == want.len() && got.iter().zip(want).all(|(&g, &w)| g == w as i64) {
        return Ok(());
    }
    Err(Error::value_error(format!("`{name}` has shape {got:?}, expected {want:?}")))
}

/// `y[i][j] = x[i][j] * k[j]`: each row of `x` scaled by `k`.
#[abi_core::export_fn(op, backward = scale_rows_bwd)]
pub fn scale_rows(
    x: HostTensor<'_, f64, 2>,
    k: HostTensor<'_, f64, 1>,
    #[abi(out = x)] mut y: HostTensorMut<'_, f64, 2>,
) -> Result<()> {
    let [rows, cols] = x.dims();
    check_shape("k", k.shape(), &[cols])?;
    check_shape("y", y.shape(), &[rows, cols])?;
    let k = k.as_slice();
    for (out, row) in y.as_mut_slice().chunks_exact_mut(cols.max(1)).zip(x.as_slice().chunks_exact(cols.max(1))) {
        for ((o, a), b) in out.iter_mut().zip(row).zip(k) {
            *o = a * b;
        }
    }
    Ok(())
}

/// The gradients of [`scale_rows`]: `dx = dy * k` row by row, `dk[j] = sum_i dy[i][j] * x[i][j]`.
#[abi_core::export_fn(op)]
pub fn scale_rows_bwd(
    x: HostTensor<'_, f64, 2>,
    k: HostTensor<'_, f64, 1>,
    dy: HostTensor<'_, f64, 2>,
    #[abi(out = x)] mut dx: HostTensorMut<'_, f64, 2>,
    #[abi(out = k)] mut dk: HostTensorMut<'_, f64, 1>,
) -> Result<()> {
    let [rows, cols] = x.dims();
    check_shape("k", k.shape(), &[cols])?;
    check_shape("dy", dy.shape(), &[rows, cols])?;
    check_shape("dx", dx.shape(), &[rows, cols])?;
    check_shape("dk", dk.shape(), &[cols])?;
    let (x, k, dy) = (x.as_slice(), k.as_slice(), dy.as_slice());
    let dk = dk.as_mut_slice();
    dk.fill(0.0);
    for (i, out) in dx.as_mut_slice().chunks_exact_mut(cols.max(1)).enumerate().take(rows) {
        for j in 0..cols {
            let g = dy[i * cols + j];
            out[j] = g * k[j];
            dk[j] += g * x[i * cols + j];
        }
    }
    Ok(())
}

/// `x = max(x, 0)`, in place.
#[abi_core::export_fn(op)]
pub fn relu_(#[abi(inout)] mut x: HostTensorMut<'_, f32, 2>) -> Result<()> {
    for v in x.as_mut_slice() {
        *v = v.max(0.0);
    }
    Ok(())
}

/// `y += alpha * x`, `y` in place.
#[abi_core::export_fn(op)]
pub fn axpy_(x: HostTensor<'_, f64, 1>, alpha: f64, #[abi(inout)] mut y: HostTensorMut<'_, f64, 1>) -> Result<()> {
    check_shape("y", y.shape(), &[x.numel()])?;
    for (o, a) in y.as_mut_slice().iter_mut().zip(x.as_slice()) {
        *o += alpha * a;
    }
    Ok(())
}

/// `c = a @ b`.
#[abi_core::export_fn(op)]
pub fn matmul(
    a: HostTensor<'_, f32, 2>,
    b: HostTensor<'_, f32, 2>,
    #[abi(out = [a.0, b.1])] mut c: HostTensorMut<'_, f32, 2>,
) -> Result<()> {
    let ([m, k], [k2, n]) = (a.dims(), b.dims());
    if k != k2 {
        return Err(Error::value_error(format!("`a` has {k} columns but `b` has {k2} rows")));
    }
    check_shape("c", c.shape(), &[m, n])?;
    let (a, b) = (a.as_slice(), b.as_slice());
    let c = c.as_mut_slice();
    c.fill(0.0);
    for i in 0..m {
        for p in 0..k {
            let aip = a[i * k + p];
            for j in 0..n {
                c[i * n + j] += aip * b[p * n + j];
            }
        }
    }
    Ok(())
}

/// `y[i] = i * step` for `i` in `0..n`.
#[abi_core::export_fn(op)]
pub fn ramp(n: i64, step: f64, #[abi(out = [n])] mut y: HostTensorMut<'_, f64, 1>) -> Result<()> {
    let n = usize::try_from(n).map_err(|_| Error::value_error(format!("`n` is negative: {n}")))?;
    check_shape("y", y.shape(), &[n])?;
    for (i, v) in y.as_mut_slice().iter_mut().enumerate() {
        *v = i as f64 * step;
    }
    Ok(())
}

/// The smallest and the largest element of each row of `x`.
#[abi_core::export_fn(op)]
pub fn minmax(
    x: HostTensor<'_, f32, 2>,
    #[abi(out = [x.0])] mut lo: HostTensorMut<'_, f32, 1>,
    #[abi(out = [x.0])] mut hi: HostTensorMut<'_, f32, 1>,
) -> Result<()> {
    let [rows, cols] = x.dims();
    if cols == 0 {
        return Err(Error::value_error("`x` has no columns: a row has no smallest element"));
    }
    check_shape("lo", lo.shape(), &[rows])?;
    check_shape("hi", hi.shape(), &[rows])?;
    let (lo, hi) = (lo.as_mut_slice(), hi.as_mut_slice());
    for (i, row) in x.as_slice().chunks_exact(cols).enumerate() {
        lo[i] = row.iter().copied().fold(f32::INFINITY, f32::min);
        hi[i] = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    }
    Ok(())
}

/// `y = a * x * x`, element by element: a scalar between the inputs and the outputs.
#[abi_core::export_fn(op, backward = quad_bwd)]
pub fn quad(x: HostTensor<'_, f64, 1>, a: f64, #[abi(out = x)] mut y: HostTensorMut<'_, f64, 1>) -> Result<()> {
    check_shape("y", y.shape(), &[x.numel()])?;
    for (o, v) in y.as_mut_slice().iter_mut().zip(x.as_slice()) {
        *o = a * v * v;
    }
    Ok(())
}

/// The gradient of [`quad`]: `dx = 2 * a * x * dy`; its scalar stands where the forward's does.
#[abi_core::export_fn(op)]
pub fn quad_bwd(
    x: HostTensor<'_, f64, 1>,
    dy: HostTensor<'_, f64, 1>,
    a: f64,
    #[abi(out = x)] mut dx: HostTensorMut<'_, f64, 1>,
) -> Result<()> {
    check_shape("dy", dy.shape(), &[x.numel()])?;
    check_shape("dx", dx.shape(), &[x.numel()])?;
    for ((o, v), g) in dx.as_mut_slice().iter_mut().zip(x.as_slice()).zip(dy.as_slice()) {
        *o = 2.0 * a * v * g;
    }
    Ok(())
}

/// `y = a * x^n`, element by element: scalars after the outputs.
#[abi_core::export_fn(op, backward = power_bwd)]
pub fn power(
    x: HostTensor<'_, f64, 1>,
    #[abi(out = x)] mut y: HostTensorMut<'_, f64, 1>,
    a: f64,
    n: i64,
) -> Result<()> {
    check_shape("y", y.shape(), &[x.numel()])?;
    let n = i32::try_from(n).map_err(|_| Error::value_error(format!("`n` is out of range: {n}")))?;
    for (o, v) in y.as_mut_slice().iter_mut().zip(x.as_slice()) {
        *o = a * v.powi(n);
    }
    Ok(())
}

/// The gradient of [`power`]: `dx = a * n * x^(n-1) * dy`; its scalars after its outputs.
#[abi_core::export_fn(op)]
pub fn power_bwd(
    x: HostTensor<'_, f64, 1>,
    dy: HostTensor<'_, f64, 1>,
    #[abi(out = x)] mut dx: HostTensorMut<'_, f64, 1>,
    a: f64,
    n: i64,
) -> Result<()> {
    check_shape("dy", dy.shape(), &[x.numel()])?;
    check_shape("dx", dx.shape(), &[x.numel()])?;
    let n = i32::try_from(n).map_err(|_| Error::value_error(format!("`n` is out of range: {n}")))?;
    for ((o, v), g) in dx.as_mut_slice().iter_mut().zip(x.as_slice()).zip(dy.as_slice()) {
        *o = a * f64::from(n) * v.powi(n - 1) * g;
    }
    Ok(())
}

/// The strides of `x`, in elements: a `StridedTensor` takes any layout as it is (a
/// transposed view's strides are `[1, rows]`), where a `HostTensor` needs compact data.
#[abi_core::export_fn(op)]
pub fn strides_of(x: StridedTensor<'_, f64, 2>, #[abi(out = [2])] mut s: HostTensorMut<'_, i64, 1>) -> Result<()> {
    check_shape("s", s.shape(), &[2])?;
    for (o, v) in s.as_mut_slice().iter_mut().zip(x.strides()) {
        *o = v as i64;
    }
    Ok(())
}

/// `y[i, labels[i]] = 1`, every other element 0: an int64 input and a float32 result (its
/// dtype is the op's own, not its input's), shaped by the input and a scalar.
#[abi_core::export_fn(op)]
pub fn one_hot(
    labels: HostTensor<'_, i64, 1>,
    n_classes: i64,
    #[abi(out = [labels.0, n_classes])] mut y: HostTensorMut<'_, f32, 2>,
) -> Result<()> {
    let classes =
        usize::try_from(n_classes).map_err(|_| Error::value_error(format!("`n_classes` is negative: {n_classes}")))?;
    check_shape("y", y.shape(), &[labels.numel(), classes])?;
    let y = y.as_mut_slice();
    y.fill(0.0);
    for (i, &label) in labels.as_slice().iter().enumerate() {
        let class = usize::try_from(label)
            .ok()
            .filter(|&c| c < classes)
            .ok_or_else(|| Error::value_error(format!("`labels[{i}]` = {label} is outside 0..{n_classes}")))?;
        y[i * classes + class] = 1.0;
    }
    Ok(())
}

/// The activation [`activate`] applies.
#[derive(abi_core::AbiEnum, Debug, Clone, Copy, PartialEq, Eq)]
#[abi(rename_all = "lowercase")]
pub enum Activation {
    /// `max(x, 0)`.
    Relu,
    /// `tanh(x)`.
    Tanh,
    /// `1 / (1 + exp(-x))`.
    Sigmoid,
}

/// `y = f(x)`, element by element, `f` the activation `kind`: an enum scalar, which torch
/// and JAX carry as its name (a string).
#[abi_core::export_fn(op, backward = activate_bwd)]
pub fn activate(
    x: HostTensor<'_, f32, 2>,
    kind: Activation,
    #[abi(out = x)] mut y: HostTensorMut<'_, f32, 2>,
) -> Result<()> {
    check_shape("y", y.shape(), &x.dims())?;
    for (o, &v) in y.as_mut_slice().iter_mut().zip(x.as_slice()) {
        *o = match kind {
            Activation::Relu => v.max(0.0),
            Activation::Tanh => v.tanh(),
            Activation::Sigmoid => 1.0 / (1.0 + (-v).exp()),
        };
    }
    Ok(())
}

/// The gradient of [`activate`]: `dx = f'(x) * dy` (`f'` taken as 0 at 0 for `relu`).
#[abi_core::export_fn(op)]
pub fn activate_bwd(
    x: HostTensor<'_, f32, 2>,
    dy: HostTensor<'_, f32, 2>,
    kind: Activation,
    #[abi(out = x)] mut dx: HostTensorMut<'_, f32, 2>,
) -> Result<()> {
    check_shape("dy", dy.shape(), &x.dims())?;
    check_shape("dx", dx.shape(), &x.dims())?;
    for ((o, &v), &g) in dx.as_mut_slice().iter_mut().zip(x.as_slice()).zip(dy.as_slice()) {
        let slope = match kind {
            Activation::Relu => f32::from(u8::from(v > 0.0)),
            Activation::Tanh => 1.0 - v.tanh() * v.tanh(),
            Activation::Sigmoid => {
                let s = 1.0 / (1.0 + (-v).exp());
                s * (1.0 - s)
            }
        };
        *o = slope * g;
    }
    Ok(())
}
