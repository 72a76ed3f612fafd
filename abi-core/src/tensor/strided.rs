//! Typed tensor parameters of any strides: [`StridedTensor`] (read) and
//! [`StridedTensorMut`] (written in place). They take what `x.T`, `x[:, ::2]` and
//! `x[::-1]` pass (strides of either sign, broadcast zero strides for reading), with the
//! element type `T` and rank `N` in the Rust type as [`HostTensor`](crate::HostTensor)'s;
//! every element address is checked when the argument converts (see `layout`), so element
//! access needs no further check than the index's.

use core::fmt;
use core::marker::PhantomData;
use core::ops::{Index, IndexMut};

use crate::ffi::Device;
use crate::tensor::layout::{Layout, Offsets};
use crate::tensor::typed::check_host_type;
use crate::tensor::{Element, TensorView};
use crate::value::error::Result;

/// A read-only tensor in host-accessible memory with elements of type `T` and rank `N`, of
/// any strides: transposed, sliced with a step, reversed, broadcast (stride 0). Elements
/// are read by index ([`get`](StridedTensor::get), `x[[i, j]]`), in logical row-major
/// order ([`iter`](StridedTensor::iter)), as an `ndarray` view with the same strides (cargo
/// feature `ndarray`), or as a slice when they happen to be compact row-major.
///
/// The contract is [`HostTensor`](crate::HostTensor)'s: the elements do not change while
/// the call runs.
#[derive(Clone, Copy)]
pub struct StridedTensor<'a, T: Element, const N: usize> {
    view: TensorView<'a>,
    layout: Layout<N>,
    _elements: PhantomData<&'a [T]>,
}

impl<'a, T: Element, const N: usize> StridedTensor<'a, T, N> {
    /// Checks `view`: element type `T`, rank `N`, host-accessible, aligned, and strides
    /// whose element addresses neither overflow nor leave the address space.
    pub fn new(view: TensorView<'a>) -> Result<StridedTensor<'a, T, N>> {
        let layout = host_layout::<T, N>(&view)?;
        Ok(StridedTensor { view, layout, _elements: PhantomData })
    }

    /// The element at `index`, or `None` out of bounds.
    #[inline]
    pub fn get(&self, index: [usize; N]) -> Option<&'a T> {
        let offset = self.layout.offset(index)?;
        // SAFETY: an in-bounds index of a checked layout addresses one of the tensor's
        // elements, aligned, alive and unchanged for 'a (the type's contract).
        Some(unsafe { &*self.origin().offset(offset) })
    }

    /// The elements in logical row-major order (the last index fastest), whatever the
    /// strides.
    pub fn iter(&self) -> Iter<'a, T, N> {
        Iter { origin: self.origin(), offsets: Offsets::new(&self.layout), _elements: PhantomData }
    }

    /// The elements as one slice, when they are compact row-major (`None` otherwise).
    pub fn as_slice(&self) -> Option<&'a [T]> {
        // SAFETY: compact row-major: `numel` consecutive elements from the origin, aligned
        // (dangling and aligned when there are none), unchanged for 'a.
        self.layout.is_row_major().then(|| unsafe { core::slice::from_raw_parts(self.origin(), self.layout.numel) })
    }

    /// The strides in elements as the tensor states them (of either sign; compact row-major
    /// when it states none). Dimensions of extent 1 may have any stride.
    pub fn strides(&self) -> [isize; N] {
        self.layout.strides
    }

    /// The untyped view.
    pub fn view(&self) -> TensorView<'a> {
        self.view
    }

    fn origin(&self) -> *const T {
        self.layout.origin.cast()
    }
}

/// A tensor in host-accessible memory written in place, with elements of type `T` and rank
/// `N`, of any strides whose elements are distinct: `out[:, ::2]`, `out.T`, `out[::-1]`.
/// Refused when a stride is 0 along an extent above 1 (a broadcast array) or when two
/// indices address one element.
///
/// As [`HostTensorMut`](crate::HostTensorMut), it is only an `#[export_fn]` parameter:
/// the shim refuses a call in which another tensor argument shares one of its bytes. Views
/// of one array that interleave without sharing a byte (`x[:, ::2]` written, `x[:, 1::2]`
/// read) pass; the shim tells them apart from views that share elements by their strides.
pub struct StridedTensorMut<'a, T: Element, const N: usize> {
    view: TensorView<'a>,
    layout: Layout<N>,
    _elements: PhantomData<&'a mut [T]>,
}

