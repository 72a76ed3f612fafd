//! Tensors: the 48-byte `DLTensor`, a borrowed [`TensorView`] over one (from Tensor objects
//! or `DLTensor*` arguments) with typed element slices, an owned [`Tensor`] (made in Rust,
//! received from a host, or allocated through the caller's allocator, `crate::env`) that
//! hosts can consume (e.g. `np.from_dlpack`), and the typed parameters of [`typed`].

pub mod cast;
pub(crate) mod disjoint;
#[cfg(feature = "ndarray")]
mod from_ndarray;
pub(crate) mod layout;
pub mod strided;
pub mod typed;
pub mod uninit;

use core::cell::Cell;
use core::fmt;
use core::mem::{align_of, size_of};

use half::{bf16, f16};
use static_assertions::const_assert_eq;

use crate::ffi::type_index as ti;
use crate::ffi::{cell_ptr, code, DLTensor, DataType, Device};
use crate::value::any::AnyView;
use crate::value::error::{kind, Error, Result};
use crate::value::object::{new_object, object_handle, ObjectRef};

/// A Rust element type with its DLPack data type.
///
/// # Safety
/// `DTYPE` must describe `Self`'s size and representation exactly, and every bit pattern
/// of that size must be a valid `Self`.
pub unsafe trait Element: Copy + Send + Sync + 'static {
    /// The matching data type.
    const DTYPE: DataType;
}

macro_rules! element {
    ($($t:ty => $code:expr, $bits:expr;)*) => {$(
        // SAFETY: the data type matches the Rust type's size and encoding.
        unsafe impl Element for $t {
            const DTYPE: DataType = DataType::new($code, $bits);
        }
        const_assert_eq!(size_of::<$t>() * 8, $bits);
    )*};
}

element! {
    i8 => code::INT, 8; i16 => code::INT, 16; i32 => code::INT, 32; i64 => code::INT, 64;
    u8 => code::UINT, 8; u16 => code::UINT, 16; u32 => code::UINT, 32; u64 => code::UINT, 64;
    f32 => code::FLOAT, 32; f64 => code::FLOAT, 64; f16 => code::FLOAT, 16; bf16 => code::BFLOAT, 16;
}

/// A borrowed tensor, valid for `'a`.
#[derive(Clone, Copy)]
pub struct TensorView<'a> {
    dl: &'a DLTensor,
}

impl<'a> TensorView<'a> {
    /// Views a `DLTensor`.
    ///
    /// # Safety
    /// `dl` and its shape/strides/data stay valid for `'a`.
    pub unsafe fn from_dl(dl: &'a DLTensor) -> TensorView<'a> {
        TensorView { dl }
    }

    /// The tensor an argument slot holds: a Tensor object (type index 70) or a bare
    /// `DLTensor*` (7), as hosts pass them; `None` for anything else.
    #[inline]
    pub fn from_slot(v: &'a AnyView<'a>) -> Option<TensorView<'a>> {
        let raw = v.raw();
        let dl: *const DLTensor = match raw.type_index {
            ti::TENSOR if !raw.ptr().is_null() => cell_ptr::<DLTensor>(raw.ptr().cast()),
            ti::DL_TENSOR_PTR if !raw.ptr().is_null() => raw.ptr().cast(),
            _ => return None,
        };
        // SAFETY: a Tensor object holds its DLTensor at offset 24; a DLTensor* argument is
        // valid for the call. Both outlive the borrow 'a.
        Some(unsafe { TensorView::from_dl(&*dl) })
    }

