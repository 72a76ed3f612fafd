//! A packed result to a Python object: `None`, `bool`, `int`, `float`, `str` and `bytes`,
//! and a `list` of `bool`, `int`, `float`, `str` or `bytes` for an Array result (the
//! package's `tvm_ffi` route makes the same `list`); an export whose result type may hold
//! anything else keeps the `tvm_ffi` route.

use core::ffi::c_char;

use super::capi::{api, list_set, PyApi, PyObject};
use crate::ffi::{type_index as ti, RawAny};
use crate::reflect::TypeDesc;
use crate::value::any::Any;
use crate::value::array::seq_slice;

/// Whether every value of `ty` converts here: not a `u64` or `usize`, whose values above
/// `i64::MAX` cross as integer objects, nor a fieldless enum; tensors only when `tensors`
/// ([`super::tensors`]).
pub fn converts(ty: &TypeDesc, tensors: bool) -> bool {
    match ty {
        TypeDesc::Int { bits: 64, signed: false } => false,
        TypeDesc::Tensor { .. } => tensors,
        // A fieldless enum's name becomes a member of the package's enum class, which the
        // door does not make: its `str` would be another value.
        TypeDesc::Enum(_) => false,
        TypeDesc::Optional(inner) => converts(inner, tensors),
        // A list of numbers, `bool`s, strings or bytes is a `list` in Python (the package's
        // `def` makes the same: `abi-cli`'s `plain_list`).
        TypeDesc::List(item) => item.is_plain() && !matches!(item, TypeDesc::None) && converts(item, false),
        ty => ty.is_plain(),
    }
}

/// `s` as a new Python `str`, held by an opaque pointer value that only the door that marked
/// the slot reads back: the maker the door registers (`crate::ffi::result_sink`); `None`
/// (no error left set) when the interpreter refuses it, and the shim makes its Str object
/// as for any caller.
///
/// Runs in the shim, which the door called with the GIL held (it marks the slot only then).
pub fn python_str(s: &str) -> Option<RawAny> {
    let api = api()?;
    // SAFETY: the GIL is held (the door marks the slot only when it keeps it for the call);
    // `s` is UTF-8 of its length.
    let object = unsafe { (api.unicode_from_string_and_size)(s.as_ptr().cast::<c_char>(), s.len() as isize) };
    if object.is_null() {
        // SAFETY: the GIL is held.
        unsafe { (api.err_clear)() };
        return None;
    }
    Some(RawAny::from_ptr(ti::OPAQUE_PTR, object.cast()))
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
    // SAFETY: the caller's guarantee; `owned` holds the value while it is read.
    unsafe { object_of_view(api, owned.as_raw()) }
}

/// The Python object of the value `raw` (borrowed), a new reference; null with an error set
/// for a kind [`converts`] excludes.
///
/// # Safety
/// `raw` is a live value; the GIL is held.
#[inline(always)]
unsafe fn object_of_view(api: &PyApi, raw: &RawAny) -> *mut PyObject {
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
            ti::ARRAY | ti::LIST => list_of(api, raw.ptr().cast()),
            _ => unconverted(api),
        }
    }
}

/// A new `list` of the items of the Array (or List) object `array`; null with an error set
/// when an item does not convert or the list could not be made.
///
/// # Safety
/// `array` is a live Array or List object; the GIL is held.
#[inline(never)]
unsafe fn list_of(api: &PyApi, array: *mut crate::ffi::ObjectHeader) -> *mut PyObject {
    // SAFETY: a live Array or List object (the caller's guarantee).
    let items = unsafe { seq_slice(array) };
    // SAFETY: the GIL is held; each item is live while `array` is, and a new list's items
    // are set once each, in order (an unfilled one is null, which `list`'s release skips).
    unsafe {
        let list = (api.list_new)(items.len() as isize);
        if list.is_null() {
            return list;
        }
        for (i, item) in items.iter().enumerate() {
            let object = object_of_view(api, item.raw());
            if object.is_null() {
                (api.dec_ref)(list);
                return object;
            }
            list_set(list, i, object);
        }
        list
    }
}

fn unconverted(api: &PyApi) -> *mut PyObject {
    // SAFETY: the GIL is held; the message is a C string.
    unsafe { (api.err_set_string)(api.type_error, c"abi: a result the Python door cannot convert".as_ptr()) };
    core::ptr::null_mut()
}
