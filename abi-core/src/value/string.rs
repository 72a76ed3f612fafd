//! Strings and bytes: the inline small form (<= 7 bytes, zero padded), Str/Bytes objects
//! (NUL-terminated) above it, and borrowed views over every argument form.

use core::ffi::c_void;
use core::fmt;
use core::mem::{align_of, offset_of, size_of};
use core::ptr::NonNull;
use core::sync::atomic::AtomicU64;
use std::alloc::{alloc, dealloc, handle_alloc_error, Layout};

use static_assertions::const_assert_eq;

use crate::ffi::type_index as ti;
use crate::ffi::{ByteArray, ObjectHeader, RawAny, RawValue, CELL_OFFSET, DELETER_WEAK, INITIAL_REF_COUNT};
use crate::reflect::type_desc::TypeDesc;
use crate::value::any::{Any, AnyView};
use crate::value::conv_error::ConvError;
use crate::value::object::{inc_ref, new_object, object_handle, ObjectRef};

/// The cell of a Str/Bytes object that adopted an owned buffer: the ABI byte array, then
/// the buffer it points into (with a trailing NUL).
#[repr(C)]
struct AdoptedCell {
    array: ByteArray,
    storage: Vec<u8>,
}

// SAFETY: the cell is immutable after construction; `array` points into `storage`'s heap
// buffer, which does not move with the Vec.
unsafe impl Send for AdoptedCell {}
// SAFETY: see above.
unsafe impl Sync for AdoptedCell {}

/// The start of a Str/Bytes object whose bytes follow it in the same allocation.
#[repr(C)]
#[derive(Debug)]
struct InlineHead {
    header: ObjectHeader,
    array: ByteArray,
}

const_assert_eq!(offset_of!(InlineHead, array), CELL_OFFSET);

fn inline_layout(len: usize) -> Layout {
    let size = size_of::<InlineHead>().checked_add(len).and_then(|n| n.checked_add(1)).expect("string too long");
    Layout::from_size_align(size, align_of::<InlineHead>()).expect("string too long")
}

/// The deleter of inline Str/Bytes objects: nothing to drop, the memory goes with the
/// last weak unit.
unsafe extern "C" fn inline_deleter(obj: *mut c_void, flags: i32) {
    if flags & DELETER_WEAK != 0 {
        let head = obj.cast::<InlineHead>();
        // SAFETY: allocated by `new_bytes_object` with the layout of its (unchanged) size.
        unsafe { dealloc(obj.cast(), inline_layout((*head).array.size)) };
    }
}

/// A Str object in static memory, for a name known at compile time (a fieldless enum's):
/// a result or argument made from it takes a reference and allocates nothing. It holds one
/// strong reference of its own that is never released, so no host's release ever reaches
/// its deleter.
#[repr(C)]
#[derive(Debug)]
pub struct StaticStr(InlineHead);

// SAFETY: the byte array points to static text and never changes; the header's count is
// atomic.
unsafe impl Sync for StaticStr {}

impl StaticStr {
    /// The object for `with_nul`: the text then one NUL (`"nearest\0"`), as a Str object's
    /// bytes end.
    pub const fn new(with_nul: &'static str) -> StaticStr {
        let bytes = with_nul.as_bytes();
        assert!(!bytes.is_empty() && bytes[bytes.len() - 1] == 0, "a StaticStr's text ends with a NUL");
        StaticStr(InlineHead {
            header: ObjectHeader {
                combined_ref_count: AtomicU64::new(INITIAL_REF_COUNT),
                type_index: ti::STR,
                padding: 0,
                deleter: Some(static_deleter),
            },
            array: ByteArray { data: bytes.as_ptr(), size: bytes.len() - 1 },
        })
    }

    /// A string value of the text: the inline form up to 7 bytes, else this object, with a
    /// new reference.
    #[inline]
    pub fn any(&'static self) -> Any {
        // SAFETY: the array points to static text of its size.
        let text = unsafe { core::slice::from_raw_parts(self.0.array.data, self.0.array.size) };
        if text.len() <= ti::SMALL_STR_MAX_LEN {
            // SAFETY: an inline value owns nothing.
            return unsafe { Any::from_raw(small(ti::SMALL_STR, text)) };
        }
        // The whole object's pointer (the header is at offset 0): hosts read the cell after
        // the header through it.
        let header = (self as *const StaticStr).cast_mut().cast::<ObjectHeader>();
        // SAFETY: a live object for the life of the process; the new reference is the
        // value's.
        unsafe {
            inc_ref(header);
            Any::from_raw(RawAny::from_ptr(ti::STR, header.cast()))
        }
    }
}

/// The deleter of static Str objects: never reached (each holds a reference of its own), and
/// nothing to free if it were.
unsafe extern "C" fn static_deleter(_: *mut c_void, _: i32) {}

