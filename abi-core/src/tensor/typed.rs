//! Typed tensor parameters: [`HostTensor`] (host memory, read), [`HostTensorMut`] (host
//! memory, written in place) and [`DeviceTensor`] (any device, a raw data pointer for
//! kernels), each with its element type `T` and rank `N` in the Rust type. The export shim
//! checks dtype, rank, device and layout before the body runs, so a mismatch is an error
//! naming the function and the parameter, and the body gets slices or pointers it can use
//! without checking again.

use core::fmt;
use core::marker::PhantomData;

use crate::ffi::{DataType, Device};
use crate::tensor::{Element, TensorView};
use crate::value::error::{Error, Result};

/// Checks what every typed tensor needs: the element type and the rank.
fn check_type<T: Element>(view: &TensorView<'_>, rank: usize) -> Result<()> {
    if view.dtype() != T::DTYPE || view.ndim() != rank {
        return Err(wrong_type::<T>(view, rank));
    }
    Ok(())
}

/// Checks what every typed host tensor needs: element type, rank, host memory.
#[inline(always)]
pub(crate) fn check_host_type<T: Element>(view: &TensorView<'_>, rank: usize) -> Result<()> {
    check_type::<T>(view, rank)?;
    if !view.device().is_host_accessible() {
        return Err(view.not_host_accessible());
    }
    Ok(())
}

/// The checked data pointer of a host tensor: element type, rank, host memory, layout;
/// a layout that is not compact row-major names `strided`, the form that takes it.
#[inline(always)]
fn host_data<T: Element>(view: &TensorView<'_>, rank: usize, strided: &'static str) -> Result<*mut T> {
    check_host_type::<T>(view, rank)?;
    view.data_ptr_or::<T>(Some(strided))
}

#[cold]
#[inline(never)]
fn wrong_type<T: Element>(view: &TensorView<'_>, rank: usize) -> Error {
    view.about(wrong_type_message(T::DTYPE, rank, &view.dtype(), view.ndim(), view.shape()))
}

/// The TypeError of a tensor whose element type or rank is not the parameter's, in both
/// worlds (TVM FFI and IREE).
#[cold]
pub(crate) fn wrong_type_message(
    want: DataType,
    rank: usize,
    got: &dyn fmt::Display,
    got_rank: usize,
    shape: &[i64],
) -> Error {
    Error::type_error(format!(
        "expected a tensor of dtype {want} and rank {rank}, got dtype {got} and rank {got_rank} (shape {shape:?})"
    ))
}

/// A read-only tensor in host-accessible memory (CPU, pinned or managed CUDA memory) with
/// elements of type `T` and rank `N`, contiguous and aligned: checked when the argument is
/// converted, so [`as_slice`](HostTensor::as_slice) cannot fail.
///
/// The elements must not change while the call runs: another argument that may write the
/// same memory (a [`TensorView`]) is the caller's contract, as is a host thread writing
/// during the call.
#[derive(Clone, Copy)]
pub struct HostTensor<'a, T: Element, const N: usize> {
    view: TensorView<'a>,
    data: &'a [T],
}

impl<'a, T: Element, const N: usize> HostTensor<'a, T, N> {
    /// Checks `view`: element type `T`, rank `N`, host-accessible, contiguous and aligned.
    pub fn new(view: TensorView<'a>) -> Result<HostTensor<'a, T, N>> {
        let data = host_data::<T>(&view, N, "StridedTensor")?;
        // SAFETY: checked type, host memory, contiguity and alignment; `numel` elements
        // live for 'a, read-only while the view is (the type's contract).
        let data = unsafe { core::slice::from_raw_parts(data, view.numel()) };
        Ok(HostTensor { view, data })
    }

    /// A view already checked by the caller (an IREE call checks element type and rank
    /// against the buffer view, and the bytes against the shape).
    ///
    /// # Safety
    /// `view` has element type `T`, rank `N`, is compact row-major in host memory, and
    /// `data` holds exactly its elements, unchanged for 'a.
    pub(crate) unsafe fn from_checked(view: TensorView<'a>, data: &'a [T]) -> HostTensor<'a, T, N> {
        HostTensor { view, data }
    }

    /// The elements, row-major.
    pub fn as_slice(&self) -> &'a [T] {
        self.data
    }

    /// The untyped view.
    pub fn view(&self) -> TensorView<'a> {
        self.view
    }
}

/// A tensor in host-accessible memory written in place, with elements of type `T` and rank
/// `N`, contiguous and aligned: `out` parameters of kernels.
///
/// It is only an `#[export_fn]` parameter: before converting, the shim refuses a call in
/// which another tensor argument shares its memory (naming both parameters), so
/// [`as_mut_slice`](HostTensorMut::as_mut_slice) is the only access to those elements in
/// the call. What the shim cannot see is the caller's contract: no other thread reads or
/// writes the memory during the call, and no tensor inside a container argument (a
/// `Vec<TensorView>`) aliases it.
pub struct HostTensorMut<'a, T: Element, const N: usize> {
    view: TensorView<'a>,
    data: *mut T,
    _elements: PhantomData<&'a mut [T]>,
}

