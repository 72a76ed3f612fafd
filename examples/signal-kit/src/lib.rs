//! signal-kit: signal and image processing on numpy arrays, exported through the TVM FFI
//! ABI. Arrays arrive as zero-copy tensor views (written in place where the name says
//! so); new arrays are returned as tensors numpy takes with `np.from_dlpack`.

use abi_core::{Error, Result, Tensor, TensorView, TensorViewMut, TypedFunction};
use half::f16;

/// Parameters of [`box_blur`]; from Python a tuple `(radius, passes)`.
#[derive(abi_core::AbiStruct, Debug, Clone, Copy)]
pub struct BlurParams {
    /// Half-width of the box, in pixels.
    pub radius: i64,
    /// How many times the box filter runs.
    pub passes: i64,
}

fn f64_values(x: &TensorView<'_>) -> Result<Vec<f64>> {
    match x.dtype().to_string().as_str() {
        "float32" => Ok(x.as_slice::<f32>()?.iter().map(|&v| v as f64).collect()),
        "float64" => Ok(x.as_slice::<f64>()?.to_vec()),
        "float16" => Ok(x.as_slice::<f16>()?.iter().map(|v| v.to_f64()).collect()),
        "uint8" => Ok(x.as_slice::<u8>()?.iter().map(|&v| v as f64).collect()),
        other => Err(Error::type_error(format!("expected a float32, float64, float16 or uint8 array, got {other}"))),
    }
}

/// Returns `values` as a tensor of `x`'s float dtype (float64 for anything else).
fn like(x: &TensorView<'_>, values: Vec<f64>, shape: &[i64]) -> Result<Tensor> {
    match x.dtype().to_string().as_str() {
        "float32" => Tensor::from_vec(values.into_iter().map(|v| v as f32).collect(), shape),
        "float16" => Tensor::from_vec(values.into_iter().map(f16::from_f64).collect(), shape),
        _ => Tensor::from_vec(values, shape),
    }
}

/// Multiplies every element of a float32/float64 array by `factor`, in place. Other dtypes
/// raise `TypeError`.
#[abi_core::export_fn]
pub fn scale_inplace(mut x: TensorViewMut<'_>, factor: f64) -> Result<()> {
    match x.dtype().to_string().as_str() {
        "float32" => x.as_mut_slice::<f32>()?.iter_mut().for_each(|v| *v *= factor as f32),
        "float64" => x.as_mut_slice::<f64>()?.iter_mut().for_each(|v| *v *= factor),
        other => return Err(Error::type_error(format!("scale_inplace needs float32 or float64, got {other}"))),
    }
    Ok(())
}

/// Clamps every element of a float32/float64 array into `[lo, hi]`, in place; returns how
/// many elements changed. Other dtypes raise `TypeError`; `lo > hi` or a NaN bound raises
/// `ValueError`.
#[abi_core::export_fn]
pub fn clamp_inplace(mut x: TensorViewMut<'_>, lo: f64, hi: f64) -> Result<i64> {
    // NaN bounds would make `f64::clamp` panic.
    if lo.is_nan() || hi.is_nan() || lo > hi {
        return Err(Error::value_error(format!("lo ({lo}) must not exceed hi ({hi}), and neither may be NaN")));
    }
    let mut changed = 0;
    let mut clamp = |v: f64| {
        let c = v.clamp(lo, hi);
        changed += (c != v) as i64;
        c
    };
    match x.dtype().to_string().as_str() {
        "float32" => x.as_mut_slice::<f32>()?.iter_mut().for_each(|v| *v = clamp(*v as f64) as f32),
        "float64" => x.as_mut_slice::<f64>()?.iter_mut().for_each(|v| *v = clamp(*v)),
        other => return Err(Error::type_error(format!("clamp_inplace needs float32 or float64, got {other}"))),
    }
    Ok(changed)
}

