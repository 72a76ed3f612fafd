//! Errors raised on the call path but formatted only when somebody reads them: a failed
//! argument conversion costs a store, the signature text is rendered on the error path.

use crate::reflect::{FnDesc, TypeDesc};
use crate::value::conv_error::ConvError;
use crate::value::error::Error;

/// An error raised but not yet formatted.
#[derive(Debug)]
pub(crate) enum PendingError {
    Arity { desc: &'static FnDesc, got: i32 },
    NullPointer { desc: &'static FnDesc, what: &'static str },
    Arg { desc: &'static FnDesc, slot: u32, err: ConvError },
    Return { desc: &'static FnDesc, err: ConvError },
}

/// The dotted name of argument slot `slot` (`p.x` for expanded structs).
pub fn slot_name(desc: &FnDesc, slot: u32) -> String {
    fn walk(prefix: &str, ty: &TypeDesc, slot: &mut u32, out: &mut Option<String>) {
        match ty {
            TypeDesc::Struct(s) => {
                for f in s.fields {
                    walk(&format!("{prefix}.{}", f.name), f.ty, slot, out);
                    if out.is_some() {
                        return;
                    }
                }
            }
            _ => {
                if *slot == 0 {
                    *out = Some(prefix.to_owned());
                } else {
                    *slot -= 1;
                }
            }
        }
    }
    let mut remaining = slot;
    let mut out = None;
    for p in desc.params {
        if p.expand {
            walk(p.name, p.ty, &mut remaining, &mut out);
        } else if remaining == 0 {
            out = Some(p.name.to_owned());
        } else {
            remaining -= 1;
        }
        if let Some(name) = out {
            return name;
        }
    }
    format!("#{slot}")
}

impl PendingError {
    pub(crate) fn into_error(self) -> Error {
        match self {
            PendingError::Arity { desc, got } => {
                let n = desc.slot_count();
                let plural = if n == 1 { "argument" } else { "arguments" };
                Error::type_error(format!("{} takes {n} {plural}, got {got}", desc.signature_text()))
            }
            PendingError::NullPointer { desc, what } => {
                Error::value_error(format!("{}: {what} is a null pointer", desc.signature_text()))
            }
            PendingError::Arg { desc, slot, err } => Error::new(
                err.kind(),
                format!("{}: argument `{}` (#{slot}) {err}", desc.signature_text(), slot_name(desc, slot)),
            ),
            PendingError::Return { desc, err } => {
                Error::new(err.kind(), format!("{}: the result cannot be returned: {err}", desc.signature_text()))
            }
        }
    }
}
