//! Python arguments to packed argument slots, as `tvm_ffi` converts them (by the Python
//! type, so the shim sees the values it sees through `tvm_ffi`): exact `int` (within i64),
//! `bool`, `float`, `None` for every parameter; exact `str` and `bytes` for string and byte
//! parameters; numpy arrays for tensor parameters,
//! read-only ones for parameters that only read (`abi.read_only`). Anything else answers `None`: the whole call takes the `tvm_ffi` route.

use core::ffi::{c_char, c_int};
use core::mem::MaybeUninit;

use super::arrays::{tensor_of, Strides};
use super::capi::{type_of, PyApi, PyObject};
use crate::ffi::{type_index as ti, ByteArray, DLTensor, RawAny, RawValue};
use crate::reflect::{ParamDesc, TypeDesc};

/// What a parameter takes besides inline scalars.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Takes {
    /// Scalars and `None` only.
    Scalars,
    /// Also `str`.
    Str,
    /// Also `bytes`.
    Bytes,
    /// Also numpy arrays; read-only ones when `read_only_ok`.
    Array { read_only_ok: bool },
}

impl Takes {
    /// What `param` takes through the door.
    pub fn of(param: &ParamDesc) -> Takes {
        let ty = match param.ty {
            TypeDesc::Optional(inner) => inner,
            ty => ty,
        };
        match ty {
            TypeDesc::Str => Takes::Str,
            TypeDesc::Bytes => Takes::Bytes,
            TypeDesc::Tensor { .. } => Takes::Array { read_only_ok: param.reads_tensor_only() },
            _ => Takes::Scalars,
        }
    }
}

/// Per-slot room for what a slot points to during the call.
pub struct Scratch {
    bytes: MaybeUninit<ByteArray>,
    tensor: MaybeUninit<DLTensor>,
    strides: MaybeUninit<Strides>,
}

impl Scratch {
    /// Room not yet written.
    pub const EMPTY: Scratch =
        Scratch { bytes: MaybeUninit::uninit(), tensor: MaybeUninit::uninit(), strides: MaybeUninit::uninit() };
}

/// The slot of `obj` for a parameter taking `takes`, `None` when the door does not convert
/// it (no Python error is left set).
///
/// # Safety
/// `obj` is a live object that outlives the call; `scratch` outlives every use of the slot.
#[inline]
pub unsafe fn slot(api: &PyApi, obj: *mut PyObject, takes: Takes, scratch: &mut Scratch) -> Option<RawAny> {
    // SAFETY: `obj` is live (the caller's guarantee).
    let ty = unsafe { type_of(obj) };
    if ty == api.int_type {
        let mut overflow: c_int = 0;
        // SAFETY: an exact int; the function reports overflow without raising.
        let v = unsafe { (api.long_as_long_long_and_overflow)(obj, &mut overflow) };
        return (overflow == 0).then_some(RawAny::from_i64(ti::INT, v));
    }
    if ty == api.float_type {
        // SAFETY: an exact float, which converts without raising.
        let v = unsafe { (api.float_as_double)(obj) };
        return Some(RawAny { type_index: ti::FLOAT, small_len: 0, value: RawValue { v_float64: v } });
    }
    if obj == api.true_ || obj == api.false_ {
        return Some(RawAny::from_i64(ti::BOOL, i64::from(obj == api.true_)));
    }
    if obj == api.none {
        return Some(RawAny::NONE);
    }
    match takes {
        Takes::Str if ty == api.str_type => {
            let mut len: isize = 0;
            // SAFETY: an exact str; the UTF-8 buffer is cached on the object, which the
            // caller keeps alive for the call.
            let p = unsafe { (api.unicode_as_utf8_and_size)(obj, &mut len) };
            if p.is_null() {
                // Lone surrogates: the `tvm_ffi` route raises its own error.
                // SAFETY: the GIL is held.
                unsafe { (api.err_clear)() };
                return None;
            }
            // SAFETY: `len` bytes at `p`, followed by a NUL.
            let text = unsafe { core::slice::from_raw_parts(p.cast::<u8>(), len as usize) };
            string_slot(text, ti::SMALL_STR, ti::RAW_STR, p, scratch)
        }
        Takes::Bytes if ty == api.bytes_type => {
            let (mut p, mut len): (*mut c_char, isize) = (core::ptr::null_mut(), 0);
            // SAFETY: an exact bytes object, which always gives its buffer.
            if unsafe { (api.bytes_as_string_and_size)(obj, &mut p, &mut len) } != 0 {
                // SAFETY: the GIL is held.
                unsafe { (api.err_clear)() };
                return None;
            }
            // SAFETY: `len` bytes at `p`, owned by the live object.
            let data = unsafe { core::slice::from_raw_parts(p.cast::<u8>(), len as usize) };
            string_slot(data, ti::SMALL_BYTES, ti::BYTE_ARRAY_PTR, p, scratch)
        }
        Takes::Array { read_only_ok } if !api.ndarray_type.is_null() => {
            // SAFETY: both are live type objects.
            let is_array = ty == api.ndarray_type || unsafe { (api.type_is_subtype)(ty, api.ndarray_type) } != 0;
            if !is_array {
                return None;
            }
            // SAFETY: a numpy array, alive for the call; the strides room outlives the slot.
            let tensor = unsafe { tensor_of(obj, read_only_ok, scratch.strides.write([0; _])) }?;
            let at = scratch.tensor.write(tensor);
            Some(RawAny::from_ptr(ti::DL_TENSOR_PTR, (at as *mut DLTensor).cast()))
        }
        _ => None,
    }
}

/// A string or bytes slot: inline when it fits, else borrowed (a C string, which must hold
/// no NUL, or a byte array in `scratch`).
fn string_slot(data: &[u8], small: i32, borrowed: i32, p: *const c_char, scratch: &mut Scratch) -> Option<RawAny> {
    if data.len() <= ti::SMALL_STR_MAX_LEN {
        let mut inline = [0u8; 8];
        inline[..data.len()].copy_from_slice(data);
        return Some(RawAny { type_index: small, small_len: data.len() as u32, value: RawValue { v_bytes: inline } });
    }
    if borrowed == ti::RAW_STR {
        if data.contains(&0) {
            return None;
        }
        return Some(RawAny::from_ptr(ti::RAW_STR, p.cast_mut().cast()));
    }
    let at = scratch.bytes.write(ByteArray { data: data.as_ptr(), size: data.len() });
    Some(RawAny::from_ptr(ti::BYTE_ARRAY_PTR, (at as *mut ByteArray).cast()))
}
