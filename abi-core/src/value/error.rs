//! [`Error`]: an owned Error object (kind, message, backtrace), ours or a host's, with
//! constructors named after the standard kinds.

use core::ffi::c_void;
use core::fmt;
use core::mem::offset_of;
use core::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use static_assertions::const_assert_eq;

use crate::ffi::type_index as ti;
use crate::ffi::{cell_ptr, ByteArray, DLTensor, ObjectHeader};
use crate::value::object::{dec_ref, new_object, object_handle, ObjectRef};

/// `Result` with [`Error`] as the error type.
pub type Result<T, E = Error> = core::result::Result<T, E>;

/// Standard error kinds; hosts map these to the Python exception of the same name.
pub mod kind {
    /// `RuntimeError`.
    pub const RUNTIME_ERROR: &str = "RuntimeError";
    /// `ValueError`.
    pub const VALUE_ERROR: &str = "ValueError";
    /// `TypeError`.
    pub const TYPE_ERROR: &str = "TypeError";
    /// `AttributeError`.
    pub const ATTRIBUTE_ERROR: &str = "AttributeError";
    /// `KeyError`.
    pub const KEY_ERROR: &str = "KeyError";
    /// `IndexError`.
    pub const INDEX_ERROR: &str = "IndexError";
    /// `AssertionError`.
    pub const ASSERTION_ERROR: &str = "AssertionError";
    /// `MemoryError`.
    pub const MEMORY_ERROR: &str = "MemoryError";
    /// The host already holds the exception to raise (Python's pending `KeyboardInterrupt`
    /// after a signal check): it raises that one instead of this error.
    pub const ENV_ERROR_ALREADY_SET: &str = "EnvErrorAlreadySet";
}

/// `update_backtrace(obj, backtrace, mode)`.
type UpdateBacktrace = unsafe extern "C" fn(*mut c_void, *const ByteArray, i32);

const BACKTRACE_REPLACE: i32 = 0;

/// A NUL-terminated text an error cell points into: a static one needs no allocation.
#[derive(Debug)]
enum Text {
    Static(&'static [u8]),
    Owned(Vec<u8>),
}

impl Text {
    /// `owned` followed by a NUL, in `owned`'s buffer (grown only when it has no room).
    fn owned(mut owned: Vec<u8>) -> Text {
        owned.push(0);
        Text::Owned(owned)
    }

    /// A copy of `bytes` followed by a NUL, in one allocation.
    fn copied(bytes: &[u8]) -> Text {
        let mut v = Vec::with_capacity(bytes.len() + 1);
        v.extend_from_slice(bytes);
        Text::owned(v)
    }

    /// A kind: the standard ones are static.
    fn kind(kind: &str) -> Text {
        match kind {
            kind::RUNTIME_ERROR => Text::Static(b"RuntimeError\0"),
            kind::VALUE_ERROR => Text::Static(b"ValueError\0"),
            kind::TYPE_ERROR => Text::Static(b"TypeError\0"),
            kind::ATTRIBUTE_ERROR => Text::Static(b"AttributeError\0"),
            kind::KEY_ERROR => Text::Static(b"KeyError\0"),
            kind::INDEX_ERROR => Text::Static(b"IndexError\0"),
            kind::ASSERTION_ERROR => Text::Static(b"AssertionError\0"),
            kind::MEMORY_ERROR => Text::Static(b"MemoryError\0"),
            other => Text::copied(other.as_bytes()),
        }
    }

    fn bytes(&self) -> &[u8] {
        match self {
            Text::Static(b) => b,
            Text::Owned(v) => v,
        }
    }

