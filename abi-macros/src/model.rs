//! The macros' model: plain data that keeps the user's tokens for spans.

use proc_macro2::Span;

/// A function marked `#[export_fn]`.
pub struct ExportFn {
    /// The user's item, re-emitted unchanged (minus our helper attributes).
    pub item: syn::ItemFn,
    /// The exported name and where it came from (the option literal or the fn name).
    pub name: String,
    /// Span of the exported name.
    pub name_span: Span,
    /// Path of the runtime crate.
    pub krate: syn::Path,
    /// Parameters in order.
    pub params: Vec<Param>,
    /// The return type, `None` for `()`.
    pub ret: Option<syn::Type>,
    /// The collected `///` docs.
    pub doc: String,
}

/// One parameter.
pub struct Param {
    /// The binding name.
    pub name: syn::Ident,
    /// The declared type.
    pub ty: syn::Type,
    /// `#[abi(expand)]` (its span): one argument slot per leaf field.
    pub expand: Option<Span>,
}
