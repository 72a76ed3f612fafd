//! Strings and bytes: the inline small form (<= 7 bytes, zero padded), Str/Bytes objects
//! (NUL-terminated) above it, and borrowed views over every argument form.

use core::ffi::{c_char, CStr};
use core::fmt;

use static_assertions::assert_eq_size;

use crate::any::{Any, AnyView, RawAny, RawValue};
use crate::convert::ConvError;
use crate::object::{new_object, ObjectRef};
use crate::type_index as ti;

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

/// The cell of Str/Bytes objects made here: the ABI byte array, then the storage it
/// points into (with a trailing NUL).
#[repr(C)]
pub(crate) struct BytesCell {
    array: ByteArray,
    storage: Box<[u8]>,
}

// SAFETY: the cell is immutable after construction; `array` points into `storage`.
unsafe impl Send for BytesCell {}
// SAFETY: see above.
unsafe impl Sync for BytesCell {}

fn new_bytes_object(type_index: i32, bytes: &[u8]) -> ObjectRef {
    let mut storage = Vec::with_capacity(bytes.len() + 1);
    storage.extend_from_slice(bytes);
    storage.push(0);
    let storage = storage.into_boxed_slice();
    let array = ByteArray { data: storage.as_ptr(), size: bytes.len() };
    new_object(type_index, BytesCell { array, storage })
}

/// Builds the inline small form of `bytes` (which must be at most 7 bytes).
#[inline]
fn small(type_index: i32, bytes: &[u8]) -> RawAny {
    debug_assert!(bytes.len() <= ti::SMALL_STR_MAX_LEN);
    let mut inline = [0u8; 8];
    inline[..bytes.len()].copy_from_slice(bytes);
    RawAny { type_index, small_len: bytes.len() as u32, value: RawValue { v_bytes: inline } }
}

/// An owned string value: small inline form for <= 7 bytes, a Str object above.
pub fn str_any(s: &str) -> Any {
    if s.len() <= ti::SMALL_STR_MAX_LEN {
        // SAFETY: an inline value owns nothing.
        unsafe { Any::from_raw(small(ti::SMALL_STR, s.as_bytes())) }
    } else {
        new_bytes_object(ti::STR, s.as_bytes()).into_any()
    }
}

/// An owned bytes value: small inline form for <= 7 bytes, a Bytes object above.
pub fn bytes_any(b: &[u8]) -> Any {
    if b.len() <= ti::SMALL_STR_MAX_LEN {
        // SAFETY: an inline value owns nothing.
        unsafe { Any::from_raw(small(ti::SMALL_BYTES, b)) }
    } else {
        new_bytes_object(ti::BYTES, b).into_any()
    }
}

/// The bytes of any string or bytes form (RawStr, ByteArrayPtr, SmallStr, SmallBytes, Str,
/// Bytes), borrowed from the slot or the object it points to.
#[inline]
pub fn view_bytes<'a>(v: &'a AnyView<'_>) -> Result<&'a [u8], ConvError> {
    let raw = v.raw();
    match raw.type_index {
        ti::SMALL_STR | ti::SMALL_BYTES => {
            let len = (raw.small_len as usize).min(ti::SMALL_STR_MAX_LEN);
            Ok(&raw.bytes()[..len])
        }
        // SAFETY: a Str/Bytes object's cell starts with a byte array that lives as long as
        // the object, which the view keeps borrowed.
        ti::STR | ti::BYTES => Ok(unsafe { object_bytes(raw) }),
        ti::RAW_STR if !raw.ptr().is_null() => {
            // SAFETY: the calling convention requires RawStr to be a valid NUL-terminated
            // string that outlives the call.
            Ok(unsafe { CStr::from_ptr(raw.ptr() as *const c_char) }.to_bytes())
        }
        ti::BYTE_ARRAY_PTR if !raw.ptr().is_null() => {
            // SAFETY: the calling convention requires a valid TVMFFIByteArray* for the call.
            Ok(unsafe { (*(raw.ptr() as *const ByteArray)).as_slice() })
        }
        other => Err(ConvError::Mismatch { expected: &crate::TypeDesc::Str, got: other }),
    }
}

#[inline(always)]
unsafe fn object_bytes<'a>(raw: &RawAny) -> &'a [u8] {
    let cell = crate::object::cell_ptr::<ByteArray>(raw.ptr().cast());
    // SAFETY: guaranteed by the caller.
    unsafe { (*cell).as_slice() }
}

/// Whether a view holds one of the string forms (not bytes).
#[inline(always)]
pub fn is_str_form(ty: i32) -> bool {
    matches!(ty, ti::SMALL_STR | ti::STR | ti::RAW_STR)
}

/// Whether a view holds one of the bytes forms.
#[inline(always)]
pub fn is_bytes_form(ty: i32) -> bool {
    matches!(ty, ti::SMALL_BYTES | ti::BYTES | ti::BYTE_ARRAY_PTR)
}

/// An owned Str object (type index 65).
#[derive(Clone)]
pub struct Str(ObjectRef);

/// An owned Bytes object (type index 66).
#[derive(Clone)]
pub struct Bytes(ObjectRef);

macro_rules! byte_object {
    ($ty:ident, $index:expr) => {
        impl $ty {
            /// The object reference.
            pub fn as_object(&self) -> &ObjectRef {
                &self.0
            }

            /// Wraps an object known to have this type's index and layout.
            ///
            /// # Safety
            /// `obj` must be a live object of this type.
            pub unsafe fn from_object_unchecked(obj: ObjectRef) -> Self {
                debug_assert_eq!(obj.type_index(), $index);
                $ty(obj)
            }

            /// The content bytes (without the trailing NUL).
            pub fn as_bytes(&self) -> &[u8] {
                // SAFETY: the object is a Str/Bytes whose cell begins with a byte array.
                unsafe { self.0.cell::<ByteArray>().as_slice() }
            }
        }
    };
}
byte_object!(Str, ti::STR);
byte_object!(Bytes, ti::BYTES);

impl Str {
    /// A new Str object (always an object, whatever the length).
    pub fn new(s: &str) -> Str {
        Str(new_bytes_object(ti::STR, s.as_bytes()))
    }

    /// The content as UTF-8; objects from foreign callers may hold invalid bytes.
    pub fn to_str(&self) -> Result<&str, core::str::Utf8Error> {
        core::str::from_utf8(self.as_bytes())
    }
}

impl Bytes {
    /// A new Bytes object (always an object, whatever the length).
    pub fn new(b: &[u8]) -> Bytes {
        Bytes(new_bytes_object(ti::BYTES, b))
    }
}

impl fmt::Debug for Str {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Str({:?})", String::from_utf8_lossy(self.as_bytes()))
    }
}

impl fmt::Debug for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Bytes({:?})", self.as_bytes())
    }
}
