//! The one entry every macro runs: parse -> validate -> expand. Problems are collected, not
//! returned early; when there are any, the macro emits them next to a fallback (the user's
//! item, or impls and methods with unreachable bodies) so that code using the item compiles
//! and the user sees only the real errors (thiserror's fallback is the precedent).

use proc_macro2::TokenStream;
use quote::quote;

use crate::errors::Errors;

/// A macro's model and its phases.
pub trait Macro: Sized {
    /// What the compiler hands the macro.
    type Input;

    /// Builds the model, recording every recoverable problem in `errors`. `Err` when there
    /// is no model at all: then it holds what to emit next to the errors.
    fn parse(input: Self::Input, errors: &mut Errors) -> Result<Self, TokenStream>;

    /// Checks the rules, reading only the model.
    fn validate(&self, errors: &mut Errors);

    /// The generated code, for a model that passed validation.
    fn expand(&self) -> TokenStream;

    /// What to emit next to errors: enough for code using the item to compile.
    fn fallback(&self) -> TokenStream;
}

/// Runs macro `M` on its input.
pub fn run<M: Macro>(input: M::Input) -> TokenStream {
    let mut errors = Errors::default();
    let model = match M::parse(input, &mut errors) {
        Ok(model) => model,
        Err(unparsed) => {
            let errors = errors.into_compile_errors();
            return quote!(#errors #unparsed);
        }
    };
    model.validate(&mut errors);
    if errors.is_empty() {
        return model.expand();
    }
    let fallback = model.fallback();
    let errors = errors.into_compile_errors();
    quote!(#errors #fallback)
}
