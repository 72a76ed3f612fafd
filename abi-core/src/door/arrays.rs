//! numpy arrays read in place, as rust-numpy reads them: the fields of `PyArrayObject` and
//! of its `PyArray_Descr` that numpy's C ABI has kept since 1.x (unchanged in 2.x), giving
//! a `DLTensor` that borrows the array's memory for the call. No buffer export and no
//! DLPack capsule: the caller's argument holds the array alive across the call.

use core::ffi::c_void;

use super::capi::{PyBuffer, PyObject};
use crate::ffi::{code, DLTensor, DataType, Device};

/// The most dimensions a strided (not C-contiguous) array may have here; more take the
/// `tvm_ffi` route.
pub const MAX_STRIDED_DIMS: usize = 16;

// `PyArrayObject` (numpy/ndarraytypes.h): the object header, then these.
const DATA: usize = 16;
const NDIM: usize = 24;
const DIMENSIONS: usize = 32;
const STRIDES: usize = 40;
const DESCR: usize = 56;
const FLAGS: usize = 64;
// `PyArray_Descr`: the object header, the scalar type, then `kind`, `type`, `byteorder`,
// a flags byte, and `type_num`.
const BYTEORDER: usize = 26;
const TYPE_NUM: usize = 28;

const C_CONTIGUOUS: i32 = 0x0001;
const ALIGNED: i32 = 0x0100;
const WRITEABLE: i32 = 0x0400;

/// Where an array's converted strides live during the call.
pub type Strides = [i64; MAX_STRIDED_DIMS];

/// Bits of a C `long`: numpy's `NPY_LONG` and `NPY_ULONG`.
const LONG_BITS: u8 = (core::mem::size_of::<core::ffi::c_long>() * 8) as u8;

/// numpy's type numbers and the DLPack element types (code, bits) they hold, for the types
/// both have. Read both ways: a type number first met for an element type is the one
/// `numpy.from_dlpack` gives (`NPY_LONG` for int64 where a C `long` has 64 bits, else
/// `NPY_LONGLONG`).
const NUMPY_TYPES: [(i32, u8, u8); 16] = [
    (0, code::BOOL, 8),
    (1, code::INT, 8),
    (2, code::UINT, 8),
    (3, code::INT, 16),
    (4, code::UINT, 16),
    (5, code::INT, 32),
    (6, code::UINT, 32),
    (7, code::INT, LONG_BITS),
    (8, code::UINT, LONG_BITS),
    (9, code::INT, 64),
    (10, code::UINT, 64),
    (11, code::FLOAT, 32),
    (12, code::FLOAT, 64),
    (14, code::COMPLEX, 64),
    (15, code::COMPLEX, 128),
    (23, code::FLOAT, 16),
];

/// The DLPack element type of a numpy type number, `None` for the ones DLPack has no code
/// for here (long double, objects, strings, datetimes...).
fn dtype_of(type_num: i32) -> Option<DataType> {
    NUMPY_TYPES.iter().find(|t| t.0 == type_num).map(|&(_, c, bits)| DataType::new(c, bits))
}

/// numpy's type number for a DLPack element type, `None` where numpy has none here.
pub fn type_number(dtype: DataType) -> Option<i32> {
    let wanted = (dtype.code, dtype.bits);
    NUMPY_TYPES.iter().find(|t| dtype.lanes == 1 && (t.1, t.2) == wanted).map(|t| t.0)
}

