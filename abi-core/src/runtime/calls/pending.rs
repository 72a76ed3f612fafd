//! Errors raised on the call path but formatted only when somebody reads them: a failed
//! argument conversion costs a store. Formatting is one pre-sized string: the signature
//! text was rendered at compile time, and the pieces are appended, not formatted.

use crate::reflect::{leaf_count, slot_count, Access, ParamDesc, TypeDesc};
use crate::runtime::calls::export_entry::Export;
use crate::value::conv_error::ConvError;
use crate::value::error::{kind, Error};

/// An error raised but not yet formatted.
#[derive(Debug)]
pub(crate) enum PendingError {
    Arity {
        export: &'static Export,
        got: i32,
    },
    NullPointer {
        export: &'static Export,
        what: &'static str,
    },
    Arg {
        export: &'static Export,
        slot: u32,
        err: ConvError,
    },
    /// A check of abi's own in the body refused the tensor of argument `slot`.
    InArg {
        export: &'static Export,
        slot: u32,
        err: Error,
    },
    Return {
        export: &'static Export,
        err: ConvError,
    },
    Overlap {
        export: &'static Export,
        slot: u32,
        other: u32,
    },
}

/// Appends the dotted name of argument slot `slot` (`p.x` for expanded structs).
fn push_slot_name(out: &mut String, params: &[ParamDesc], slot: u32) {
    // The path to the leaf: field names from the parameter down.
    fn walk(path: &mut Vec<&'static str>, ty: &'static TypeDesc, slot: &mut u32) -> bool {
        match ty {
            TypeDesc::Struct(s) => s.fields.iter().any(|f| {
                path.push(f.name);
                let found = walk(path, f.ty, slot);
                if !found {
                    path.pop();
                }
                found
            }),
            _ if *slot == 0 => true,
            _ => {
                *slot -= 1;
                false
            }
        }
    }
    let mut remaining = slot;
    for p in params {
        if !p.expand {
            if remaining == 0 {
                out.push_str(p.name);
                return;
            }
            remaining -= 1;
            continue;
        }
        let mut path = vec![p.name];
        if walk(&mut path, p.ty, &mut remaining) {
            out.push_str(&path.join("."));
            return;
        }
    }
    out.push('#');
    push_int(out, slot.into());
}

/// Appends "argument `name` (#slot)".
fn push_arg(out: &mut String, params: &[ParamDesc], slot: u32) {
    out.push_str("argument `");
    push_slot_name(out, params, slot);
    out.push_str("` (#");
    push_int(out, slot.into());
    out.push(')');
}

/// The plain (not expanded) parameter at argument slot `slot`.
fn slot_param(params: &[ParamDesc], slot: u32) -> Option<&ParamDesc> {
    let mut first = 0;
    for p in params {
        let width = if p.expand { leaf_count(p.ty) } else { 1 };
        if (first..first + width).contains(&(slot as usize)) {
            return Some(p).filter(|p| !p.expand);
        }
        first += width;
    }
    None
}

/// Appends a decimal integer.
fn push_int(out: &mut String, n: i64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut v = n.unsigned_abs();
    loop {
        at -= 1;
        digits[at] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    if n < 0 {
        out.push('-');
    }
    out.extend(digits[at..].iter().map(|&d| d as char));
}

/// A message that starts with the export's signature, sized for the usual additions.
fn message(export: &Export) -> String {
    let sig = export.signature_text();
    let mut out = String::with_capacity(sig.len() + 96);
    out.push_str(sig);
    out
}

impl PendingError {
    pub(crate) fn into_error(self) -> Error {
        match self {
            PendingError::Arity { export, got } => {
                let params = export.params();
                let (n, required) = (slot_count(params), export.required_slots as usize);
                let mut m = message(export);
                m.push_str(" takes ");
                if required < n {
                    push_int(&mut m, required as i64);
                    m.push_str(" to ");
                }
                push_int(&mut m, n as i64);
                m.push_str(if n == 1 { " argument" } else { " arguments" });
                // A method's receiver is an argument a Python caller does not write.
                if params.first().is_some_and(|p| p.name == "self") {
                    m.push_str(" (self included)");
                }
                m.push_str(", got ");
                push_int(&mut m, got.into());
                // Too few: name the first required parameter the call left out.
                if got >= 0 && (got as usize) < required {
                    m.push_str(": missing `");
                    push_slot_name(&mut m, params, got as u32);
                    m.push_str("` (#");
                    push_int(&mut m, got.into());
                    m.push(')');
                }
                Error::new(kind::TYPE_ERROR, m)
            }
            PendingError::NullPointer { export, what } => {
                let mut m = message(export);
                m.push_str(": ");
                m.push_str(what);
                m.push_str(" is a null pointer");
                Error::new(kind::VALUE_ERROR, m)
            }
            PendingError::Arg { export, slot, err } => {
                let mut m = message(export);
                m.push_str(": ");
                push_arg(&mut m, export.params(), slot);
                m.push(' ');
                err.push_message(&mut m);
                Error::new(err.kind(), m)
            }
            PendingError::InArg { export, slot, err } => {
                let mut m = message(export);
                m.push_str(": ");
                push_arg(&mut m, export.params(), slot);
                m.push(' ');
                m.push_str(err.message());
                Error::new(err.kind(), m)
            }
            PendingError::Overlap { export, slot, other } => {
                let (mut m, params) = (message(export), export.params());
                let access = |slot: u32| slot_param(params, slot).map(|p| p.access);
                m.push_str(": ");
                push_arg(&mut m, params, slot);
                m.push_str(" shares memory with ");
                push_arg(&mut m, params, other);
                m.push_str(match (access(slot), access(other)) {
                    (Some(Access::Exclusive), _) | (_, Some(Access::Exclusive)) => {
                        ": an argument written in place (HostTensorMut, StridedTensorMut, TensorViewMut) must not overlap another tensor argument"
                    }
                    _ => ": a HostTensor or StridedTensor must not overlap an argument that can write through cells (TensorView, Tensor, Any)",
                });
                Error::new(kind::VALUE_ERROR, m)
            }
            PendingError::Return { export, err } => {
                let mut m = message(export);
                m.push_str(": the result cannot be returned: ");
                err.push_message(&mut m);
                Error::new(err.kind(), m)
            }
        }
    }
}
