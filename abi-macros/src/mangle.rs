//! Every symbol spelling the macros emit, in one place.
//!
//! | symbol | what |
//! |---|---|
//! | `__tvm_ffi_<name>` | the packed shim |
//! | `__tvm_ffi__metadata_<name>` | returns the metadata JSON |
//! | `__tvm_ffi__doc_<name>` | returns the docstring |
//! | `abi_export_named_<name>!` | hidden crate-root macro: one export per name per crate |

use proc_macro2::{Ident, Span};

/// The packed shim symbol.
pub fn shim(name: &str, span: Span) -> Ident {
    Ident::new(&format!("__tvm_ffi_{name}"), span)
}

/// The metadata symbol.
pub fn metadata(name: &str, span: Span) -> Ident {
    Ident::new(&format!("__tvm_ffi__metadata_{name}"), span)
}

/// The docstring symbol.
pub fn doc(name: &str, span: Span) -> Ident {
    Ident::new(&format!("__tvm_ffi__doc_{name}"), span)
}

/// A crate-root marker whose duplication rustc reports at `cargo check` time (E0428),
/// so two exports of one name in a crate fail early instead of clashing at link time.
pub fn uniqueness_marker(name: &str, span: Span) -> Ident {
    Ident::new(&format!("abi_export_named_{name}"), span)
}

/// Whether `s` is a C identifier (the exported name becomes part of a C symbol).
pub fn is_c_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}
