//! [`ConvError`]: why a value could not be converted; small, cheap to move, formatted
//! only when somebody reads it.

use core::fmt;

use crate::ffi::type_index as ti;
use crate::ffi::RawAny;
use crate::reflect::type_desc::{EnumDesc, TypeDesc};
use crate::value::error::{kind, Error};

/// A conversion failure. Formatting is deferred until the message is read.
#[derive(Debug, Clone)]
pub enum ConvError {
    /// A value of type index `got` where `expected` was required.
    Mismatch {
        /// The expected type.
        expected: &'static TypeDesc,
        /// The type index given.
        got: i32,
    },
    /// A value of an object type index `got` whose object pointer is null.
    NullObject {
        /// The expected type.
        expected: &'static TypeDesc,
        /// The type index given.
        got: i32,
    },
    /// An integer (or float) that does not fit the target type.
    OutOfRange {
        /// The value given.
        value: Number,
        /// The Rust target type, e.g. `"i32"`.
        target: &'static str,
    },
    /// Bytes that are not valid UTF-8 where a string was required.
    InvalidUtf8,
    /// A tuple or struct of the wrong length.
    Length {
        /// What the value is (`"tuple"`, a struct name).
        what: &'static str,
        /// Required length.
        expected: usize,
        /// Given length.
        got: usize,
    },
    /// A failure inside element `index` of a list or tuple.
    Element {
        /// The element index.
        index: usize,
        /// The failure.
        inner: Box<ConvError>,
    },
    /// A failure inside field `field` of struct `owner`.
    Field {
        /// The struct name.
        owner: &'static str,
        /// The field name.
        field: &'static str,
        /// The failure.
        inner: Box<ConvError>,
    },
    /// A string that names no variant of the fieldless enum `expected`.
    UnknownName {
        /// The enum.
        expected: &'static EnumDesc,
        /// The string given (lossily decoded).
        given: Box<str>,
    },
    /// Any other failure, with its own kind and message.
    Other(Box<Error>),
}

/// A number named in an out-of-range message. An integer wider than 128 bits (a BigInt
/// object of more words) is refused with its text built at once, as
/// [`ConvError::Other`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Number {
    /// An integer of at most 128 bits (an Int, or a BigInt object of two words).
    Int(i128),
    /// A float.
    Float(f64),
}

impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Number::Int(v) => write!(f, "{v}"),
            Number::Float(v) => write!(f, "{v:?}"),
        }
    }
}

impl ConvError {
    /// A type mismatch.
    #[cold]
    #[inline(never)]
    pub fn mismatch(expected: &'static TypeDesc, got: i32) -> ConvError {
        ConvError::Mismatch { expected, got }
    }

    /// Why `raw` was refused where `expected` was required: a null object handle when it
    /// carries an object type index and a null pointer, else a type mismatch.
    #[cold]
    #[inline(never)]
    pub fn refused(expected: &'static TypeDesc, raw: &RawAny) -> ConvError {
        if ti::is_object(raw.type_index) && raw.ptr().is_null() {
            ConvError::NullObject { expected, got: raw.type_index }
        } else {
            ConvError::Mismatch { expected, got: raw.type_index }
        }
    }

    /// A string `given` that names no variant of `expected`.
    #[cold]
    #[inline(never)]
    pub fn unknown_name(expected: &'static EnumDesc, given: &[u8]) -> ConvError {
        // A name is short: the message quotes at most the first 80 bytes of what was given.
        const SHOWN: usize = 80;
        let mut text: String = String::from_utf8_lossy(&given[..given.len().min(SHOWN)]).into();
        if given.len() > SHOWN {
            text.push_str(&format!("... ({} bytes)", given.len()));
        }
        ConvError::UnknownName { expected, given: text.into() }
    }

    /// The error kind this failure raises as: `TypeError` for wrong types and shapes,
    /// `ValueError` for values out of range or malformed.
    pub fn kind(&self) -> &str {
        match self {
            ConvError::Mismatch { .. } | ConvError::Length { .. } => kind::TYPE_ERROR,
            ConvError::OutOfRange { .. }
            | ConvError::InvalidUtf8
            | ConvError::NullObject { .. }
            | ConvError::UnknownName { .. } => kind::VALUE_ERROR,
            ConvError::Element { inner, .. } | ConvError::Field { inner, .. } => inner.kind(),
            ConvError::Other(e) => e.kind(),
        }
    }
}

impl ConvError {
    /// Appends the message, with no formatting machinery for the common mismatch.
    pub fn push_message(&self, out: &mut String) {
        match self {
            ConvError::Mismatch { expected, got } => {
                out.push_str("expected ");
                match expected.simple_display() {
                    Some(name) => out.push_str(name),
                    None => out.push_str(&expected.display()),
                }
                out.push_str(", got ");
                out.push_str(ti::display_name(*got));
            }
            other => {
                use core::fmt::Write;
                let _ = write!(out, "{other}");
            }
        }
    }
}

impl fmt::Display for ConvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConvError::Mismatch { .. } => {
                let mut text = String::new();
                self.push_message(&mut text);
                f.write_str(&text)
            }
            ConvError::NullObject { expected, got } => {
                write!(f, "expected {}, got a null {} handle", expected.display(), ti::display_name(*got))
            }
            ConvError::OutOfRange { value, target } => {
                write!(f, "{value} is out of range for {target}")
            }
            ConvError::InvalidUtf8 => f.write_str("invalid UTF-8 in string"),
            ConvError::UnknownName { expected, given } => {
                write!(f, "{given:?} is not a name of {}; it takes ", expected.name)?;
                for (i, name) in expected.names.iter().enumerate() {
                    write!(f, "{}{name:?}", if i > 0 { ", " } else { "" })?;
                }
                Ok(())
            }
            ConvError::Length { what, expected, got } => {
                write!(f, "expected {what} of length {expected}, got length {got}")
            }
            ConvError::Element { index, inner } => write!(f, "element {index}: {inner}"),
            ConvError::Field { owner, field, inner } => write!(f, "{owner}.{field}: {inner}"),
            ConvError::Other(e) => f.write_str(e.message()),
        }
    }
}

impl std::error::Error for ConvError {}

impl From<ConvError> for Error {
    #[cold]
    fn from(e: ConvError) -> Error {
        match e {
            ConvError::Other(e) => *e,
            e => Error::new(e.kind(), e.to_string()),
        }
    }
}

impl From<Error> for ConvError {
    fn from(e: Error) -> ConvError {
        ConvError::Other(Box::new(e))
    }
}

/// Why a return value did not reach the caller.
#[derive(Debug)]
pub enum ReturnError {
    /// The function returned an error.
    User(Error),
    /// The value could not be converted.
    Conv(ConvError),
}
