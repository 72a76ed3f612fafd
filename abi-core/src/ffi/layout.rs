//! The raw C layouts of the ABI (docs/ABI.md sections 1-2) as plain data: the 16-byte
//! `TVMFFIAny`, the 24-byte object header and the cells behind it. No ownership rules
//! live here; the value layer ([`crate::Any`], [`crate::ObjectRef`]) adds them.

use core::ffi::{c_void, CStr};
use core::fmt;
use core::mem::offset_of;
use core::sync::atomic::AtomicU64;

use static_assertions::{assert_eq_align, assert_eq_size, const_assert_eq};

use crate::ffi::dtype::{DataType, Device};
use crate::ffi::type_index as ti;

/// The 8-byte value union of `TVMFFIAny`.
#[repr(C)]
#[derive(Clone, Copy)]
pub union RawValue {
    /// Integers and booleans.
    pub v_int64: i64,
    /// Floats.
    pub v_float64: f64,
    /// Pointers of every kind (objects, strings, tensors).
    pub v_ptr: *mut c_void,
    /// `DLDataType`.
    pub v_dtype: DataType,
    /// `DLDevice`.
    pub v_device: Device,
    /// Inline small-string bytes.
    pub v_bytes: [u8; 8],
    /// Raw bits.
    pub v_uint64: u64,
}

impl fmt::Debug for RawValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // SAFETY: every bit pattern is a valid u64.
        write!(f, "{:#x}", unsafe { self.v_uint64 })
    }
}

/// `TVMFFIAny` as plain data: no ownership semantics.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct RawAny {
    /// The type index (see [`crate::ffi::type_index`]).
    pub type_index: i32,
    /// Small-string length for 11/12; zero for every other type.
    pub small_len: u32,
    /// The payload.
    pub value: RawValue,
}

assert_eq_size!(RawAny, [u8; 16]);
assert_eq_size!(RawValue, u64);
assert_eq_align!(RawAny, u64);
assert_eq_size!(usize, u64);
const_assert_eq!(core::mem::offset_of!(RawAny, type_index), 0);
const_assert_eq!(core::mem::offset_of!(RawAny, small_len), 4);
const_assert_eq!(core::mem::offset_of!(RawAny, value), 8);

impl RawAny {
    /// The None value.
    pub const NONE: RawAny = RawAny { type_index: ti::NONE, small_len: 0, value: RawValue { v_uint64: 0 } };

    /// A value with `type_index` and a 64-bit integer payload.
    #[inline(always)]
    pub const fn from_i64(type_index: i32, v: i64) -> RawAny {
        RawAny { type_index, small_len: 0, value: RawValue { v_int64: v } }
    }

    /// A value with `type_index` and a pointer payload.
    #[inline(always)]
    pub const fn from_ptr(type_index: i32, p: *mut c_void) -> RawAny {
        RawAny { type_index, small_len: 0, value: RawValue { v_ptr: p } }
    }

    /// The payload as i64 (meaningful for Int and Bool).
    #[inline(always)]
    pub fn i64(&self) -> i64 {
        // SAFETY: every bit pattern of the 8-byte union is a valid i64.
        unsafe { self.value.v_int64 }
    }

    /// The payload as f64 (meaningful for Float).
    #[inline(always)]
    pub fn f64(&self) -> f64 {
        // SAFETY: every bit pattern is a valid f64.
        unsafe { self.value.v_float64 }
    }

    /// The payload as a pointer (meaningful for pointer and object kinds).
    #[inline(always)]
    pub fn ptr(&self) -> *mut c_void {
        // SAFETY: the union is 8 bytes and pointers are 8 bytes (asserted above).
        unsafe { self.value.v_ptr }
    }

    /// The payload bytes.
    #[inline(always)]
    pub fn bytes(&self) -> &[u8; 8] {
        // SAFETY: every bit pattern is a valid byte array.
        unsafe { &self.value.v_bytes }
    }
}