    /// The byte array a cell field holds: the text without its NUL.
    fn array(&self) -> ByteArray {
        let b = self.bytes();
        ByteArray { data: b.as_ptr(), size: b.len() - 1 }
    }
}

const NO_BACKTRACE: Text = Text::Static(b"\0");

/// `TVMFFIErrorCell` followed by the storage that the byte arrays point into.
#[repr(C)]
struct ErrorCell {
    kind: ByteArray,
    message: ByteArray,
    backtrace: ByteArray,
    update_backtrace: UpdateBacktrace,
    cause_chain: *mut ObjectHeader,
    extra_context: *mut ObjectHeader,
    kind_text: Text,
    message_text: Text,
    backtrace_text: Mutex<Text>,
    /// The address of the `DLTensor` a check of abi's own found wrong (0 for none): the
    /// boundary of the export whose argument it is names that argument
    /// ([`Error::take_subject`]).
    subject: AtomicUsize,
}

const_assert_eq!(offset_of!(ErrorCell, kind), 0);
const_assert_eq!(offset_of!(ErrorCell, message), 16);
const_assert_eq!(offset_of!(ErrorCell, backtrace), 32);
const_assert_eq!(offset_of!(ErrorCell, update_backtrace), 48);
const_assert_eq!(offset_of!(ErrorCell, cause_chain), 56);
const_assert_eq!(offset_of!(ErrorCell, extra_context), 64);
const_assert_eq!(offset_of!(ErrorCell, kind_text), 72);

// SAFETY: the byte arrays point into texts owned by the cell (or static); the backtrace is
// only replaced under `backtrace_text`'s lock; cause/context are owned object references.
unsafe impl Send for ErrorCell {}
// SAFETY: see above.
unsafe impl Sync for ErrorCell {}

impl Drop for ErrorCell {
    fn drop(&mut self) {
        for obj in [self.cause_chain, self.extra_context] {
            if !obj.is_null() {
                // SAFETY: the cell owns one reference to each non-null handle.
                unsafe { dec_ref(obj) }
            }
        }
    }
}

unsafe extern "C" fn update_backtrace(obj: *mut c_void, backtrace: *const ByteArray, mode: i32) {
    let cell = cell_ptr::<ErrorCell>(obj.cast());
    if backtrace.is_null() {
        return;
    }
    // SAFETY: hosts call this with the error object it belongs to and a valid byte array.
    // Only the lock is borrowed: a reference to the whole cell would also read `backtrace`,
    // which another thread may be replacing under the lock.
    let (lock, extra) = unsafe { (&*core::ptr::addr_of!((*cell).backtrace_text), (*backtrace).as_slice()) };
    let mut guard = lock.lock().unwrap_or_else(|e| e.into_inner());
    let old = guard.bytes();
    let mut next = Vec::with_capacity(old.len() + extra.len());
    if mode != BACKTRACE_REPLACE {
        next.extend_from_slice(&old[..old.len() - 1]);
    }
    next.extend_from_slice(extra);
    let next = Text::owned(next);
    // SAFETY: the field is only written here, under the lock; the old text is freed after
    // the field points at the new one (a Vec's heap buffer does not move with the Vec).
    unsafe { (*cell).backtrace = next.array() };
    *guard = next;
}

/// An error crossing the ABI: an owned Error object (type index 67).
#[derive(Clone)]
pub struct Error(ObjectRef);

object_handle!(Error, ti::ERROR);

impl Error {
    /// An error of `kind` (e.g. `"ValueError"`) with `message`.
    pub fn new(kind: &str, message: impl Into<String>) -> Error {
        Error::from_texts(Text::kind(kind), Text::owned(message.into().into_bytes()), NO_BACKTRACE)
    }

    /// An error of a kind known at compile time, `kind_with_nul` being its text then one NUL
    /// (a derived error type's kinds): the kind is not copied, so making one costs what a
    /// standard kind's does.
    #[doc(hidden)]
    pub fn with_static_kind(kind_with_nul: &'static str, message: String) -> Error {
        debug_assert!(kind_with_nul.ends_with('\0'));
        Error::from_texts(Text::Static(kind_with_nul.as_bytes()), Text::owned(message.into_bytes()), NO_BACKTRACE)
    }

    /// An error with an explicit backtrace text.
    pub fn with_backtrace(kind: &str, message: &str, backtrace: &str) -> Error {
        let backtrace = if backtrace.is_empty() { NO_BACKTRACE } else { Text::copied(backtrace.as_bytes()) };
        Error::from_texts(Text::kind(kind), Text::copied(message.as_bytes()), backtrace)
    }

    fn from_texts(kind_text: Text, message_text: Text, backtrace_text: Text) -> Error {
        let cell = ErrorCell {
            kind: kind_text.array(),
            message: message_text.array(),
            backtrace: backtrace_text.array(),
            update_backtrace,
            cause_chain: core::ptr::null_mut(),
            extra_context: core::ptr::null_mut(),
            kind_text,
            message_text,
            backtrace_text: Mutex::new(backtrace_text),
            subject: AtomicUsize::new(0),
        };
        Error(new_object(ti::ERROR, cell))
    }