impl<'a, T: Element, const N: usize> StridedTensorMut<'a, T, N> {
    /// Checks `view` as [`StridedTensor::new`] does, and that no two indices address one
    /// element.
    ///
    /// # Safety
    /// Nothing else reads or writes the elements while the result lives.
    pub unsafe fn new(view: TensorView<'a>) -> Result<StridedTensorMut<'a, T, N>> {
        let layout = host_layout::<T, N>(&view)?;
        layout.check_distinct(&view)?;
        Ok(StridedTensorMut { view, layout, _elements: PhantomData })
    }

    /// The element at `index`, or `None` out of bounds.
    #[inline]
    pub fn get(&self, index: [usize; N]) -> Option<&T> {
        let offset = self.layout.offset(index)?;
        // SAFETY: an in-bounds index of a checked layout addresses one element, not
        // aliased (the constructor's contract), borrowed shared from `self`.
        Some(unsafe { &*self.origin().offset(offset) })
    }

    /// The element at `index` to write, or `None` out of bounds.
    #[inline]
    pub fn get_mut(&mut self, index: [usize; N]) -> Option<&mut T> {
        let offset = self.layout.offset(index)?;
        // SAFETY: as `get`, borrowed exclusively from `self`.
        Some(unsafe { &mut *self.origin().offset(offset) })
    }

    /// The elements in logical row-major order.
    pub fn iter(&self) -> Iter<'_, T, N> {
        Iter { origin: self.origin(), offsets: Offsets::new(&self.layout), _elements: PhantomData }
    }

    /// The elements in logical row-major order, to write.
    pub fn iter_mut(&mut self) -> IterMut<'_, T, N> {
        IterMut { origin: self.origin(), offsets: Offsets::new(&self.layout), _elements: PhantomData }
    }

    /// The elements as one slice, when they are compact row-major.
    pub fn as_slice(&self) -> Option<&[T]> {
        // SAFETY: as `StridedTensor::as_slice`, not aliased, borrowed shared from `self`.
        self.layout.is_row_major().then(|| unsafe { core::slice::from_raw_parts(self.origin(), self.layout.numel) })
    }

    /// The elements as one slice to write, when they are compact row-major.
    pub fn as_mut_slice(&mut self) -> Option<&mut [T]> {
        let (origin, numel) = (self.origin(), self.layout.numel);
        // SAFETY: as `as_slice`, borrowed exclusively from `self`.
        self.layout.is_row_major().then(|| unsafe { core::slice::from_raw_parts_mut(origin, numel) })
    }

    /// The strides in elements as the tensor states them (see [`StridedTensor::strides`]).
    pub fn strides(&self) -> [isize; N] {
        self.layout.strides
    }

    fn origin(&self) -> *mut T {
        self.layout.origin.cast()
    }
}

/// The layout of a host tensor of element type `T` and rank `N`.
fn host_layout<T: Element, const N: usize>(view: &TensorView<'_>) -> Result<Layout<N>> {
    check_host_type::<T>(view, N)?;
    Layout::check(view, size_of::<T>(), align_of::<T>())
}

impl<'a, T: Element, const N: usize> Index<[usize; N]> for StridedTensor<'a, T, N> {
    type Output = T;

    /// The element at `index`; panics out of bounds, at the caller's line (an export's body
    /// that panics returns an error to its caller).
    #[track_caller]
    fn index(&self, index: [usize; N]) -> &T {
        match self.get(index) {
            Some(element) => element,
            None => out_of_bounds(index, self.layout.dims),
        }
    }
}

impl<T: Element, const N: usize> Index<[usize; N]> for StridedTensorMut<'_, T, N> {
    type Output = T;

    /// The element at `index`; panics out of bounds, at the caller's line.
    #[track_caller]
    fn index(&self, index: [usize; N]) -> &T {
        match self.get(index) {
            Some(element) => element,
            None => out_of_bounds(index, self.layout.dims),
        }
    }
}

