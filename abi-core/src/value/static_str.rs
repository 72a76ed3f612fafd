//! Immortal Str objects in static memory: the metadata and docs that exported functions
//! return are rendered at compile time and handed out without allocating.

use core::ffi::c_void;
use core::sync::atomic::AtomicU64;

use crate::ffi::type_index as ti;
use crate::ffi::{ByteArray, ObjectHeader, RawAny};
use crate::value::object::inc_ref;

/// A Str object in a `static`: its count starts high and its deleter does nothing, so
/// hosts may add and drop references freely and it is never freed. It may carry a second,
/// private text after the object (a trailer), which hosts never see.
#[repr(C)]
#[derive(Debug)]
pub struct StaticStr {
    header: ObjectHeader,
    cell: ByteArray,
    trailer: &'static str,
}

// SAFETY: the bytes are immutable statics; the header's count is atomic.
unsafe impl Sync for StaticStr {}

unsafe extern "C" fn never_free(_obj: *mut c_void, _flags: i32) {}

impl StaticStr {
    /// Wraps `bytes`, which must end with a NUL that is not part of the string.
    pub const fn new(bytes: &'static [u8]) -> StaticStr {
        assert!(!bytes.is_empty() && bytes[bytes.len() - 1] == 0, "static strings end with NUL");
        StaticStr::from_parts(bytes, bytes.len() - 1, "")
    }

    /// Wraps `bytes` = the string, NUL, the trailer (UTF-8), NUL; checked at compile time.
    pub const fn with_trailer(bytes: &'static [u8]) -> StaticStr {
        assert!(bytes.len() >= 2 && bytes[bytes.len() - 1] == 0, "static strings end with NUL");
        let mut len = 0;
        while bytes[len] != 0 {
            len += 1;
        }
        let (_, rest) = bytes.split_at(len + 1);
        let (trailer, _) = rest.split_at(rest.len() - 1);
        match core::str::from_utf8(trailer) {
            Ok(trailer) => StaticStr::from_parts(bytes, len, trailer),
            Err(_) => panic!("a static string's trailer is UTF-8"),
        }
    }

    const fn from_parts(bytes: &'static [u8], len: usize, trailer: &'static str) -> StaticStr {
        StaticStr {
            header: ObjectHeader {
                combined_ref_count: AtomicU64::new(1 << 30 | 1 << 32),
                type_index: ti::STR,
                padding: 0,
                deleter: Some(never_free),
            },
            cell: ByteArray { data: bytes.as_ptr(), size: len },
            trailer,
        }
    }

    /// The string content.
    pub fn as_bytes(&'static self) -> &'static [u8] {
        // SAFETY: points into a static byte array.
        unsafe { self.cell.as_slice() }
    }

    /// The trailer (empty when made by [`StaticStr::new`]).
    pub fn trailer(&'static self) -> &'static str {
        self.trailer
    }

    /// An owned value referring to this object (adding a reference, as the ABI requires).
    pub fn to_raw_any(&'static self) -> RawAny {
        // From the whole object: readers of the value go past the header into the cell.
        let ptr = core::ptr::from_ref(self).cast_mut().cast::<ObjectHeader>();
        // SAFETY: a live static object.
        unsafe { inc_ref(ptr) };
        RawAny::from_ptr(ti::STR, ptr.cast())
    }
}