    /// The underlying `DLTensor`.
    #[inline]
    pub fn dl_tensor(&self) -> &'a DLTensor {
        self.dl
    }

    /// The element type.
    #[inline]
    pub fn dtype(&self) -> DataType {
        self.dl.dtype
    }

    /// The device.
    #[inline]
    pub fn device(&self) -> Device {
        self.dl.device
    }

    /// The number of dimensions.
    #[inline]
    pub fn ndim(&self) -> usize {
        self.dl.ndim.max(0) as usize
    }

    /// The dimensions.
    #[inline]
    pub fn shape(&self) -> &'a [i64] {
        if self.ndim() == 0 || self.dl.shape.is_null() {
            return &[];
        }
        // SAFETY: a valid DLTensor has `ndim` dims.
        unsafe { core::slice::from_raw_parts(self.dl.shape, self.ndim()) }
    }

    /// The strides in elements, or `None` for compact row-major.
    #[inline]
    pub fn strides(&self) -> Option<&'a [i64]> {
        if self.dl.strides.is_null() {
            return None;
        }
        // SAFETY: non-null strides have `ndim` entries.
        Some(unsafe { core::slice::from_raw_parts(self.dl.strides, self.ndim()) })
    }

    /// The number of elements.
    #[inline]
    pub fn numel(&self) -> usize {
        // Wrapping, as `product` is in release builds: an extent of 0 gives 0 even after the
        // others overflowed, without the overflow panic of a debug build.
        self.shape().iter().fold(1usize, |n, &d| n.wrapping_mul(d.max(0) as usize))
    }

    /// Whether the elements are compact and row-major, by DLPack's rules: null strides
    /// mean compact; a dimension of extent 1 may have any stride; a tensor with a dimension
    /// of extent 0 holds no element and is contiguous whatever its strides (numpy 2 exports
    /// `np.zeros(0)` with stride 0).
    pub fn is_contiguous(&self) -> bool {
        let Some(strides) = self.strides() else {
            return true;
        };
        // One pass from the last dimension; an extent of 0 anywhere makes it contiguous.
        let mut expected = 1i64;
        let mut compact = true;
        for (&dim, &stride) in self.shape().iter().rev().zip(strides.iter().rev()) {
            if dim == 0 {
                return true;
            }
            compact &= dim == 1 || stride == expected;
            expected = expected.saturating_mul(dim);
        }
        compact
    }

    /// The bytes its elements span, `start..end` as addresses (strides of either sign
    /// included), or `None` when it holds no element: what the shim compares to find tensor
    /// arguments that share memory.
    pub fn byte_range(&self) -> Option<core::ops::Range<usize>> {
        let dtype = self.dtype();
        let item = (u64::from(dtype.bits) * u64::from(dtype.lanes)).div_ceil(8).max(1) as i64;
        let base = (self.dl.data as usize as i64).wrapping_add(self.dl.byte_offset as i64);
        // Offsets of the lowest and highest element, in elements, in one pass (compact:
        // 0 and numel - 1); an overflow, which no real tensor reaches, spans everything.
        let (mut low, mut high) = (0i64, 0i64);
        let mut span = 1i64;
        let mut overflow = false;
        let strides = self.strides();
        for (i, &dim) in self.shape().iter().enumerate() {
            if dim <= 0 {
                return None;
            }
            let stride = match strides {
                Some(s) => s[i],
                None => 0,
            };
            let (reach, o1) = (dim - 1).overflowing_mul(stride);
            let (next, o2) = span.overflowing_mul(dim);
            span = next;
            overflow |= o1 | o2;
            if reach < 0 {
                low = low.wrapping_add(reach);
            } else {
                high = high.wrapping_add(reach);
            }
        }
        if strides.is_none() {
            (low, high) = (0, span - 1);
        }
        let start = low.checked_mul(item).and_then(|l| base.checked_add(l));
        let end = high.checked_add(1).and_then(|h| h.checked_mul(item)).and_then(|h| base.checked_add(h));
        match (start, end) {
            (Some(start), Some(end)) if !overflow => Some(start.max(0) as usize..end.max(0) as usize),
            _ => Some(0..usize::MAX),
        }
    }

    // The checked element pointer for typed access: dtype, device, contiguity, alignment.
    pub(crate) fn typed_ptr<T: Element>(&self) -> Result<*mut T> {
        if self.dtype() != T::DTYPE {
            return Err(self.wrong_dtype(T::DTYPE));
        }
        if !self.device().is_host_accessible() {
            return Err(self.not_host_accessible());
        }
        self.data_ptr::<T>()
    }

    #[cold]
    #[inline(never)]
    fn wrong_dtype(&self, want: DataType) -> Error {
        self.about(Error::type_error(format!("expected a tensor of {want}, got {}", self.dtype())))
    }

    #[cold]
    #[inline(never)]
    pub(crate) fn not_host_accessible(&self) -> Error {
        self.about(Error::value_error(format!("tensor data on {} is not host-accessible", self.device())))
    }

    /// `e`, raised by a check of this tensor: from an export's body, where the tensor is an
    /// argument, it names the function and the argument (`Error::about_tensor`).
    #[cold]
    #[inline(never)]
    pub(crate) fn about(&self, e: Error) -> Error {
        e.about_tensor(self.dl)
    }

    // The checked data pointer: contiguous, and non-null and aligned when it holds elements
    // (a dangling aligned pointer when it holds none).
    pub(crate) fn data_ptr<T: Element>(&self) -> Result<*mut T> {
        self.data_ptr_or::<T>(None)
    }

    // The same, its refusal of a strided layout naming `strided`, the typed form that takes
    // one.
    #[inline]
    pub(crate) fn data_ptr_or<T: Element>(&self, strided: Option<&'static str>) -> Result<*mut T> {
        if !self.is_contiguous() {
            return Err(self.not_contiguous(strided));
        }
        if self.numel() == 0 {
            return Ok(core::ptr::NonNull::dangling().as_ptr());
        }
        let ptr = self.dl.data.cast::<u8>().wrapping_add(self.dl.byte_offset as usize).cast::<T>();
        if ptr.is_null() || (ptr as usize) % align_of::<T>() != 0 {
            return Err(self.misaligned());
        }
        Ok(ptr)
    }

    #[cold]
    #[inline(never)]
    fn misaligned(&self) -> Error {
        self.about(Error::value_error("tensor data pointer is null or misaligned"))
    }

    #[cold]
    #[inline(never)]
    fn not_contiguous(&self, strided: Option<&'static str>) -> Error {
        let mut m = format!(
            "tensor is not contiguous (row-major compact): shape {:?}, strides {:?}",
            self.shape(),
            self.strides().unwrap_or_default()
        );
        if let Some(strided) = strided {
            m.push_str(&format!(" (a {strided} parameter takes any strides)"));
        }
        self.about(Error::value_error(m))
    }

    /// The elements as a slice (checks dtype, host device, contiguity, alignment). When a
    /// check fails in the body of an export and the view is one of its arguments, the
    /// error raised names the function and that argument, as a conversion error does:
    /// ``sum(x: Tensor) -> float: argument `x` (#0) expected a tensor of float64, got float32``.
    /// So do the other checks of this crate on a tensor (`as_mut_slice`, `as_cells`,
    /// [`Tensor::as_mut_slice`], the typed tensors' constructors).
    pub fn as_slice<T: Element>(&self) -> Result<&'a [T]> {
        let ptr = self.typed_ptr::<T>()?;
        // SAFETY: checked type, contiguity and alignment; `numel` elements live for 'a.
        Ok(unsafe { core::slice::from_raw_parts(ptr, self.numel()) })
    }

    /// The elements as cells, for in-place writes through views that may share memory.
    /// A parameter written in place is better a [`TensorViewMut`](crate::TensorViewMut) or
    /// a [`HostTensorMut`](crate::HostTensorMut), which need no `unsafe`.
    ///
    /// # Safety
    /// No slice of this memory ([`as_slice`](TensorView::as_slice) of this or another
    /// view, a `HostTensor`) is used while a cell is written: writing through a cell would
    /// change memory a `&[T]` promises is not changing.
    pub unsafe fn as_cells<T: Element>(&self) -> Result<&'a [Cell<T>]> {
        let ptr = self.typed_ptr::<T>()?;
        // SAFETY: as `as_slice`; Cell<T> has T's layout and permits shared mutation; no
        // slice is used meanwhile (the caller's contract).
        Ok(unsafe { core::slice::from_raw_parts(ptr.cast::<Cell<T>>(), self.numel()) })
    }

    /// The elements as a mutable slice.
    ///
    /// # Safety
    /// No other view of this memory may be used while the slice lives.
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn as_mut_slice<T: Element>(&self) -> Result<&'a mut [T]> {
        let ptr = self.typed_ptr::<T>()?;
        // SAFETY: as `as_slice`, plus exclusivity guaranteed by the caller.
        Ok(unsafe { core::slice::from_raw_parts_mut(ptr, self.numel()) })
    }

    /// Copies into a new owned tensor.
    pub fn to_tensor<T: Element>(&self) -> Result<Tensor> {
        Tensor::from_vec(self.as_slice::<T>()?.to_vec(), self.shape())
    }
}