impl<T: Element, const N: usize> IndexMut<[usize; N]> for StridedTensorMut<'_, T, N> {
    /// The element at `index` to write; panics out of bounds, at the caller's line.
    #[track_caller]
    fn index_mut(&mut self, index: [usize; N]) -> &mut T {
        let dims = self.layout.dims;
        match self.get_mut(index) {
            Some(element) => element,
            None => out_of_bounds(index, dims),
        }
    }
}

#[cold]
#[inline(never)]
#[track_caller]
fn out_of_bounds<const N: usize>(index: [usize; N], dims: [usize; N]) -> ! {
    panic!("index {index:?} is out of bounds for a tensor of dims {dims:?}")
}

/// The elements of a strided tensor in logical row-major order.
#[derive(Clone, Debug)]
pub struct Iter<'a, T, const N: usize> {
    origin: *const T,
    offsets: Offsets<N>,
    _elements: PhantomData<&'a [T]>,
}

impl<'a, T, const N: usize> Iterator for Iter<'a, T, N> {
    type Item = &'a T;

    #[inline]
    fn next(&mut self) -> Option<&'a T> {
        let offset = self.offsets.next()?;
        // SAFETY: the offsets of a checked layout address its elements, alive for 'a.
        Some(unsafe { &*self.origin.offset(offset) })
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.offsets.size_hint()
    }
}

impl<T, const N: usize> ExactSizeIterator for Iter<'_, T, N> {}

/// The elements of a [`StridedTensorMut`] in logical row-major order, to write.
#[derive(Debug)]
pub struct IterMut<'a, T, const N: usize> {
    origin: *mut T,
    offsets: Offsets<N>,
    _elements: PhantomData<&'a mut [T]>,
}

impl<'a, T, const N: usize> Iterator for IterMut<'a, T, N> {
    type Item = &'a mut T;

    #[inline]
    fn next(&mut self) -> Option<&'a mut T> {
        let offset = self.offsets.next()?;
        // SAFETY: each offset is visited once and addresses a distinct element (the
        // layout's `check_distinct`), borrowed exclusively for 'a.
        Some(unsafe { &mut *self.origin.offset(offset) })
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.offsets.size_hint()
    }
}

impl<T, const N: usize> ExactSizeIterator for IterMut<'_, T, N> {}

// SAFETY: a `StridedTensor` is a shared borrow of `T: Sync` elements.
unsafe impl<T: Element, const N: usize> Send for StridedTensor<'_, T, N> {}
// SAFETY: see above.
unsafe impl<T: Element, const N: usize> Sync for StridedTensor<'_, T, N> {}
// SAFETY: a `StridedTensorMut` is an exclusive borrow of `T: Send + Sync` elements.
unsafe impl<T: Element, const N: usize> Send for StridedTensorMut<'_, T, N> {}
// SAFETY: shared access gives `&T` only.
unsafe impl<T: Element, const N: usize> Sync for StridedTensorMut<'_, T, N> {}
// SAFETY: as `StridedTensor`.
unsafe impl<T: Sync, const N: usize> Send for Iter<'_, T, N> {}
// SAFETY: as `StridedTensor`.
unsafe impl<T: Sync, const N: usize> Sync for Iter<'_, T, N> {}
// SAFETY: as `StridedTensorMut`.
unsafe impl<T: Send, const N: usize> Send for IterMut<'_, T, N> {}
// SAFETY: shared access to the iterator gives no element.
unsafe impl<T: Sync, const N: usize> Sync for IterMut<'_, T, N> {}

macro_rules! strided_dimensions {
    ($($ty:ident),*) => {$(
        impl<'a, T: Element, const N: usize> $ty<'a, T, N> {
            /// The dimensions, as [`TensorView::shape`] gives them.
            pub fn shape(&self) -> &'a [i64] {
                self.view.shape()
            }

            /// The dimensions as an array, for indexing: `let [rows, cols] = x.dims();`.
            pub fn dims(&self) -> [usize; N] {
                self.layout.dims
            }

            /// The number of elements.
            pub fn numel(&self) -> usize {
                self.layout.numel
            }

            /// The device (host-accessible).
            pub fn device(&self) -> Device {
                self.view.device()
            }
        }

        impl<T: Element, const N: usize> fmt::Debug for $ty<'_, T, N> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($ty))
                    .field("dtype", &T::DTYPE.to_string())
                    .field("shape", &self.shape())
                    .field("strides", &self.strides())
                    .finish()
            }
        }
    )*};
}