impl<'a, T: Element, const N: usize> HostTensorMut<'a, T, N> {
    /// Checks `view`: element type `T`, rank `N`, host-accessible, contiguous and aligned.
    ///
    /// # Safety
    /// Nothing else reads or writes the elements while the result lives.
    pub unsafe fn new(view: TensorView<'a>) -> Result<HostTensorMut<'a, T, N>> {
        let data = host_data::<T>(&view, N, "StridedTensorMut")?;
        Ok(HostTensorMut { view, data, _elements: PhantomData })
    }

    /// The elements, row-major.
    pub fn as_slice(&self) -> &[T] {
        // SAFETY: checked type, contiguity and alignment; `numel` elements, not aliased
        // (the constructor's contract), borrowed shared from `self`.
        unsafe { core::slice::from_raw_parts(self.data, self.view.numel()) }
    }

    /// The elements, row-major, to write.
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        // SAFETY: as `as_slice`, borrowed exclusively from `self`.
        unsafe { core::slice::from_raw_parts_mut(self.data, self.view.numel()) }
    }
}

/// A tensor of any element type written in place, its dtype chosen at run time (a kernel
/// that serves float32 and float64 arrays): the untyped [`HostTensorMut`]. Like it, it is
/// only an `#[export_fn]` parameter, refused when another tensor argument shares its
/// memory, so [`as_mut_slice`](TensorViewMut::as_mut_slice) is the only access to those
/// elements in the call.
pub struct TensorViewMut<'a> {
    view: TensorView<'a>,
}

impl<'a> TensorViewMut<'a> {
    /// The view, to be written in place through the result.
    ///
    /// # Safety
    /// Nothing else reads or writes the elements while the result lives.
    pub unsafe fn new(view: TensorView<'a>) -> TensorViewMut<'a> {
        TensorViewMut { view }
    }

    /// The elements as `T`, to write (checks dtype, host memory, contiguity, alignment).
    pub fn as_mut_slice<T: Element>(&mut self) -> Result<&mut [T]> {
        // SAFETY: no other access to the elements while this borrow of `self` lives (the
        // constructor's contract).
        unsafe { self.view.as_mut_slice::<T>() }
    }

    /// The elements as `T` (checks as [`as_mut_slice`](TensorViewMut::as_mut_slice)).
    pub fn as_slice<T: Element>(&self) -> Result<&[T]> {
        self.view.as_slice::<T>()
    }

    /// The element type.
    pub fn dtype(&self) -> DataType {
        self.view.dtype()
    }

    /// The dimensions.
    pub fn shape(&self) -> &'a [i64] {
        self.view.shape()
    }

    /// The number of elements.
    pub fn numel(&self) -> usize {
        self.view.numel()
    }

    /// The device.
    pub fn device(&self) -> Device {
        self.view.device()
    }
}

impl fmt::Debug for TensorViewMut<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TensorViewMut({}, {:?}, {})", self.dtype(), self.shape(), self.device())
    }
}

// SAFETY: it is a `&mut [T]` with its dimensions (`T: Send + Sync`); moving it to another
// thread moves the exclusive access.
unsafe impl<T: Element, const N: usize> Send for HostTensorMut<'_, T, N> {}
// SAFETY: shared access gives `&[T]` only.
unsafe impl<T: Element, const N: usize> Sync for HostTensorMut<'_, T, N> {}

/// `ndarray` views (cargo feature `ndarray`), for ranks 0 to 6.
#[cfg(feature = "ndarray")]
mod ndarray_views {
    use ndarray::{ArrayView, ArrayViewMut, IntoDimension};

    use super::{dims, Element, HostTensor, HostTensorMut};

    /// The `ndarray` dimension of rank `N` (`Ix2` for 2).
    type Rank<const N: usize> = <[usize; N] as IntoDimension>::Dim;

    impl<'a, T: Element, const N: usize> HostTensor<'a, T, N>
    where
        [usize; N]: IntoDimension,
    {
        /// The elements as an `ndarray` view of rank `N` (row-major).
        pub fn as_array(&self) -> ArrayView<'a, T, Rank<N>> {
            // The shape was checked: `numel` elements, row-major and contiguous.
            ArrayView::from_shape(dims::<N>(self.shape()), self.as_slice()).expect("a checked row-major shape")
        }
    }

    impl<T: Element, const N: usize> HostTensorMut<'_, T, N>
    where
        [usize; N]: IntoDimension,
    {
        /// The elements as an `ndarray` view of rank `N` (row-major).
        pub fn as_array(&self) -> ArrayView<'_, T, Rank<N>> {
            ArrayView::from_shape(self.dims(), self.as_slice()).expect("a checked row-major shape")
        }

        /// The elements as a mutable `ndarray` view of rank `N` (row-major).
        pub fn as_array_mut(&mut self) -> ArrayViewMut<'_, T, Rank<N>> {
            let dims = self.dims();
            ArrayViewMut::from_shape(dims, self.as_mut_slice()).expect("a checked row-major shape")
        }
    }
}