/// Moving average of a 1-D array over `window` samples (default 3); returns a new array
/// of the same float dtype and `len - window + 1` samples. Dtypes other than float16/32/64
/// and uint8 raise `TypeError`; another rank, or a window outside `1..=len`, `ValueError`.
#[abi_core::export_fn]
pub fn moving_average(x: TensorView<'_>, window: Option<i64>) -> Result<Tensor> {
    let window = window.unwrap_or(3);
    if x.ndim() != 1 {
        return Err(Error::value_error(format!("moving_average needs a 1-D array, got {} dimensions", x.ndim())));
    }
    let values = f64_values(&x)?;
    if window < 1 || window as usize > values.len() {
        return Err(Error::value_error(format!("window {window} does not fit {} samples", values.len())));
    }
    let w = window as usize;
    let out: Vec<f64> = values.windows(w).map(|s| s.iter().sum::<f64>() / w as f64).collect();
    let n = out.len() as i64;
    like(&x, out, &[n])
}

/// Zero-mean, unit-variance copy of `x` as float32. Dtypes other than float16/32/64 and
/// uint8 raise `TypeError`; an empty array raises `ValueError`.
#[abi_core::export_fn]
pub fn normalize(x: TensorView<'_>) -> Result<Tensor> {
    let values = f64_values(&x)?;
    if values.is_empty() {
        return Err(Error::value_error("cannot normalize an empty array"));
    }
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let std = (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n).sqrt();
    let scale = if std > 0.0 { 1.0 / std } else { 1.0 };
    Tensor::from_vec(values.iter().map(|v| ((v - mean) * scale) as f32).collect(), x.shape())
}

/// Luma of an `H x W x 3` uint8 RGB image (ITU-R BT.601 weights), as `H x W` uint8.
/// Another shape raises `ValueError`; another dtype `TypeError`.
#[abi_core::export_fn]
pub fn to_grayscale(image: TensorView<'_>) -> Result<Tensor> {
    let shape = image.shape();
    if shape.len() != 3 || shape[2] != 3 {
        return Err(Error::value_error(format!("to_grayscale needs an H x W x 3 image, got shape {shape:?}")));
    }
    let rgb = image.as_slice::<u8>()?;
    let gray = rgb
        .chunks_exact(3)
        .map(|p| (0.299 * p[0] as f64 + 0.587 * p[1] as f64 + 0.114 * p[2] as f64).round() as u8)
        .collect();
    Tensor::from_vec(gray, &shape[..2])
}

/// The most blur passes one call accepts (each pass is a full sweep of the image).
pub const MAX_BLUR_PASSES: i64 = 64;
/// The most histogram buckets one call accepts.
pub const MAX_HISTOGRAM_BINS: i64 = 4096;

/// Box blur of an `H x W` float32 image with `params = (radius, passes)`; `passes` is at
/// most [`MAX_BLUR_PASSES`]. Another rank, a negative radius or too many passes raise
/// `ValueError`; another dtype `TypeError`.
#[abi_core::export_fn]
pub fn box_blur(image: TensorView<'_>, params: BlurParams) -> Result<Tensor> {
    let shape = image.shape();
    if shape.len() != 2 {
        return Err(Error::value_error(format!("box_blur needs an H x W image, got shape {shape:?}")));
    }
    if params.radius < 0 || !(0..=MAX_BLUR_PASSES).contains(&params.passes) {
        return Err(Error::value_error(format!(
            "radius must not be negative and passes must be in 0..={MAX_BLUR_PASSES}, got ({}, {})",
            params.radius, params.passes
        )));
    }
    let (h, w) = (shape[0] as usize, shape[1] as usize);
    // A radius past the image's extent averages the same pixels as the extent itself.
    let r = params.radius.min(h.max(w) as i64) as isize;
    let mut img: Vec<f32> = image.as_slice::<f32>()?.to_vec();
    for _ in 0..params.passes {
        let src = img.clone();
        for y in 0..h as isize {
            for x in 0..w as isize {
                let (mut sum, mut n) = (0.0f32, 0.0f32);
                for dy in -r..=r {
                    for dx in -r..=r {
                        let (yy, xx) = (y + dy, x + dx);
                        if yy >= 0 && xx >= 0 && (yy as usize) < h && (xx as usize) < w {
                            sum += src[yy as usize * w + xx as usize];
                            n += 1.0;
                        }
                    }
                }
                img[y as usize * w + x as usize] = sum / n;
            }
        }
    }
    Tensor::from_vec(img, shape)
}

