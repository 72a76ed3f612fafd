//! [`HostTensorAs`]: a typed host tensor parameter that also takes the dtypes numpy's
//! `same_kind` casting takes to its element type, converted into a buffer of its own (as
//! rust-numpy's `PyArrayLike<T, D, AllowTypeChange>`), so a `float32` kernel can be called
//! with `np.arange(6.0)`. The conversion is in the parameter's type, and in the published
//! `type_schema` (`"cast":"same_kind"`), never implied.

use std::borrow::Cow;

use half::{bf16, f16};

use crate::ffi::{code, DataType, Device};
use crate::tensor::layout::{Layout, Offsets};
use crate::tensor::{Element, TensorView};
use crate::value::error::{kind, Error, Result};

/// An element type a [`HostTensorAs`] converts other dtypes into: the integers and floats
/// of [`Element`]. Conversions are numpy's `astype`'s: integers wrap to a narrower width,
/// floats round to the nearest (overflowing to infinity), integers become the nearest float.
pub trait CastElement: Element {
    #[doc(hidden)]
    fn from_i64(v: i64) -> Self;
    #[doc(hidden)]
    fn from_u64(v: u64) -> Self;
    #[doc(hidden)]
    fn from_f64(v: f64) -> Self;
}

macro_rules! cast_primitive {
    ($($t:ty),*) => {$(
        impl CastElement for $t {
            #[inline(always)]
            fn from_i64(v: i64) -> $t {
                v as $t
            }
            #[inline(always)]
            fn from_u64(v: u64) -> $t {
                v as $t
            }
            #[inline(always)]
            fn from_f64(v: f64) -> $t {
                v as $t
            }
        }
    )*};
}

cast_primitive!(i8, i16, i32, i64, u8, u16, u32, u64, f32, f64);

macro_rules! cast_half {
    ($($t:ty),*) => {$(
        impl CastElement for $t {
            // Through f64: exact below 2^53, and a 16-bit float holds no integer that large
            // but as infinity (f16) or rounded to 8 bits (bf16, where rounding twice may
            // differ from rounding once by one unit in the last place).
            #[inline(always)]
            fn from_i64(v: i64) -> $t {
                <$t>::from_f64(v as f64)
            }
            #[inline(always)]
            fn from_u64(v: u64) -> $t {
                <$t>::from_f64(v as f64)
            }
            #[inline(always)]
            fn from_f64(v: f64) -> $t {
                <$t>::from_f64(v)
            }
        }
    )*};
}

cast_half!(f16, bf16);

/// A read-only tensor in host-accessible memory with elements of type `T` and rank `N`,
/// that takes an argument of dtype `T` as [`HostTensor`](crate::HostTensor) does (borrowed,
/// no copy) and one of another dtype numpy's `same_kind` casting takes to `T` by converting
/// it into a buffer of its own: `float64` into a `float32` parameter, any integer into a
/// float one, `int64` into `int8` (wrapping, as `astype` does). Floats into integers and
/// signed into unsigned integers are refused (`same_kind` refuses them), as are complex
/// numbers. An argument of dtype `T` that is not compact row-major is copied too, so
/// [`as_slice`](HostTensorAs::as_slice) always gives the elements row-major.
///
/// The conversion is a copy of every element, on each call: a parameter taking the exact
/// dtype ([`HostTensor`](crate::HostTensor)) tells callers to convert once instead.
#[derive(Clone)]
pub struct HostTensorAs<'a, T: CastElement, const N: usize> {
    view: TensorView<'a>,
    data: Cow<'a, [T]>,
}

