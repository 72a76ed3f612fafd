//! Tensor results as numpy arrays, for calls given numpy arrays (numpy in, numpy out): a
//! host tensor of a dtype numpy has becomes an array over the tensor's memory through
//! numpy's own C API (`PyArray_NewFromDescr`, the table numpy publishes as `_ARRAY_API`),
//! its base a capsule holding the tensor, as rust-numpy makes arrays. Any other tensor
//! (another device, a dtype numpy lacks) goes the `tvm_ffi` route's way: handed back
//! through `tvm_ffi` (the parked result, [`super::callable`]) and given to
//! `numpy.from_dlpack`, which accepts or refuses it as it does for that route.

use core::ffi::{c_int, c_void};

use super::arrays::type_number;
use super::capi::{PyApi, PyObject};
use crate::ffi::{cell_ptr, device_type, DLTensor, ObjectHeader};
use crate::value::object::dec_ref;

type Obj = *mut PyObject;

// Indices into numpy's `_ARRAY_API` (numpy/__multiarray_api.h, the same in numpy 1.x and 2.x).
const DESCR_FROM_TYPE: usize = 45;
const NEW_FROM_DESCR: usize = 94;
const SET_BASE_OBJECT: usize = 282;
const WRITEABLE: c_int = 0x0400;
/// The most dimensions a strided result has here; more take the `tvm_ffi` route's way.
const MAX_DIMS: usize = 32;

type DescrFromType = unsafe extern "C" fn(c_int) -> Obj;
type SetBaseObject = unsafe extern "C" fn(Obj, Obj) -> c_int;
type NewFromDescr = unsafe extern "C" fn(Obj, Obj, c_int, *const i64, *const i64, *mut c_void, c_int, Obj) -> Obj;

/// The functions of numpy's C API the door calls.
struct NumpyFns {
    descr_from_type: DescrFromType,
    new_from_descr: NewFromDescr,
    set_base_object: SetBaseObject,
}

impl NumpyFns {
    /// Read from the table.
    ///
    /// # Safety
    /// The table has numpy's API.
    #[inline]
    unsafe fn of(api: &PyApi) -> NumpyFns {
        let table = api.numpy_api;
        // SAFETY: numpy's API table holds functions of these signatures at these indices.
        unsafe {
            NumpyFns {
                descr_from_type: core::mem::transmute::<*const c_void, DescrFromType>(*table.add(DESCR_FROM_TYPE)),
                new_from_descr: core::mem::transmute::<*const c_void, NewFromDescr>(*table.add(NEW_FROM_DESCR)),
                set_base_object: core::mem::transmute::<*const c_void, SetBaseObject>(*table.add(SET_BASE_OBJECT)),
            }
        }
    }

    /// A new writable `numpy.ndarray` of type number `type_num` and `shape` (`ndim`
    /// dimensions), C-contiguous when `strides` (bytes) is null; over `data` when not null
    /// (the caller keeps it alive), else over memory numpy allocates. Null with a Python
    /// error set when numpy failed.
    ///
    /// # Safety
    /// The GIL is held; `shape` (and `strides` when not null) hold `ndim` values.
    unsafe fn array(
        &self,
        api: &PyApi,
        type_num: i32,
        ndim: c_int,
        shape: *const i64,
        strides: *const i64,
        data: *mut c_void,
    ) -> Obj {
        // SAFETY: the GIL is held; the descriptor's reference is taken over by the array.
        unsafe {
            let descr = (self.descr_from_type)(type_num);
            if descr.is_null() {
                return descr;
            }
            let flags = if data.is_null() { 0 } else { WRITEABLE };
            (self.new_from_descr)(api.ndarray_type, descr, ndim, shape, strides, data, flags, core::ptr::null_mut())
        }
    }
}

/// A new C-contiguous numpy array of type number `type_num` and `shape`, its memory
/// allocated by numpy and not initialized (`numpy.empty`); null with a Python error set
/// when numpy failed (an impossible size).
///
/// # Safety
/// The GIL is held; the table has numpy's API.
pub unsafe fn empty_array(api: &PyApi, type_num: i32, shape: &[i64]) -> Obj {
    // SAFETY: the caller's guarantee; `shape` holds its length's values.
    unsafe {
        NumpyFns::of(api).array(
            api,
            type_num,
            shape.len() as c_int,
            shape.as_ptr(),
            core::ptr::null(),
            core::ptr::null_mut(),
        )
    }
}

/// The capsule destructor: releases the tensor the array's memory belongs to.
unsafe extern "C" fn release_tensor(capsule: Obj) {
    // SAFETY: a capsule this module made, holding one strong reference to a tensor; the
    // table is installed (the capsule exists only after the door opened).
    unsafe {
        let api = super::capi::api().unwrap_unchecked();
        let tensor = (api.capsule_get_pointer)(capsule, core::ptr::null());
        if !tensor.is_null() {
            dec_ref(tensor.cast());
        }
    }
}

/// A numpy array over the host tensor `tensor` (a Tensor object; its reference is taken
/// over: the array's base holds it), or `Err(tensor)` when numpy cannot take it here (given
/// back untouched). `Ok(null)` with a Python error set when numpy failed.
///
/// # Safety
/// `tensor` is a live Tensor object the caller owns one reference to; the GIL is held; the
/// table has numpy's API.
pub unsafe fn numpy_array(api: &PyApi, tensor: *mut ObjectHeader) -> Result<Obj, *mut ObjectHeader> {
    // SAFETY: a Tensor object's cell is its DLTensor.
    let dl = unsafe { &*cell_ptr::<DLTensor>(tensor) };
    let ndim = usize::try_from(dl.ndim).unwrap_or(usize::MAX);
    let Some(type_num) = type_number(dl.dtype) else { return Err(tensor) };
    if dl.device.device_type != device_type::CPU || ndim > MAX_DIMS || api.numpy_api.is_null() {
        return Err(tensor);
    }
    let item = (usize::from(dl.dtype.bits) / 8).max(1) as i64;
    let mut strides = [0i64; MAX_DIMS];
    let strides_ptr = if dl.strides.is_null() {
        core::ptr::null()
    } else {
        // SAFETY: `ndim` strides, in elements.
        let given = unsafe { core::slice::from_raw_parts(dl.strides, ndim) };
        for (out, &s) in strides.iter_mut().zip(given) {
            *out = s * item;
        }
        strides.as_ptr()
    };
    // SAFETY: the table has numpy's API (the caller's guarantee); the shape and strides are
    // copied by numpy; the data lives as long as the tensor, which the capsule, the array's
    // base, holds.
    unsafe {
        let numpy = NumpyFns::of(api);
        let data = dl.data.cast::<u8>().wrapping_add(dl.byte_offset as usize).cast::<c_void>();
        let shape = if ndim == 0 { strides.as_ptr() } else { dl.shape.cast_const() };
        let array = numpy.array(api, type_num, dl.ndim, shape, strides_ptr, data);
        if array.is_null() {
            dec_ref(tensor);
            return Ok(array);
        }
        let capsule = (api.capsule_new)(tensor.cast(), core::ptr::null(), release_tensor);
        if capsule.is_null() {
            dec_ref(tensor);
            (api.dec_ref)(array);
            return Ok(core::ptr::null_mut());
        }
        // The base reference is taken even when setting it fails.
        if (numpy.set_base_object)(array, capsule) != 0 {
            (api.dec_ref)(array);
            return Ok(core::ptr::null_mut());
        }
        Ok(array)
    }
}