/// A tensor on any device with elements of type `T` and rank `N`, contiguous and aligned:
/// for kernels that launch on the device. It gives no element access, only the data
/// pointer, the device (for the caller's stream) and the dimensions.
#[derive(Clone, Copy)]
pub struct DeviceTensor<'a, T: Element, const N: usize> {
    view: TensorView<'a>,
    data: *mut T,
    _elements: PhantomData<&'a [T]>,
}

impl<'a, T: Element, const N: usize> DeviceTensor<'a, T, N> {
    /// Checks `view`: element type `T`, rank `N`, contiguous and aligned.
    pub fn new(view: TensorView<'a>) -> Result<DeviceTensor<'a, T, N>> {
        check_type::<T>(&view, N)?;
        let data = view.data_ptr::<T>()?;
        Ok(DeviceTensor { view, data, _elements: PhantomData })
    }

    /// The address of the first element in the device's memory (its byte offset applied);
    /// dangling but aligned when the tensor holds no element. Not dereferenceable on the host
    /// unless the device is host-accessible.
    pub fn data_ptr(&self) -> *mut T {
        self.data
    }

    /// The element type.
    pub fn dtype(&self) -> DataType {
        T::DTYPE
    }

    /// The untyped view.
    pub fn view(&self) -> TensorView<'a> {
        self.view
    }
}

/// A tensor on any device written by a kernel, with elements of type `T` and rank `N`,
/// contiguous and aligned: the output of a device kernel. Like [`DeviceTensor`] it gives
/// only the data pointer, the device and the dimensions; like [`HostTensorMut`] it is only
/// an `#[export_fn]` parameter, whose shim refuses a call in which another tensor argument
/// shares its memory (naming both parameters).
pub struct DeviceTensorMut<'a, T: Element, const N: usize> {
    view: TensorView<'a>,
    data: *mut T,
    _elements: PhantomData<&'a mut [T]>,
}

impl<'a, T: Element, const N: usize> DeviceTensorMut<'a, T, N> {
    /// Checks `view`: element type `T`, rank `N`, contiguous and aligned.
    ///
    /// # Safety
    /// Nothing else reads or writes the elements while the result lives.
    pub unsafe fn new(view: TensorView<'a>) -> Result<DeviceTensorMut<'a, T, N>> {
        check_type::<T>(&view, N)?;
        let data = view.data_ptr::<T>()?;
        Ok(DeviceTensorMut { view, data, _elements: PhantomData })
    }

    /// The address of the first element in the device's memory (its byte offset applied),
    /// to write; dangling but aligned when the tensor holds no element. Not dereferenceable
    /// on the host unless the device is host-accessible.
    pub fn data_ptr(&mut self) -> *mut T {
        self.data
    }

    /// The element type.
    pub fn dtype(&self) -> DataType {
        T::DTYPE
    }
}

/// What every typed tensor tells of itself, from its checked view.
macro_rules! dimensions {
    ($($ty:ident),*) => {$(
        impl<'a, T: Element, const N: usize> $ty<'a, T, N> {
            /// The dimensions, as [`TensorView::shape`] gives them.
            pub fn shape(&self) -> &'a [i64] {
                self.view.shape()
            }

            /// The dimensions as an array, for indexing: `let [rows, cols] = x.dims();`.
            pub fn dims(&self) -> [usize; N] {
                dims(self.view.shape())
            }

            /// The number of elements.
            pub fn numel(&self) -> usize {
                self.view.numel()
            }

            /// The device (host-accessible for `HostTensor` and `HostTensorMut`).
            pub fn device(&self) -> Device {
                self.view.device()
            }
        }
    )*};
}

dimensions!(HostTensor, HostTensorMut, DeviceTensor, DeviceTensorMut);

// A checked rank-N shape as an array (extents are never negative in a valid DLTensor).
fn dims<const N: usize>(shape: &[i64]) -> [usize; N] {
    let mut out = [0; N];
    for (o, &d) in out.iter_mut().zip(shape) {
        *o = d.max(0) as usize;
    }
    out
}

impl<T: Element, const N: usize> fmt::Debug for HostTensor<'_, T, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HostTensor").field("dtype", &T::DTYPE.to_string()).field("shape", &self.shape()).finish()
    }
}

impl<T: Element, const N: usize> fmt::Debug for HostTensorMut<'_, T, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HostTensorMut").field("dtype", &T::DTYPE.to_string()).field("shape", &self.shape()).finish()
    }
}

macro_rules! device_debug {
    ($($ty:ident),*) => {$(
        impl<T: Element, const N: usize> fmt::Debug for $ty<'_, T, N> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($ty))
                    .field("dtype", &T::DTYPE.to_string())
                    .field("shape", &self.shape())
                    .field("device", &self.device().to_string())
                    .finish()
            }
        }
    )*};
}

device_debug!(DeviceTensor, DeviceTensorMut);