impl fmt::Debug for TensorView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TensorView({}, {:?}, {:?})", self.dtype(), self.shape(), self.device())
    }
}

/// The cell of tensors made here: the DLTensor, then what it points into. `Vec`s, not
/// `Box`es: moving a `Box` into the cell would invalidate the pointers `dl` holds into it.
#[repr(C)]
struct TensorCell {
    dl: DLTensor,
    shape: Vec<i64>,
    strides: Vec<i64>,
    owner: Box<dyn core::any::Any + Send + Sync>,
}

// SAFETY: the DLTensor points into the boxes owned by the cell; data is Send + Sync.
unsafe impl Send for TensorCell {}
// SAFETY: see above.
unsafe impl Sync for TensorCell {}

/// The size in bytes of a tensor of `shape` whose elements take `item` bytes, multiplied out
/// in one pass; `None` for a negative extent, or when a product exceeds `isize::MAX` (what
/// one allocation can hold at most), which the multiplication's overflow tells. As numpy
/// has it, a shape whose size overflows is invalid even when a later extent is 0.
#[inline(always)]
fn byte_size(shape: &[i64], item: usize) -> Option<usize> {
    let mut bytes = item as i64;
    for &d in shape {
        if d < 0 {
            return None;
        }
        bytes = bytes.checked_mul(d)?;
    }
    Some(bytes as usize)
}

