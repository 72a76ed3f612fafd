//! Result tensors whose elements are not written yet: [`Tensor::empty_uninit`] allocates
//! (through the caller's allocator when one is set, as [`Tensor::empty`] does) and returns
//! an [`UninitTensor`], whose host elements are reachable only as `MaybeUninit` until they
//! are all written, so no safe code reads memory nobody wrote.

use core::fmt;
use core::marker::PhantomData;
use core::mem::{align_of, MaybeUninit};

use crate::ffi::{DLTensor, Device};
use crate::runtime::process::environment::alloc_with;
use crate::tensor::{allocatable, zeroed_vec, Element, Tensor};
use crate::value::error::{Error, Result};
use crate::value::object::{ObjectHandle, ObjectRef};

/// A new tensor whose elements are not written yet (see [`Tensor::empty_uninit`]).
pub struct UninitTensor<T: Element> {
    tensor: Tensor,
    data: *mut T,
    numel: usize,
    /// A Rust allocation, zeroed by the allocator already.
    zero: bool,
    _elements: PhantomData<T>,
}

impl Tensor {
    /// A new tensor of `shape` on `device`, as [`Tensor::empty`] allocates it, without
    /// the zero fill: write every element through [`UninitTensor::as_uninit_mut`] (host
    /// memory) or a device kernel, then [`UninitTensor::assume_init`]; or
    /// [`UninitTensor::fill`] it. The allocator's result is checked (dtype, shape, device,
    /// compact strides, alignment) before it is handed out.
    pub fn empty_uninit<T: Element>(shape: &[i64], device: Device) -> Result<UninitTensor<T>> {
        let numel = allocatable::<T>(shape)?;
        let Some(allocator) = crate::env::tensor_allocator() else {
            if device != Device::CPU {
                return Err(no_allocator(device));
            }
            // Zeroed (calloc: pages are zeroed as touched), for `Tensor::empty`.
            let mut tensor = Tensor::from_vec(zeroed_vec::<T>(numel, shape)?, shape)?;
            let data = tensor.as_mut_slice::<T>()?.as_mut_ptr();
            return Ok(UninitTensor { tensor, data, numel, zero: true, _elements: PhantomData });
        };
        let ndim = i32::try_from(shape.len()).map_err(|_| Error::value_error("too many dimensions"))?;
        let mut prototype = DLTensor {
            data: core::ptr::null_mut(),
            device,
            ndim,
            dtype: T::DTYPE,
            shape: shape.as_ptr().cast_mut(),
            strides: core::ptr::null_mut(),
            byte_offset: 0,
        };
        // SAFETY: the prototype's shape holds `ndim` extents and lives for the call.
        let tensor = Tensor::from_object(unsafe { alloc_with(allocator, &mut prototype) }?).map_err(not_a_tensor)?;
        match allocated::<T>(tensor.view().dl_tensor(), shape, device, numel) {
            Some(data) => Ok(UninitTensor { tensor, data, numel, zero: false, _elements: PhantomData }),
            None => Err(wrong_allocation::<T>(&tensor, shape, device)),
        }
    }
}

/// The element pointer of what the allocator returned, if it is what was asked for: `T`'s
/// dtype, `shape` (compact row-major: null strides, or the compact ones, any stride on an
/// extent of 1 or 0), `device`, and an aligned non-null address when it holds elements.
/// One pass over the dimensions: this is on every allocation's path.
#[inline]
fn allocated<T: Element>(dl: &DLTensor, shape: &[i64], device: Device, numel: usize) -> Option<*mut T> {
    if dl.dtype != T::DTYPE || dl.device != device || dl.ndim as usize != shape.len() || dl.shape.is_null() {
        return None;
    }
    let mut expected = 1i64;
    for i in (0..shape.len()).rev() {
        // SAFETY: a valid DLTensor has `ndim` extents, and `ndim` strides when non-null.
        let (dim, stride) = unsafe { (*dl.shape.add(i), (!dl.strides.is_null()).then(|| *dl.strides.add(i))) };
        if dim != shape[i] || stride.is_some_and(|s| s != expected && dim > 1 && numel > 0) {
            return None;
        }
        expected = expected.saturating_mul(dim);
    }
    if numel == 0 {
        return Some(core::ptr::NonNull::dangling().as_ptr());
    }
    let data = dl.data.cast::<u8>().wrapping_add(dl.byte_offset as usize).cast::<T>();
    (!data.is_null() && (data as usize) % align_of::<T>() == 0).then_some(data)
}

