//! The CPython C API the door calls, as a table of addresses the generated package fills
//! from the running interpreter (`ctypes.pythonapi`, `id(...)`) when it opens the door. The
//! library links no libpython and names no `Py*` symbol, so it loads in a process with no
//! Python at all; this table is the only way its code reaches the interpreter.
//!
//! Besides these functions the door reads three layouts of GIL-enabled, non-debug CPython
//! 3.10 to 3.14 builds (the package opens the door on no other): an object's type at offset
//! 8 (`PyObject.ob_type`), a tuple's length at 16 and items from 24 (`PyTupleObject`), and
//! numpy's array and descriptor fields ([`super::arrays`]).

use core::ffi::{c_char, c_int, c_void};
use std::sync::OnceLock;

/// A Python object, opaque.
#[repr(C)]
pub struct PyObject {
    _private: [u8; 0],
}

/// `PyType_Slot`.
#[repr(C)]
pub struct TypeSlot {
    pub slot: c_int,
    pub pfunc: *mut c_void,
}

/// `PyType_Spec`.
#[repr(C)]
pub struct TypeSpec {
    pub name: *const c_char,
    pub basicsize: c_int,
    pub itemsize: c_int,
    pub flags: u32,
    pub slots: *mut TypeSlot,
}

/// `PyMemberDef`.
#[repr(C)]
pub struct MemberDef {
    pub name: *const c_char,
    pub kind: c_int,
    pub offset: isize,
    pub flags: c_int,
    pub doc: *const c_char,
}

type Obj = *mut PyObject;

/// The table the package passes to `abi_python_door_open`, in this order (docs/ABI.md,
/// "The Python door"): the objects first, then the functions, each a pointer-sized field.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct PyApi {
    /// `None`, `True`, `False`.
    pub none: Obj,
    pub true_: Obj,
    pub false_: Obj,
    /// The types `int`, `float`, `str`, `bytes`.
    pub int_type: Obj,
    pub float_type: Obj,
    pub str_type: Obj,
    pub bytes_type: Obj,
    /// `numpy.ndarray`, or null when numpy is not there.
    pub ndarray_type: Obj,
    /// numpy's C API table (`_ARRAY_API`), or null.
    pub numpy_api: *const *const c_void,
    /// `numpy.from_dlpack`, or null.
    pub from_dlpack: Obj,
    /// `TypeError`.
    pub type_error: Obj,
    /// A `tvm_ffi.Function` over `abi_python_door_parked`: calling it returns the result
    /// or raises the error the door parked, as the `tvm_ffi` route returns or raises it.
    pub parked: Obj,
    /// The buffer types the door reads as tensors: `memoryview`, `bytearray`, `array.array`.
    pub memoryview_type: Obj,
    pub bytearray_type: Obj,
    pub array_type: Obj,
    /// `torch.Tensor` when torch was imported when the door opened, else null: the one type
    /// of framework tensor an op's call takes through the door.
    pub torch_tensor_type: Obj,
    pub inc_ref: unsafe extern "C" fn(Obj),
    pub dec_ref: unsafe extern "C" fn(Obj),
    pub long_as_long_long_and_overflow: unsafe extern "C" fn(Obj, *mut c_int) -> i64,
    pub long_from_long_long: unsafe extern "C" fn(i64) -> Obj,
    pub float_as_double: unsafe extern "C" fn(Obj) -> f64,
    pub float_from_double: unsafe extern "C" fn(f64) -> Obj,
    pub unicode_as_utf8_and_size: unsafe extern "C" fn(Obj, *mut isize) -> *const c_char,
    pub unicode_from_string_and_size: unsafe extern "C" fn(*const c_char, isize) -> Obj,
    pub unicode_intern_from_string: unsafe extern "C" fn(*const c_char) -> Obj,
    pub bytes_as_string_and_size: unsafe extern "C" fn(Obj, *mut *mut c_char, *mut isize) -> c_int,
    pub bytes_from_string_and_size: unsafe extern "C" fn(*const c_char, isize) -> Obj,
    pub err_clear: unsafe extern "C" fn(),
    pub err_set_string: unsafe extern "C" fn(Obj, *const c_char),
    pub vectorcall: unsafe extern "C" fn(Obj, *const Obj, usize, Obj) -> Obj,
    pub vectorcall_call: unsafe extern "C" fn(Obj, Obj, Obj) -> Obj,
    pub save_thread: unsafe extern "C" fn() -> *mut c_void,
    pub restore_thread: unsafe extern "C" fn(*mut c_void),
    pub type_from_spec: unsafe extern "C" fn(*mut TypeSpec) -> Obj,
    pub type_generic_alloc: unsafe extern "C" fn(Obj, isize) -> Obj,
    pub type_is_subtype: unsafe extern "C" fn(Obj, Obj) -> c_int,
    pub object_free: unsafe extern "C" fn(*mut c_void),
    pub clear_weak_refs: unsafe extern "C" fn(Obj),
    pub capsule_new: unsafe extern "C" fn(*mut c_void, *const c_char, unsafe extern "C" fn(Obj)) -> Obj,
    pub capsule_get_pointer: unsafe extern "C" fn(Obj, *const c_char) -> *mut c_void,
    pub tuple_new: unsafe extern "C" fn(isize) -> Obj,
    pub list_new: unsafe extern "C" fn(isize) -> Obj,
    pub get_buffer: unsafe extern "C" fn(Obj, *mut PyBuffer, c_int) -> c_int,
    pub release_buffer: unsafe extern "C" fn(*mut PyBuffer),
    pub get_attr_string: unsafe extern "C" fn(Obj, *const c_char) -> Obj,
}