/// The number of elements of `shape`: an error for a negative extent or an overflow.
#[inline]
pub(crate) fn numel_of(shape: &[i64]) -> Result<usize> {
    byte_size(shape, 1).ok_or_else(|| invalid_shape(shape, None))
}

/// The number of elements of a new `T` tensor of `shape`, when the request is valid: a
/// `ValueError` for a negative extent, or for a size beyond `isize::MAX` bytes, the most
/// any allocation can hold (Rust's `Layout` limit; `malloc` refuses more too). A valid size
/// is the allocator's to grant or refuse (a `MemoryError`, [`zeroed_vec`]). One pass on
/// every allocation's path.
#[inline]
pub(crate) fn allocatable<T: Element>(shape: &[i64]) -> Result<usize> {
    match byte_size(shape, size_of::<T>()) {
        Some(bytes) => Ok(bytes / size_of::<T>()),
        None => Err(invalid_shape(shape, Some(T::DTYPE))),
    }
}

#[cold]
#[inline(never)]
fn invalid_shape(shape: &[i64], dtype: Option<DataType>) -> Error {
    if shape.iter().any(|&d| d < 0) {
        return negative_extent(shape);
    }
    match dtype {
        Some(dtype) => too_large(shape, dtype),
        None => Error::value_error(format!("shape {shape:?} has too many elements")),
    }
}

#[cold]
#[inline(never)]
fn negative_extent(shape: &[i64]) -> Error {
    Error::value_error(format!("shape {shape:?} has a negative extent"))
}

#[cold]
#[inline(never)]
fn too_large(shape: &[i64], dtype: DataType) -> Error {
    Error::value_error(format!(
        "shape {shape:?} of {dtype} is too large: more than {} bytes, the most one allocation can hold",
        isize::MAX
    ))
}

/// The `numel` zeroed elements of a `T` tensor of `shape` (calloc: pages are zeroed as
/// touched; `numel` from [`allocatable`]), or a `MemoryError` when the allocator refuses.
fn zeroed_vec<T: Element>(numel: usize, shape: &[i64]) -> Result<Vec<T>> {
    let layout = core::alloc::Layout::array::<T>(numel).map_err(|_| too_large(shape, T::DTYPE))?;
    if layout.size() == 0 {
        return Ok(Vec::new());
    }
    // SAFETY: a non-zero-sized layout.
    let data = unsafe { std::alloc::alloc_zeroed(layout) }.cast::<T>();
    if data.is_null() {
        return Err(Error::new(
            kind::MEMORY_ERROR,
            format!("cannot allocate {} bytes for a {} tensor of shape {shape:?}", layout.size(), T::DTYPE),
        ));
    }
    // SAFETY: allocated by the global allocator with `T`'s array layout of `numel`; zeroed
    // bytes are valid `T`s (the `Element` contract).
    Ok(unsafe { Vec::from_raw_parts(data, numel, numel) })
}