strided_dimensions!(StridedTensor, StridedTensorMut);

/// `ndarray` views with the tensor's strides (cargo feature `ndarray`), for ranks 0 to 6.
#[cfg(feature = "ndarray")]
mod ndarray_views {
    use ndarray::{ArrayView, ArrayViewMut, Axis, IntoDimension, ShapeBuilder};

    use super::{Element, Layout, StridedTensor, StridedTensorMut};

    /// The `ndarray` dimension of rank `N` (`Ix2` for 2).
    type Rank<const N: usize> = <[usize; N] as IntoDimension>::Dim;

    /// What ndarray's raw constructors take: non-negative strides from the lowest address,
    /// and the axes to invert afterwards to give the negative ones back.
    struct Parts<const N: usize> {
        dims: [usize; N],
        strides: [usize; N],
        low: isize,
        invert: [bool; N],
    }

    fn parts<const N: usize>(layout: &Layout<N>) -> Parts<N> {
        let mut p = Parts { dims: layout.dims, strides: [0; N], low: 0, invert: [false; N] };
        for k in 0..N {
            let step = layout.steps[k];
            p.strides[k] = step.unsigned_abs();
            if step < 0 {
                // Within the checked span: no overflow.
                p.low += step * (layout.dims[k] as isize - 1);
                p.invert[k] = true;
            }
        }
        p
    }

    impl<'a, T: Element, const N: usize> StridedTensor<'a, T, N>
    where
        [usize; N]: IntoDimension,
    {
        /// The elements as an `ndarray` view of rank `N` with the tensor's strides,
        /// negative ones included (a tensor with no element gets row-major strides).
        pub fn as_array(&self) -> ArrayView<'a, T, Rank<N>> {
            let p = parts(&self.layout);
            if self.layout.numel == 0 {
                return ArrayView::from_shape(p.dims, &[]).expect("an empty shape");
            }
            let shape = p.dims.into_dimension().strides(p.strides.into_dimension());
            // SAFETY: the lowest element's address, and non-negative strides along which
            // every in-bounds step stays among the tensor's elements (a checked layout: one
            // span of at most isize::MAX bytes, at most isize::MAX elements), aligned,
            // unchanged for 'a (the type's contract).
            let mut array = unsafe { ArrayView::from_shape_ptr(shape, self.origin().offset(p.low)) };
            for (k, &invert) in p.invert.iter().enumerate() {
                if invert {
                    array.invert_axis(Axis(k));
                }
            }
            array
        }
    }

    impl<T: Element, const N: usize> StridedTensorMut<'_, T, N>
    where
        [usize; N]: IntoDimension,
    {
        /// The elements as an `ndarray` view of rank `N` with the tensor's strides.
        pub fn as_array(&self) -> ArrayView<'_, T, Rank<N>> {
            let p = parts(&self.layout);
            if self.layout.numel == 0 {
                return ArrayView::from_shape(p.dims, &[]).expect("an empty shape");
            }
            let shape = p.dims.into_dimension().strides(p.strides.into_dimension());
            // SAFETY: as `StridedTensor::as_array`; not aliased (the constructor's
            // contract), borrowed shared from `self`.
            let mut array = unsafe { ArrayView::from_shape_ptr(shape, self.origin().cast_const().offset(p.low)) };
            for (k, &invert) in p.invert.iter().enumerate() {
                if invert {
                    array.invert_axis(Axis(k));
                }
            }
            array
        }

        /// The elements as a mutable `ndarray` view of rank `N` with the tensor's strides.
        pub fn as_array_mut(&mut self) -> ArrayViewMut<'_, T, Rank<N>> {
            let p = parts(&self.layout);
            if self.layout.numel == 0 {
                return ArrayViewMut::from_shape(p.dims, &mut []).expect("an empty shape");
            }
            let shape = p.dims.into_dimension().strides(p.strides.into_dimension());
            // SAFETY: as `as_array`, with distinct elements (`check_distinct`) borrowed
            // exclusively from `self`.
            let mut array = unsafe { ArrayViewMut::from_shape_ptr(shape, self.origin().offset(p.low)) };
            for (k, &invert) in p.invert.iter().enumerate() {
                if invert {
                    array.invert_axis(Axis(k));
                }
            }
            array
        }
    }
}
