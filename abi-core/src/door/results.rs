//! A packed result to a Python object: `None`, `bool`, `int`, `float`, `str` and `bytes`
//! (an export whose result type may hold anything else keeps the `tvm_ffi` route).

use core::ffi::c_char;

use super::capi::{PyApi, PyObject};
use crate::ffi::{type_index as ti, RawAny};
use crate::reflect::TypeDesc;
use crate::value::any::Any;

/// Whether every value of `ty` converts here: not a `u64` or `usize`, whose values above
/// `i64::MAX` cross as integer objects; tensors only when `tensors` ([`super::tensors`]).
pub fn converts(ty: &TypeDesc, tensors: bool) -> bool {
    match ty {
        TypeDesc::Int { bits: 64, signed: false } => false,
        TypeDesc::Tensor { .. } => tensors,
        TypeDesc::None | TypeDesc::Bool | TypeDesc::Int { .. } | TypeDesc::Float { .. } => true,
        TypeDesc::Str | TypeDesc::Bytes => true,
        TypeDesc::Optional(inner) => converts(inner, tensors),
        _ => false,
    }
}

/// The Python object of the result `raw` (owned: released here), a new reference; null with
/// a `TypeError` set for a kind [`converts`] excludes, which a correct shim never returns
/// (tensors are converted before, by the caller).
///
/// # Safety
/// `raw` is a result a packed call wrote; the GIL is held.
#[inline]
pub unsafe fn object_of(api: &PyApi, raw: RawAny) -> *mut PyObject {
    // SAFETY: a call's result owns what it holds (released when `owned` drops).
    let owned = unsafe { Any::from_raw(raw) };
    let raw = owned.as_raw();
    let constant = |o: *mut PyObject| {
        // SAFETY: a live object of the table; the GIL is held.
        unsafe { (api.inc_ref)(o) };
        o
    };
    // SAFETY: each branch reads the payload its type index defines; the GIL is held.
    unsafe {
        match raw.type_index {
            ti::NONE => constant(api.none),
            ti::BOOL => constant(if raw.i64() != 0 { api.true_ } else { api.false_ }),
            ti::INT => (api.long_from_long_long)(raw.i64()),
            ti::FLOAT => (api.float_from_double)(raw.f64()),
            ti::SMALL_STR | ti::STR => match raw.string_bytes() {
                Some(b) => (api.unicode_from_string_and_size)(b.as_ptr().cast::<c_char>(), b.len() as isize),
                None => unconverted(api),
            },
            ti::SMALL_BYTES | ti::BYTES => match raw.string_bytes() {
                Some(b) => (api.bytes_from_string_and_size)(b.as_ptr().cast::<c_char>(), b.len() as isize),
                None => unconverted(api),
            },
            _ => unconverted(api),
        }
    }
}

fn unconverted(api: &PyApi) -> *mut PyObject {
    // SAFETY: the GIL is held; the message is a C string.
    unsafe { (api.err_set_string)(api.type_error, c"abi: a result the Python door cannot convert".as_ptr()) };
    core::ptr::null_mut()
}