/// A float16 copy of `x`. Values beyond the float16 range raise `ValueError`; dtypes other
/// than float16/32/64 and uint8 `TypeError`.
#[abi_core::export_fn]
pub fn to_half(x: TensorView<'_>) -> Result<Tensor> {
    let values = f64_values(&x)?;
    if let Some(v) = values.iter().find(|v| v.is_finite() && v.abs() > f16::MAX.to_f64()) {
        return Err(Error::value_error(format!("{v} does not fit float16")));
    }
    Tensor::from_vec(values.into_iter().map(f16::from_f64).collect(), x.shape())
}

/// A one-line summary: count, min, max and a `bins`-bucket histogram. `bins` outside
/// `1..=`[`MAX_HISTOGRAM_BINS`] raises `ValueError`; dtypes other than float16/32/64 and
/// uint8 `TypeError`.
#[abi_core::export_fn]
pub fn histogram_summary(x: TensorView<'_>, bins: i64) -> Result<String> {
    let values = f64_values(&x)?;
    if !(1..=MAX_HISTOGRAM_BINS).contains(&bins) {
        return Err(Error::value_error(format!("bins must be in 1..={MAX_HISTOGRAM_BINS}, got {bins}")));
    }
    let (lo, hi) = values.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &v| (l.min(v), h.max(v)));
    if values.is_empty() {
        return Ok("n=0".to_owned());
    }
    let mut counts = vec![0u64; bins as usize];
    for v in &values {
        let i = if hi > lo { (((v - lo) / (hi - lo)) * bins as f64) as usize } else { 0 };
        counts[i.min(bins as usize - 1)] += 1;
    }
    Ok(format!("n={} min={lo} max={hi} hist={counts:?}", values.len()))
}

/// Adler-32 checksum of `data`.
#[abi_core::export_fn]
pub fn checksum(data: &[u8]) -> u32 {
    let (mut a, mut b) = (1u32, 0u32);
    for &byte in data {
        a = (a + byte as u32) % 65521;
        b = (b + a) % 65521;
    }
    (b << 16) | a
}

/// Applies `f` to every element of a float64 array, returning a new array. Another dtype
/// raises `TypeError`; an error raised by `f` comes back unchanged.
#[abi_core::export_fn]
pub fn apply(x: TensorView<'_>, f: TypedFunction<fn(f64) -> f64>) -> Result<Tensor> {
    let out = x.as_slice::<f64>()?.iter().map(|&v| f.call(v)).collect::<Result<Vec<f64>>>()?;
    Tensor::from_vec(out, x.shape())
}

/// A progress callback: `progress(done, total)`.
pub type Progress = TypedFunction<fn(i64, i64)>;

/// Sums `x` in chunks of `chunk` elements, reporting `progress(done, total)` after each.
/// A `chunk` below 1 raises `ValueError`; dtypes other than float16/32/64 and uint8
/// `TypeError`; an error raised by `progress` comes back unchanged.
#[abi_core::export_fn]
pub fn chunked_sum(x: TensorView<'_>, chunk: i64, progress: Option<Progress>) -> Result<f64> {
    if chunk < 1 {
        return Err(Error::value_error(format!("chunk must be positive, got {chunk}")));
    }
    let values = f64_values(&x)?;
    let total = values.len() as i64;
    let mut sum = 0.0;
    for (i, part) in values.chunks(chunk as usize).enumerate() {
        sum += part.iter().sum::<f64>();
        if let Some(p) = &progress {
            p.call(((i as i64 + 1) * chunk).min(total), total)?;
        }
    }
    Ok(sum)
}