    /// A `RuntimeError`.
    pub fn runtime_error(message: impl Into<String>) -> Error {
        Error::new(kind::RUNTIME_ERROR, message)
    }
    /// A `ValueError`.
    pub fn value_error(message: impl Into<String>) -> Error {
        Error::new(kind::VALUE_ERROR, message)
    }
    /// A `TypeError`.
    pub fn type_error(message: impl Into<String>) -> Error {
        Error::new(kind::TYPE_ERROR, message)
    }
    /// An `AttributeError`.
    pub fn attribute_error(message: impl Into<String>) -> Error {
        Error::new(kind::ATTRIBUTE_ERROR, message)
    }
    /// A `KeyError`.
    pub fn key_error(message: impl Into<String>) -> Error {
        Error::new(kind::KEY_ERROR, message)
    }
    /// An `IndexError`.
    pub fn index_error(message: impl Into<String>) -> Error {
        Error::new(kind::INDEX_ERROR, message)
    }
    /// An `AssertionError`.
    pub fn assertion_error(message: impl Into<String>) -> Error {
        Error::new(kind::ASSERTION_ERROR, message)
    }
    /// A `MemoryError`.
    pub fn memory_error(message: impl Into<String>) -> Error {
        Error::new(kind::MEMORY_ERROR, message)
    }

    /// The same error, about the tensor `dl`: raised from an export's body, where `dl` is
    /// one of its arguments, its message names the function and that argument, as a
    /// conversion error does. Only abi's own tensor checks mark their errors.
    pub(crate) fn about_tensor(self, dl: *const DLTensor) -> Error {
        if let Some(subject) = self.subject() {
            subject.store(dl as usize, Ordering::Relaxed);
        }
        self
    }

    /// The address of the tensor [`Error::about_tensor`] marked, cleared so that only the
    /// first boundary the error reaches reads it; `None` for every other error.
    pub(crate) fn take_subject(&self) -> Option<usize> {
        let subject = self.subject()?.swap(0, Ordering::Relaxed);
        (subject != 0).then_some(subject)
    }

    /// The subject field, when the cell is an `ErrorCell` made here, recognised by its
    /// `update_backtrace`: a function of this crate (a host's error has its own, and no
    /// such field).
    fn subject(&self) -> Option<&AtomicUsize> {
        let cell = cell_ptr::<ErrorCell>(self.0.as_ptr());
        // SAFETY: every Error object's cell starts with the public `TVMFFIErrorCell`; only
        // that field is read (a host may be replacing the backtrace meanwhile).
        let ours = core::ptr::fn_addr_eq(unsafe { (*cell).update_backtrace }, update_backtrace as UpdateBacktrace);
        // SAFETY: a cell made here (checked above), alive as long as `self`.
        ours.then(|| unsafe { &(*cell).subject })
    }

    fn field(&self, offset: usize) -> &[u8] {
        // SAFETY: every Error object (ours or foreign) starts its cell with three byte arrays
        // that live as long as the object; `offset` is one of 0, 16, 32.
        unsafe {
            let base = cell_ptr::<u8>(self.0.as_ptr());
            (*base.add(offset).cast::<ByteArray>()).as_slice()
        }
    }

    fn text(bytes: &[u8]) -> &str {
        core::str::from_utf8(bytes).unwrap_or("<invalid utf-8>")
    }

    /// The kind, e.g. `"ValueError"`.
    pub fn kind(&self) -> &str {
        Self::text(self.field(0))
    }

    /// The message.
    pub fn message(&self) -> &str {
        Self::text(self.field(16))
    }

    /// The backtrace text (most recent call first, as tvm-ffi stores it).
    pub fn backtrace(&self) -> &str {
        Self::text(self.field(32))
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Error").field("kind", &self.kind()).field("message", &self.message()).finish()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind(), self.message())
    }
}

impl std::error::Error for Error {}

impl From<String> for Error {
    fn from(message: String) -> Error {
        Error::runtime_error(message)
    }
}

impl From<&str> for Error {
    fn from(message: &str) -> Error {
        Error::runtime_error(message)
    }
}

macro_rules! from_std {
    ($($ty:ty => $kind:expr),* $(,)?) => {$(
        impl From<$ty> for Error {
            fn from(e: $ty) -> Error {
                Error::new($kind, e.to_string())
            }
        }
    )*};
}

from_std! {
    std::io::Error => kind::RUNTIME_ERROR,
    std::fmt::Error => kind::RUNTIME_ERROR,
    std::num::ParseIntError => kind::VALUE_ERROR,
    std::num::ParseFloatError => kind::VALUE_ERROR,
    std::num::TryFromIntError => kind::VALUE_ERROR,
    std::str::Utf8Error => kind::VALUE_ERROR,
    std::string::FromUtf8Error => kind::VALUE_ERROR,
    std::str::ParseBoolError => kind::VALUE_ERROR,
    std::char::ParseCharError => kind::VALUE_ERROR,
    core::array::TryFromSliceError => kind::VALUE_ERROR,
}

impl From<core::convert::Infallible> for Error {
    fn from(e: core::convert::Infallible) -> Error {
        match e {}
    }
}