/// `Py_buffer`, the same in every CPython 3 build.
#[repr(C)]
pub struct PyBuffer {
    pub buf: *mut c_void,
    pub obj: Obj,
    pub len: isize,
    pub itemsize: isize,
    pub readonly: c_int,
    pub ndim: c_int,
    pub format: *const c_char,
    pub shape: *const isize,
    pub strides: *const isize,
    pub suboffsets: *const isize,
    pub internal: *mut c_void,
}

// SAFETY: the table holds addresses of the interpreter's functions and immortal-for-the-
// process objects; every use happens with the GIL held.
unsafe impl Send for PyApi {}
// SAFETY: see above.
unsafe impl Sync for PyApi {}

static API: OnceLock<PyApi> = OnceLock::new();

/// Keeps the first table a package gives (one interpreter per process); later ones are the
/// same interpreter's.
pub fn install(api: PyApi) -> &'static PyApi {
    API.get_or_init(|| api)
}

/// The table, once a package opened the door.
#[inline(always)]
pub fn api() -> Option<&'static PyApi> {
    API.get()
}

/// `Py_TYPE(o)`: the type pointer at offset 8 of every object of the builds the door serves.
///
/// # Safety
/// `o` is a live object.
#[inline(always)]
pub unsafe fn type_of(o: Obj) -> Obj {
    // SAFETY: a GIL-enabled release build's object header is `ob_refcnt`, then `ob_type`.
    unsafe { *o.cast::<Obj>().add(1) }
}

/// Sets item `i` of a new tuple (`PyTuple_SET_ITEM`), taking over the reference to `item`.
///
/// # Safety
/// `t` is a tuple made by `tuple_new` with more than `i` items, item `i` not yet set.
#[inline(always)]
pub unsafe fn tuple_set(t: Obj, i: usize, item: Obj) {
    // SAFETY: `PyTupleObject`'s items start at offset 24 (see `tuple_items`).
    unsafe { t.cast::<Obj>().add(3 + i).write(item) }
}

/// Sets item `i` of a new list (`PyList_SET_ITEM`), taking over the reference to `item`.
///
/// # Safety
/// `l` is a list made by `list_new` with more than `i` items, item `i` not yet set.
#[inline(always)]
pub unsafe fn list_set(l: Obj, i: usize, item: Obj) {
    // SAFETY: `PyListObject` is a variable-size object header (refcount, type, size), then
    // the pointer to its items, in the builds the door serves.
    unsafe { (*l.cast::<*mut Obj>().add(3)).add(i).write(item) }
}

/// The items of a tuple (`kwnames`): its length at offset 16, its items from 24.
///
/// # Safety
/// `t` is a live tuple that outlives the result.
#[inline(always)]
pub unsafe fn tuple_items<'a>(t: Obj) -> &'a [Obj] {
    // SAFETY: `PyTupleObject` is a variable-size object header (refcount, type, size) then
    // its item pointers, in the builds the door serves.
    unsafe {
        let len = *t.cast::<isize>().add(2);
        core::slice::from_raw_parts(t.cast::<Obj>().add(3), len.max(0) as usize)
    }
}