impl RawAny {
    /// The bytes of a string or bytes value in any of its forms (SmallStr/SmallBytes
    /// inline, Str/Bytes objects, RawStr, ByteArrayPtr); `None` for other kinds and null
    /// pointers (a null Str/Bytes object handle too).
    ///
    /// # Safety
    /// What the value points to (object, C string, byte array) outlives the borrow of
    /// `self`.
    #[inline]
    pub unsafe fn string_bytes(&self) -> Option<&[u8]> {
        match self.type_index {
            ti::SMALL_STR | ti::SMALL_BYTES => {
                let len = (self.small_len as usize).min(ti::SMALL_STR_MAX_LEN);
                Some(&self.bytes()[..len])
            }
            ti::STR | ti::BYTES if !self.ptr().is_null() => {
                // SAFETY: a non-null Str/Bytes object's cell starts with a byte array that
                // lives as long as the object, valid for the borrow by the caller's guarantee.
                Some(unsafe { (*cell_ptr::<ByteArray>(self.ptr().cast())).as_slice() })
            }
            // SAFETY: a non-null RawStr is a NUL-terminated string valid for the borrow.
            ti::RAW_STR if !self.ptr().is_null() => Some(unsafe { CStr::from_ptr(self.ptr().cast()) }.to_bytes()),
            ti::BYTE_ARRAY_PTR if !self.ptr().is_null() => {
                // SAFETY: a non-null ByteArrayPtr points to a byte array valid for the borrow.
                Some(unsafe { (*self.ptr().cast::<ByteArray>()).as_slice() })
            }
            _ => None,
        }
    }
}

impl fmt::Debug for RawAny {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RawAny({}, {}, {:#x})", self.type_index, self.small_len, self.i64())
    }
}

/// Deleter flag: destroy the payload (strong count reached zero).
pub const DELETER_STRONG: i32 = 1;
/// Deleter flag: free the memory (weak count reached zero).
pub const DELETER_WEAK: i32 = 2;
/// Both flags at once.
pub const DELETER_BOTH: i32 = DELETER_STRONG | DELETER_WEAK;

/// Reference count of a freshly created object: one strong, one weak unit.
pub const INITIAL_REF_COUNT: u64 = 0x1_0000_0001;
/// The strong count's bits of `combined_ref_count`.
pub const STRONG_MASK: u64 = 0xFFFF_FFFF;
/// One weak reference in `combined_ref_count`.
pub const WEAK_UNIT: u64 = 1 << 32;

/// The deleter signature: `deleter(obj, flags)`.
pub type Deleter = unsafe extern "C" fn(obj: *mut c_void, flags: i32);

/// `TVMFFIObject`: the header at offset 0 of every object.
#[repr(C)]
#[derive(Debug)]
pub struct ObjectHeader {
    /// Strong count in the low 32 bits, weak count in the high 32 bits.
    pub combined_ref_count: AtomicU64,
    /// The object's type index (>= 64).
    pub type_index: i32,
    /// Always zero.
    pub padding: u32,
    /// Called with [`DELETER_STRONG`], [`DELETER_WEAK`] or both.
    pub deleter: Option<Deleter>,
}

assert_eq_size!(ObjectHeader, [u8; 24]);
const_assert_eq!(offset_of!(ObjectHeader, combined_ref_count), 0);
const_assert_eq!(offset_of!(ObjectHeader, type_index), 8);
const_assert_eq!(offset_of!(ObjectHeader, padding), 12);
const_assert_eq!(offset_of!(ObjectHeader, deleter), 16);

/// Offset of the type-specific cell behind the header.
pub const CELL_OFFSET: usize = core::mem::size_of::<ObjectHeader>();

/// Pointer to the cell of `obj`.
#[inline(always)]
pub fn cell_ptr<C>(obj: *mut ObjectHeader) -> *mut C {
    obj.cast::<u8>().wrapping_add(CELL_OFFSET).cast()
}

/// `TVMFFIByteArray`: a borrowed `{data, size}` pair.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ByteArray {
    /// First byte.
    pub data: *const u8,
    /// Length in bytes.
    pub size: usize,
}