/// A Str/Bytes object holding a copy of `bytes` and a NUL, in one allocation.
fn new_bytes_object(type_index: i32, bytes: &[u8]) -> ObjectRef {
    let layout = inline_layout(bytes.len());
    // SAFETY: the layout has a non-zero size.
    let raw = unsafe { alloc(layout) };
    let Some(head) = NonNull::new(raw.cast::<InlineHead>()) else { handle_alloc_error(layout) };
    // SAFETY: `raw` is a fresh allocation of `layout`: the head, then `len + 1` bytes.
    unsafe {
        let data = raw.add(size_of::<InlineHead>());
        core::ptr::copy_nonoverlapping(bytes.as_ptr(), data, bytes.len());
        *data.add(bytes.len()) = 0;
        head.as_ptr().write(InlineHead {
            header: ObjectHeader {
                combined_ref_count: AtomicU64::new(INITIAL_REF_COUNT),
                type_index,
                padding: 0,
                deleter: Some(inline_deleter),
            },
            array: ByteArray { data, size: bytes.len() },
        });
        ObjectRef::from_raw(head.cast())
    }
}

/// A Str/Bytes object over `owned`: adopts its buffer when it has room for the NUL (no
/// copy), copies it otherwise.
fn owned_bytes_object(type_index: i32, mut owned: Vec<u8>) -> ObjectRef {
    if owned.capacity() == owned.len() {
        return new_bytes_object(type_index, &owned);
    }
    owned.push(0);
    let array = ByteArray { data: owned.as_ptr(), size: owned.len() - 1 };
    new_object(type_index, AdoptedCell { array, storage: owned })
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
        Any::from(new_bytes_object(ti::STR, s.as_bytes()))
    }
}

/// An owned string value from an owned `String`: small inline form for <= 7 bytes, else a
/// Str object that adopts the buffer when it can.
pub fn string_any(s: String) -> Any {
    if s.len() <= ti::SMALL_STR_MAX_LEN {
        str_any(&s)
    } else {
        Any::from(owned_bytes_object(ti::STR, s.into_bytes()))
    }
}

/// An owned bytes value from an owned buffer, as [`string_any`].
pub fn vec_bytes_any(b: Vec<u8>) -> Any {
    if b.len() <= ti::SMALL_STR_MAX_LEN {
        bytes_any(&b)
    } else {
        Any::from(owned_bytes_object(ti::BYTES, b))
    }
}

/// An owned bytes value: small inline form for <= 7 bytes, a Bytes object above.
pub fn bytes_any(b: &[u8]) -> Any {
    if b.len() <= ti::SMALL_STR_MAX_LEN {
        // SAFETY: an inline value owns nothing.
        unsafe { Any::from_raw(small(ti::SMALL_BYTES, b)) }
    } else {
        Any::from(new_bytes_object(ti::BYTES, b))
    }
}

/// The bytes of any string or bytes form (RawStr, ByteArrayPtr, SmallStr, SmallBytes, Str,
/// Bytes), borrowed from the slot or the object it points to.
#[inline]
pub fn view_bytes<'a>(v: &'a AnyView<'_>) -> Result<&'a [u8], ConvError> {
    // SAFETY: the view keeps what it points to alive; the calling convention requires
    // RawStr and ByteArrayPtr arguments to be valid for the call.
    match unsafe { v.raw().string_bytes() } {
        Some(bytes) => Ok(bytes),
        None => Err(ConvError::refused(&TypeDesc::Str, v.raw())),
    }
}

impl AnyView<'_> {
    /// An owned copy: objects gain a reference, RawStr / ByteArrayPtr are copied into
    /// strings; kinds that cannot be owned (DLTensorPtr, ObjectRValueRef) are an error.
    pub fn to_any(&self) -> Result<Any, ConvError> {
        let raw = *self.raw();
        match raw.type_index {
            ti::RAW_STR | ti::BYTE_ARRAY_PTR => {
                let bytes = view_bytes(self)?;
                Ok(if raw.type_index == ti::RAW_STR {
                    str_any(core::str::from_utf8(bytes).map_err(|_| ConvError::InvalidUtf8)?)
                } else {
                    bytes_any(bytes)
                })
            }
            ti::DL_TENSOR_PTR | ti::OBJECT_RVALUE_REF => Err(ConvError::mismatch(&TypeDesc::Any, raw.type_index)),
            i if ti::is_object(i) && raw.ptr().is_null() => Err(ConvError::refused(&TypeDesc::Any, &raw)),
            i if ti::is_object(i) => {
                // SAFETY: the view borrows a live object; the new Any owns the added reference.
                unsafe {
                    inc_ref(raw.ptr().cast());
                    Ok(Any::from_raw(raw))
                }
            }
            // SAFETY: plain values own nothing.
            _ => Ok(unsafe { Any::from_raw(raw) }),
        }
    }
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

object_handle!(Str, ti::STR);
object_handle!(Bytes, ti::BYTES);

macro_rules! byte_object {
    ($ty:ident) => {
        impl $ty {
            /// The content bytes (without the trailing NUL).
            pub fn as_bytes(&self) -> &[u8] {
                // SAFETY: the object is a Str/Bytes whose cell begins with a byte array.
                unsafe { self.0.cell::<ByteArray>().as_slice() }
            }
        }
    };
}
byte_object!(Str);
byte_object!(Bytes);

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
