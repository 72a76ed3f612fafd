//! Error types (`#[derive(AbiError)]`): each variant of a Rust error enum is an error kind,
//! `<crate>.<Enum>.<Variant>` unless renamed, raised with the variant's `Display` text as
//! its message. Hosts see an ordinary Error object of that kind; the Python package makes
//! each kind an exception class (a subclass of one class per type and of the builtin the
//! variant names) and registers it with `tvm_ffi`. The kinds are published in the class
//! records section (docs/ABI.md section 10), so tools read them from the file.

use core::fmt::Display;

use crate::value::error::Error;

/// The kinds of a derived error type, in declaration order.
#[derive(Debug)]
pub struct ErrorDesc {
    /// The Rust name of the type.
    pub name: &'static str,
    /// Its docs.
    pub doc: &'static str,
    /// One kind per variant.
    pub kinds: &'static [ErrorKindDesc],
}

/// One kind of an [`ErrorDesc`].
#[derive(Debug)]
pub struct ErrorKindDesc {
    /// The variant's Rust identifier.
    pub variant: &'static str,
    /// The kind its errors carry (`mylib.KernelError.BadShape`), followed by one NUL.
    pub kind_with_nul: &'static str,
    /// The builtin kind Python callers may also catch it as (`ValueError`); `RuntimeError`
    /// unless the variant names another.
    pub base: &'static str,
    /// The variant's docs.
    pub doc: &'static str,
}

impl ErrorKindDesc {
    /// The kind.
    pub const fn kind(&self) -> &'static str {
        let (kind, _) = self.kind_with_nul.as_bytes().split_at(self.kind_with_nul.len() - 1);
        match core::str::from_utf8(kind) {
            Ok(kind) => kind,
            Err(_) => panic!("a kind is UTF-8"),
        }
    }
}

/// A Rust error type whose variants are error kinds: what `#[derive(abi_core::AbiError)]`
/// implements, with `From<Self> for abi_core::Error` (so an export may return
/// `Result<T, Self>`). The message of each error is its `Display` text.
pub trait AbiError: Sized {
    /// The type's name and kinds.
    const ERRORS: &'static ErrorDesc;

    /// The variant's position in declaration order.
    fn position(&self) -> usize;

    /// The kind this error carries.
    fn kind(&self) -> &'static str {
        Self::ERRORS.kinds[self.position()].kind()
    }
}

/// What gives a derived error its message: its `Display` text.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no message: an error's message is its `Display` text",
    label = "no `Display`",
    note = "derive it with thiserror (`#[derive(thiserror::Error)]` and `#[error(\"...\")]` on each variant), or implement `std::fmt::Display`"
)]
pub trait ErrorMessage: Display {}

impl<T: Display> ErrorMessage for T {}

/// The Error object of a derived error: its kind, and its `Display` text as the message.
#[cold]
pub fn error_of<E: AbiError + ErrorMessage>(e: &E) -> Error {
    Error::with_static_kind(E::ERRORS.kinds[e.position()].kind_with_nul, e.to_string())
}