assert_eq_size!(ByteArray, [u8; 16]);
const_assert_eq!(offset_of!(ByteArray, data), 0);
const_assert_eq!(offset_of!(ByteArray, size), 8);

impl ByteArray {
    /// Borrows `bytes`.
    pub const fn from_slice(bytes: &[u8]) -> ByteArray {
        ByteArray { data: bytes.as_ptr(), size: bytes.len() }
    }

    /// The bytes.
    ///
    /// # Safety
    /// `data` points to `size` readable bytes that live for `'a` (or `size` is 0).
    #[inline(always)]
    pub unsafe fn as_slice<'a>(&self) -> &'a [u8] {
        if self.size == 0 {
            return &[];
        }
        // SAFETY: guaranteed by the caller.
        unsafe { core::slice::from_raw_parts(self.data, self.size) }
    }
}

/// `TVMFFISeqCell`.
#[repr(C)]
#[derive(Debug)]
pub struct SeqCell {
    /// First element (`Any[size]`).
    pub data: *mut RawAny,
    /// Elements in use.
    pub size: i64,
    /// Elements allocated.
    pub capacity: i64,
    /// Frees `data` when non-null (C++ lists); null when the owner frees it.
    pub data_deleter: Option<unsafe extern "C" fn(*mut c_void)>,
}

assert_eq_size!(SeqCell, [u8; 32]);
const_assert_eq!(offset_of!(SeqCell, data), 0);
const_assert_eq!(offset_of!(SeqCell, capacity), 16);
const_assert_eq!(offset_of!(SeqCell, size), 8);
const_assert_eq!(offset_of!(SeqCell, data_deleter), 24);

/// The cell of a BigInt object (78), as tvm-ffi's `c_api.h` lays it out
/// (`{ TVMFFIObject, { size_t }, ... }`): the word count, then, at
/// [`BIG_INT_WORDS_OFFSET`] in the object, that many `i64` words of a two's-complement
/// integer, least significant first, in native byte order.
#[repr(C)]
#[derive(Debug)]
pub struct BigIntCell {
    /// The number of words.
    pub size: usize,
}

/// Offset of a BigInt object's first word.
pub const BIG_INT_WORDS_OFFSET: usize = CELL_OFFSET + core::mem::size_of::<BigIntCell>();
const_assert_eq!(BIG_INT_WORDS_OFFSET, 32);

/// `DLTensor` (DLPack).
#[repr(C)]
#[derive(Debug)]
pub struct DLTensor {
    /// Base data pointer.
    pub data: *mut c_void,
    /// Where the data lives.
    pub device: Device,
    /// Number of dimensions.
    pub ndim: i32,
    /// Element type.
    pub dtype: DataType,
    /// `ndim` dimensions.
    pub shape: *mut i64,
    /// `ndim` strides in elements, or null for compact row-major.
    pub strides: *mut i64,
    /// Offset of the first element from `data`, in bytes.
    pub byte_offset: u64,
}

assert_eq_size!(DLTensor, [u8; 48]);
const_assert_eq!(offset_of!(DLTensor, data), 0);
const_assert_eq!(offset_of!(DLTensor, device), 8);
const_assert_eq!(offset_of!(DLTensor, ndim), 16);
const_assert_eq!(offset_of!(DLTensor, dtype), 20);
const_assert_eq!(offset_of!(DLTensor, shape), 24);
const_assert_eq!(offset_of!(DLTensor, strides), 32);
const_assert_eq!(offset_of!(DLTensor, byte_offset), 40);

/// The packed calling convention: `int32 f(void* handle, const Any* args, int32 n, Any* result)`.
pub type SafeCall = unsafe extern "C" fn(*mut c_void, *const RawAny, i32, *mut RawAny) -> i32;

/// `TVMFFIFunctionCell`: the cell of every Function object.
#[repr(C)]
#[derive(Debug)]
pub struct FunctionCell {
    /// The packed entry, called with the Function object as handle.
    pub safe_call: SafeCall,
    /// The C++ calling entry; NULL in objects this crate creates.
    pub cpp_call: *mut c_void,
}