#[cold]
#[inline(never)]
fn not_a_tensor(o: ObjectRef) -> Error {
    Error::runtime_error(format!("the tensor allocator returned an object of type index {}", o.type_index()))
}

#[cold]
#[inline(never)]
fn no_allocator(device: Device) -> Error {
    Error::runtime_error(format!(
        "Tensor::empty on {device} needs the caller's tensor allocator, and none is set: call from a host that \
         provides one (tvm_ffi with PyTorch tensors, or a DLPack exchange API) or set one with \
         abi_core::env::set_tensor_allocator"
    ))
}

#[cold]
#[inline(never)]
fn wrong_allocation<T: Element>(tensor: &Tensor, shape: &[i64], device: Device) -> Error {
    let view = tensor.view();
    Error::runtime_error(format!(
        "the tensor allocator returned {view:?}, strides {:?}, data {:p} offset {}, for a compact {} {shape:?} on \
         {device}",
        view.strides().unwrap_or_default(),
        view.dl_tensor().data,
        view.dl_tensor().byte_offset,
        T::DTYPE
    ))
}

impl<T: Element> UninitTensor<T> {
    /// The elements to write, row-major, when the host can reach them (an error for device
    /// memory, which kernels write through [`data_ptr`](UninitTensor::data_ptr)).
    pub fn as_uninit_mut(&mut self) -> Result<&mut [MaybeUninit<T>]> {
        let device = self.tensor.view().device();
        if !device.is_host_accessible() {
            return Err(Error::value_error(format!("tensor data on {device} is not host-accessible")));
        }
        // SAFETY: a new, compact, aligned allocation of `numel` elements that only this
        // tensor references, borrowed exclusively; MaybeUninit asks nothing of its bytes.
        Ok(unsafe { core::slice::from_raw_parts_mut(self.data.cast::<MaybeUninit<T>>(), self.numel) })
    }

    /// The address of the first element, for a kernel to write (dangling but aligned when
    /// the tensor holds none).
    pub fn data_ptr(&self) -> *mut T {
        self.data
    }

    /// The dimensions.
    pub fn shape(&self) -> &[i64] {
        self.tensor.view().shape()
    }

    /// The device.
    pub fn device(&self) -> Device {
        self.tensor.view().device()
    }

    /// The tensor, every element written.
    ///
    /// # Safety
    /// Every element was written (through [`as_uninit_mut`](UninitTensor::as_uninit_mut)
    /// or by a kernel), or the tensor's memory is not host-accessible and nothing on the
    /// host reads it.
    pub unsafe fn assume_init(self) -> Tensor {
        self.tensor
    }

    /// The tensor with every element `value` (host memory).
    pub fn fill(mut self, value: T) -> Result<Tensor> {
        self.as_uninit_mut()?.iter_mut().for_each(|e| {
            e.write(value);
        });
        // SAFETY: every element was just written.
        Ok(unsafe { self.assume_init() })
    }

    /// The tensor zero-filled when the host can reach its memory, left as allocated for
    /// kernels otherwise ([`Tensor::empty`]).
    pub fn zeroed(self) -> Tensor {
        if !self.zero && self.device().is_host_accessible() {
            // SAFETY: `numel` elements this tensor alone references; all-zero bytes are a
            // valid `T` (the `Element` contract).
            unsafe { core::ptr::write_bytes(self.data, 0, self.numel) };
        }
        // SAFETY: written just above, or device memory the host does not read.
        unsafe { self.assume_init() }
    }
}

impl<T: Element> fmt::Debug for UninitTensor<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UninitTensor").field("dtype", &T::DTYPE.to_string()).field("shape", &self.shape()).finish()
    }
}