/// An owned Tensor object (70): made here from a `Vec`, or received from a host.
#[derive(Clone)]
pub struct Tensor(ObjectRef);

object_handle!(Tensor, ti::TENSOR);

impl Tensor {
    /// A CPU tensor owning `data`, with `shape` (row-major).
    pub fn from_vec<T: Element>(data: Vec<T>, shape: &[i64]) -> Result<Tensor> {
        if numel_of(shape).ok() != Some(data.len()) {
            return Err(Error::value_error(format!("shape {shape:?} does not match {} elements", data.len())));
        }
        Tensor::from_vec_at(data, 0, shape)
    }

    /// A CPU tensor owning `data` whose elements, row-major with `shape`, start at index
    /// `first` (an `ndarray` array sliced in place): `first` plus the element count is at
    /// most `data.len()`, checked by the caller.
    pub(crate) fn from_vec_at<T: Element>(mut data: Vec<T>, first: usize, shape: &[i64]) -> Result<Tensor> {
        debug_assert!(numel_of(shape).is_ok_and(|n| first + n <= data.len()));
        let ndim = i32::try_from(shape.len()).map_err(|_| Error::value_error("too many dimensions"))?;
        let mut shape = shape.to_vec();
        let mut strides = vec![1i64; shape.len()];
        // Wrapping: only a tensor with no elements (an extent of 0) can overflow, and any
        // strides describe it.
        for i in (0..shape.len().saturating_sub(1)).rev() {
            strides[i] = strides[i + 1].wrapping_mul(shape[i + 1]);
        }
        let dl = DLTensor {
            // In bounds (or one past the end of an empty tail): the caller's check.
            data: data.as_mut_ptr().wrapping_add(first).cast(),
            device: Device::CPU,
            ndim,
            dtype: T::DTYPE,
            shape: shape.as_mut_ptr(),
            strides: strides.as_mut_ptr(),
            byte_offset: 0,
        };
        Ok(Tensor(new_object(ti::TENSOR, TensorCell { dl, shape, strides, owner: Box::new(data) })))
    }

    /// A new tensor of `shape` on `device`, for results: from the caller's allocator when
    /// one is set (a torch tensor when called with torch tensors; see `abi_core::env`),
    /// else, on the CPU, a Rust allocation. A tensor on another device with no allocator is
    /// an error saying what to do. Memory the host can reach is zero-filled, so every view
    /// of it is sound; write it through [`Tensor::as_mut_slice`] while the tensor is yours
    /// alone. Device memory is left as allocated, for kernels to write through its data
    /// pointer. [`Tensor::empty_uninit`] skips the fill for results you write whole.
    ///
    /// A shape no tensor can have is a `ValueError`: a negative extent, or more than
    /// `isize::MAX` bytes (multiplied out extent by extent: as in numpy, a product that
    /// overflows before an extent of 0 is too large), checked before any allocator is
    /// asked. A valid size that the allocator refuses is a `MemoryError`.
    pub fn empty<T: Element>(shape: &[i64], device: Device) -> Result<Tensor> {
        Ok(Tensor::empty_uninit::<T>(shape, device)?.zeroed())
    }

    /// The elements, writable, while this handle is the tensor's only reference and its
    /// memory is on the host (checks dtype, contiguity and alignment as
    /// [`TensorView::as_slice`]).
    pub fn as_mut_slice<T: Element>(&mut self) -> Result<&mut [T]> {
        if self.0.strong_count() != 1 {
            return Err(self
                .view()
                .about(Error::value_error("the tensor is shared: it can be written only while it has one holder")));
        }
        let view = self.view();
        let ptr = view.typed_ptr::<T>()?;
        // SAFETY: checked type, host access, contiguity and alignment; the only reference
        // is borrowed mutably for the slice's life.
        Ok(unsafe { core::slice::from_raw_parts_mut(ptr, view.numel()) })
    }

    /// A borrowed view.
    pub fn view(&self) -> TensorView<'_> {
        // SAFETY: every Tensor object holds a DLTensor at offset 24, alive with the object.
        unsafe { TensorView::from_dl(&*cell_ptr::<DLTensor>(self.0.as_ptr())) }
    }
}

impl fmt::Debug for Tensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Tensor({}, {:?})", self.view().dtype(), self.view().shape())
    }
}
