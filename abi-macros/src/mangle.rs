//! Every symbol the macros emit, spelled by `abi_shared` (the one table the runtime and
//! tools read too), as identifiers spanned on the user's tokens.

use proc_macro2::{Ident, Span};

/// The packed shim symbol.
pub fn shim(name: &str, span: Span) -> Ident {
    Ident::new(&abi_shared::shim(name), span)
}

/// The metadata symbol.
pub fn metadata(name: &str, span: Span) -> Ident {
    Ident::new(&abi_shared::metadata(name), span)
}

/// The docstring symbol.
pub fn doc(name: &str, span: Span) -> Ident {
    Ident::new(&abi_shared::doc(name), span)
}

/// A crate-root marker whose duplication rustc reports at `cargo check` time (E0428),
/// so two exports of one name in a crate fail early instead of clashing at link time.
pub fn uniqueness_marker(name: &str, span: Span) -> Ident {
    Ident::new(&abi_shared::uniqueness_marker(name), span)
}

pub use abi_shared::is_c_identifier;