impl<'a, T: CastElement, const N: usize> HostTensorAs<'a, T, N> {
    /// Checks `view` (rank `N`, host-accessible, a dtype that casts to `T`) and borrows its
    /// elements when they are compact `T`, or converts them (checking the layout as
    /// [`StridedTensor`](crate::StridedTensor) does).
    pub fn new(view: TensorView<'a>) -> Result<HostTensorAs<'a, T, N>> {
        let dtype = view.dtype();
        if view.ndim() != N || !dtype.casts_same_kind(T::DTYPE) {
            return Err(wrong_cast::<T>(&view, N));
        }
        if !view.device().is_host_accessible() {
            return Err(view.not_host_accessible());
        }
        if dtype == T::DTYPE && view.is_contiguous() {
            let data = view.data_ptr::<T>()?;
            // SAFETY: checked type, host memory, contiguity and alignment; `numel` elements
            // live for 'a, read-only while the view is (the type's contract).
            let data = unsafe { core::slice::from_raw_parts(data, view.numel()) };
            return Ok(HostTensorAs { view, data: Cow::Borrowed(data) });
        }
        let data = match (dtype.code, dtype.bits) {
            (code::BOOL, _) => gather::<u8, T, N>(&view, |v| T::from_u64(u64::from(v != 0))),
            (code::INT, 8) => gather::<i8, T, N>(&view, |v| T::from_i64(v.into())),
            (code::INT, 16) => gather::<i16, T, N>(&view, |v| T::from_i64(v.into())),
            (code::INT, 32) => gather::<i32, T, N>(&view, |v| T::from_i64(v.into())),
            (code::INT, _) => gather::<i64, T, N>(&view, T::from_i64),
            (code::UINT, 8) => gather::<u8, T, N>(&view, |v| T::from_u64(v.into())),
            (code::UINT, 16) => gather::<u16, T, N>(&view, |v| T::from_u64(v.into())),
            (code::UINT, 32) => gather::<u32, T, N>(&view, |v| T::from_u64(v.into())),
            (code::UINT, _) => gather::<u64, T, N>(&view, T::from_u64),
            (code::BFLOAT, _) => gather::<bf16, T, N>(&view, |v| T::from_f64(v.to_f64())),
            (_, 16) => gather::<f16, T, N>(&view, |v| T::from_f64(v.to_f64())),
            (_, 32) => gather::<f32, T, N>(&view, |v| T::from_f64(v.into())),
            _ => gather::<f64, T, N>(&view, T::from_f64),
        }?;
        Ok(HostTensorAs { view, data: Cow::Owned(data) })
    }

    /// The elements as `T`, row-major.
    pub fn as_slice(&self) -> &[T] {
        &self.data
    }

    /// Whether the elements were copied (another dtype, or not compact row-major) rather
    /// than borrowed from the argument.
    pub fn is_converted(&self) -> bool {
        matches!(self.data, Cow::Owned(_))
    }

    /// The argument's dtype, before any conversion.
    pub fn source_dtype(&self) -> DataType {
        self.view.dtype()
    }

    /// The dimensions, as [`TensorView::shape`] gives them.
    pub fn shape(&self) -> &'a [i64] {
        self.view.shape()
    }

    /// The dimensions as an array, for indexing: `let [rows, cols] = x.dims();`.
    pub fn dims(&self) -> [usize; N] {
        let mut out = [0; N];
        for (o, &d) in out.iter_mut().zip(self.view.shape()) {
            *o = d as usize; // checked: not negative
        }
        out
    }

    /// The number of elements.
    pub fn numel(&self) -> usize {
        self.data.len()
    }

    /// The device of the argument (host-accessible).
    pub fn device(&self) -> Device {
        self.view.device()
    }

    /// The argument, untyped.
    pub fn view(&self) -> TensorView<'a> {
        self.view
    }
}

/// The elements of `view`, read as `S` in row-major order and converted by `f`.
fn gather<S: Copy, T, const N: usize>(view: &TensorView<'_>, f: impl Fn(S) -> T) -> Result<Vec<T>> {
    let layout = Layout::<N>::check(view, size_of::<S>(), align_of::<S>())?;
    let mut out = Vec::new();
    if out.try_reserve_exact(layout.numel).is_err() {
        return Err(Error::new(
            kind::MEMORY_ERROR,
            format!("cannot allocate {} elements to convert a tensor of {}", layout.numel, view.dtype()),
        ));
    }
    let origin = layout.origin.cast::<S>().cast_const();
    if layout.is_row_major() {
        // SAFETY: a checked compact layout: `numel` aligned elements of the argument's
        // dtype from the origin (dangling and aligned when none), unchanged for the call;
        // any bit pattern is a valid `S` (integers and floats, bool read as u8).
        let elements = unsafe { core::slice::from_raw_parts(origin, layout.numel) };
        out.extend(elements.iter().map(|&v| f(v)));
    } else {
        // SAFETY: as above; the offsets of a checked layout address its elements.
        out.extend(Offsets::new(&layout).map(|o| f(unsafe { *origin.offset(o) })));
    }
    Ok(out)
}

#[cold]
#[inline(never)]
fn wrong_cast<T: Element>(view: &TensorView<'_>, rank: usize) -> Error {
    Error::type_error(format!(
        "expected a tensor of dtype {want} or one numpy's same_kind casting takes to it, and rank {rank}, got dtype \
         {got} and rank {got_rank} (shape {shape:?})",
        want = T::DTYPE,
        got = view.dtype(),
        got_rank = view.ndim(),
        shape = view.shape()
    ))
}

impl<T: CastElement, const N: usize> core::fmt::Debug for HostTensorAs<'_, T, N> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("HostTensorAs")
            .field("dtype", &T::DTYPE.to_string())
            .field("source_dtype", &self.source_dtype().to_string())
            .field("shape", &self.shape())
            .finish()
    }
}

/// An `ndarray` view (cargo feature `ndarray`), for ranks 0 to 6.
#[cfg(feature = "ndarray")]
mod ndarray_view {
    use ndarray::{ArrayView, IntoDimension};

    use super::{CastElement, HostTensorAs};

    impl<T: CastElement, const N: usize> HostTensorAs<'_, T, N>
    where
        [usize; N]: IntoDimension,
    {
        /// The elements as an `ndarray` view of rank `N` (row-major).
        pub fn as_array(&self) -> ArrayView<'_, T, <[usize; N] as IntoDimension>::Dim> {
            ArrayView::from_shape(self.dims(), self.as_slice()).expect("a checked row-major shape")
        }
    }
}