/// The `DLTensor` of a numpy array (`array`'s type is `numpy.ndarray` or a subclass), its
/// strides converted into `strides` when it is not C-contiguous; `None` when the call must
/// take the `tvm_ffi` route: a read-only array for a parameter that may write, a dtype
/// DLPack has no code for, a byte order or alignment not native, a stride that is not a
/// whole number of elements, or more than [`MAX_STRIDED_DIMS`] strided dimensions.
///
/// # Safety
/// `array` is a live numpy array that outlives every use of the result; `strides`
/// outlives it too.
pub unsafe fn tensor_of(array: *mut PyObject, read_only_ok: bool, strides: &mut Strides) -> Option<DLTensor> {
    let at = |offset: usize| array.cast::<u8>().wrapping_add(offset);
    // SAFETY: `array` is a live `PyArrayObject` (the caller's guarantee), whose fields sit at
    // the offsets above in every numpy release; its descriptor is a live `PyArray_Descr`.
    unsafe {
        let flags = *at(FLAGS).cast::<i32>();
        if flags & ALIGNED == 0 || (flags & WRITEABLE == 0 && !read_only_ok) {
            return None;
        }
        let descr = *at(DESCR).cast::<*const u8>();
        let byteorder = *descr.add(BYTEORDER);
        let native = if cfg!(target_endian = "little") { b'<' } else { b'>' };
        if !matches!(byteorder, b'=' | b'|') && byteorder != native {
            return None;
        }
        let dtype = dtype_of(*descr.add(TYPE_NUM).cast::<i32>())?;
        let ndim = *at(NDIM).cast::<i32>();
        let shape = *at(DIMENSIONS).cast::<*mut i64>();
        let strides_ptr = if flags & C_CONTIGUOUS != 0 {
            core::ptr::null_mut()
        } else {
            let n = usize::try_from(ndim).ok().filter(|&n| n <= MAX_STRIDED_DIMS)?;
            let bytes = core::slice::from_raw_parts(*at(STRIDES).cast::<*const i64>(), n);
            let item = i64::from(dtype.bits / 8).max(1);
            for (out, &b) in strides.iter_mut().zip(bytes) {
                if b % item != 0 {
                    return None;
                }
                *out = b / item;
            }
            strides.as_mut_ptr()
        };
        Some(DLTensor {
            data: *at(DATA).cast::<*mut c_void>(),
            device: Device::CPU,
            ndim,
            dtype,
            shape,
            strides: strides_ptr,
            byte_offset: 0,
        })
    }
}

/// The DLPack element type of a buffer's `struct` format of items of `itemsize` bytes: one
/// code, after an optional byte order that must be the native one (`@`, `=`, and `<` or `>`
/// as the platform is); `None` for anything else (pointers, chars, structs, suboffsets).
fn buffer_dtype(format: &[u8], itemsize: isize) -> Option<DataType> {
    let native = if cfg!(target_endian = "little") { b'<' } else { b'>' };
    let code = match format {
        [order, rest @ ..] if matches!(*order, b'@' | b'=') || *order == native => rest,
        [b'<' | b'>' | b'!', ..] => return None,
        all => all,
    };
    let bits = u8::try_from(itemsize * 8).ok()?;
    let kind = match code {
        [b'?'] => code::BOOL,
        [b'b' | b'h' | b'i' | b'l' | b'q' | b'n'] => code::INT,
        [b'B' | b'H' | b'I' | b'L' | b'Q' | b'N'] => code::UINT,
        [b'e' | b'f' | b'd'] => code::FLOAT,
        [b'Z', b'f' | b'd'] => code::COMPLEX,
        _ => return None,
    };
    Some(DataType::new(kind, bits))
}

/// The `DLTensor` of a buffer the door got with `PyBUF_RECORDS(_RO)` (so it has a format,
/// a shape and strides), its strides converted into `strides`; `None` when the call must
/// take the `tvm_ffi` route: an item type DLPack has no code for here, suboffsets, a
/// stride that is not a whole number of items, more than [`MAX_STRIDED_DIMS`] dimensions.
///
/// # Safety
/// `view` is a buffer got from its exporter and not yet released; `strides` outlives the
/// result.
pub unsafe fn tensor_of_buffer(view: &PyBuffer, strides: &mut Strides) -> Option<DLTensor> {
    if view.format.is_null() || !view.suboffsets.is_null() || view.itemsize <= 0 {
        return None;
    }
    // SAFETY: a buffer's format is a C string.
    let format = unsafe { core::ffi::CStr::from_ptr(view.format) }.to_bytes();
    let dtype = buffer_dtype(format, view.itemsize)?;
    let n = usize::try_from(view.ndim).ok().filter(|&n| n <= MAX_STRIDED_DIMS)?;
    if n > 0 {
        // SAFETY: `ndim` strides, in bytes (requested with `PyBUF_STRIDES`).
        let bytes = unsafe { core::slice::from_raw_parts(view.strides, n) };
        for (out, &b) in strides.iter_mut().zip(bytes) {
            if b % view.itemsize != 0 {
                return None;
            }
            *out = (b / view.itemsize) as i64;
        }
    }
    Some(DLTensor {
        data: view.buf,
        device: Device::CPU,
        ndim: view.ndim,
        dtype,
        // `Py_ssize_t` is `i64` on the 64-bit builds the door serves.
        shape: view.shape.cast_mut().cast::<i64>(),
        strides: if n > 0 { strides.as_mut_ptr() } else { core::ptr::null_mut() },
        byte_offset: 0,
    })
}
