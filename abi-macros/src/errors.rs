//! An error accumulator: every phase records problems here and they are reported together.

use proc_macro2::TokenStream;
use quote::ToTokens;
use std::fmt::Display;

/// Collected errors of one macro input.
#[derive(Default)]
pub struct Errors {
    all: Option<syn::Error>,
}

impl Errors {
    /// Records an error spanned on `tokens`.
    pub fn error(&mut self, tokens: impl ToTokens, message: impl Display) {
        self.push(syn::Error::new_spanned(tokens, message));
    }

    /// Records an error at `span`.
    pub fn error_at(&mut self, span: proc_macro2::Span, message: impl Display) {
        self.push(syn::Error::new(span, message));
    }

    /// Records a syn error.
    pub fn push(&mut self, e: syn::Error) {
        match &mut self.all {
            Some(all) => all.combine(e),
            None => self.all = Some(e),
        }
    }

    /// Whether nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.all.is_none()
    }

    /// The compile errors, or nothing.
    pub fn into_compile_errors(self) -> TokenStream {
        self.all.map(|e| e.to_compile_error()).unwrap_or_default()
    }
}
