//! IREE statuses: a code alone, or a code with a message in the block layout IREE's release
//! builds use (a private layout, pinned to the tested IREE version: docs/IREE-DYNAMIC-MODULE.md).
//! The host copies the message and frees the block with its C runtime's `free`. On Windows a
//! status is always a code alone, its message on stderr (abi-core/src/sys/windows.rs says why).

use core::ffi::c_void;

use crate::iree::vm::Status;
use crate::sys;
use crate::value::error::{kind, Error};

/// Status codes (`iree_status_code_t`).
pub mod code {
    /// Success.
    pub const OK: u32 = 0;
    /// A bad argument (ValueError, TypeError, a malformed call).
    pub const INVALID_ARGUMENT: u32 = 3;
    /// Not found (KeyError, an unknown function).
    pub const NOT_FOUND: u32 = 5;
    /// A precondition failed (an interface version this module does not implement).
    pub const FAILED_PRECONDITION: u32 = 9;
    /// Out of range (IndexError).
    pub const OUT_OF_RANGE: u32 = 11;
    /// Not implemented (resuming a call).
    pub const UNIMPLEMENTED: u32 = 12;
    /// Anything else, and panics.
    pub const INTERNAL: u32 = 13;
}

/// The code an error of `error_kind` maps to.
pub fn code_of(error_kind: &str) -> u32 {
    match error_kind {
        kind::VALUE_ERROR | kind::TYPE_ERROR => code::INVALID_ARGUMENT,
        kind::INDEX_ERROR => code::OUT_OF_RANGE,
        kind::KEY_ERROR => code::NOT_FOUND,
        _ => code::INTERNAL,
    }
}

/// The code's name, as `iree-run-module` prints it.
pub fn code_name(code: u32) -> &'static str {
    match code {
        code::OK => "OK",
        code::INVALID_ARGUMENT => "INVALID_ARGUMENT",
        code::NOT_FOUND => "NOT_FOUND",
        code::FAILED_PRECONDITION => "FAILED_PRECONDITION",
        code::OUT_OF_RANGE => "OUT_OF_RANGE",
        code::UNIMPLEMENTED => "UNIMPLEMENTED",
        _ => "INTERNAL",
    }
}

/// The code of a status.
pub fn status_code(status: Status) -> u32 {
    (status & 0x1f) as u32
}

/// The header IREE's release builds put before a status message.
#[repr(C)]
struct MessageHeader {
    payload_head: *mut c_void,
    payload_tail: *mut c_void,
    file: *const u8,
    line: u32,
    message: super::abi::StringView,
}

static_assertions::const_assert_eq!(core::mem::size_of::<MessageHeader>(), 48);

/// Where a status was raised: a NUL-terminated file name and a line.
#[derive(Clone, Copy, Debug)]
pub struct Location {
    /// The file, NUL-terminated.
    pub file: &'static str,
    /// The line.
    pub line: u32,
}

/// The [`Location`] of the line it is written on.
macro_rules! here {
    () => {
        $crate::iree::status::Location { file: concat!(file!(), "\0"), line: line!() }
    };
}
pub(crate) use here;

/// How the module reports failures (module parameter `abi.messages`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Messages {
    /// A message block the host prints (the pinned IREE layout).
    InStatus,
    /// The code alone; the message goes to stderr.
    Stderr,
}

/// A failed status with `message`, per `mode`.
pub fn failure(code: u32, message: &str, at: Location, mode: Messages) -> Status {
    debug_assert!(code != code::OK && code < 32);
    if mode == Messages::Stderr {
        eprintln!("abi: {}: {message}", code_name(code));
        return code as Status;
    }
    with_message(code, message, at).unwrap_or_else(|| {
        eprintln!("abi: {}: {message}", code_name(code));
        code as Status
    })
}

/// Why an IREE call failed: an error of the function (or of its arguments), or the status
/// of a HAL import, passed through unchanged (it carries IREE's own message and context).
#[derive(Debug)]
pub enum Failure {
    /// An error to report as a status of this module.
    Error(Error),
    /// A failed status from an imported HAL function.
    Status(Status),
}

impl From<Error> for Failure {
    fn from(e: Error) -> Failure {
        Failure::Error(e)
    }
}

/// `failure` for an error returned by (or raised in) a function.
pub fn from_error(e: &Error, what: &str, at: Location, mode: Messages) -> Status {
    failure(code_of(e.kind()), &format!("{what}: {}: {}", e.kind(), e.message()), at, mode)
}

fn with_message(code: u32, message: &str, at: Location) -> Option<Status> {
    let header = core::mem::size_of::<MessageHeader>();
    // 32-byte alignment leaves the status's 5 code bits free; the platform layer allocates
    // from the C runtime whose `free` the host calls, and on Windows not at all.
    let block = sys::status_block_alloc(header + message.len());
    if block.is_null() {
        return None;
    }
    let text = block.cast::<u8>().wrapping_add(header);
    // SAFETY: the block has room for the header and the text, and nothing else uses it.
    unsafe {
        core::ptr::copy_nonoverlapping(message.as_ptr(), text, message.len());
        block.cast::<MessageHeader>().write(MessageHeader {
            payload_head: core::ptr::null_mut(),
            payload_tail: core::ptr::null_mut(),
            file: at.file.as_ptr(),
            line: at.line,
            message: super::abi::StringView { data: text, size: message.len() },
        });
    }
    Some(block as usize | code as usize)
}

/// The message of a status made by this module, and frees it (for tests and hosts written
/// in Rust); `None` for a bare code.
///
/// # Safety
/// `status` came from [`failure`] (or is a bare code) and is not used afterwards.
pub unsafe fn take_message(status: Status) -> Option<String> {
    let block = (status & !0x1f) as *mut MessageHeader;
    if block.is_null() {
        return None;
    }
    // SAFETY: a block written by `with_message`.
    let text = unsafe { String::from_utf8_lossy((*block).message.bytes()).into_owned() };
    // SAFETY: allocated by `with_message`, and not used afterwards.
    unsafe { sys::status_block_free(block.cast()) };
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A failure the module reports with messages on (the default): the host gets the
    /// message in a block on unix, where IREE's `free` and this library's allocation are
    /// the same libc's; on Windows the code alone (IREE would free a block with its own C
    /// runtime's `_aligned_free`), the message going to stderr.
    #[test]
    fn a_status_carries_its_message_only_where_the_host_frees_it_from_the_same_heap() {
        let status = failure(code::INVALID_ARGUMENT, "kit.f: ValueError: no", here!(), Messages::InStatus);
        assert_eq!(status_code(status), code::INVALID_ARGUMENT);
        // SAFETY: a status `failure` just made, used once.
        let message = unsafe { take_message(status) };
        if cfg!(windows) {
            assert_eq!(status, code::INVALID_ARGUMENT as Status, "a bare code on Windows");
            assert_eq!(message, None);
        } else {
            assert_eq!(message.as_deref(), Some("kit.f: ValueError: no"));
        }
    }
}
