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

/// Implements [`Macro`] for a model from the functions of its phases, so each macro states
/// only which ones it uses. `item` macros receive the annotated item; `args_and_item`
/// attribute macros also their arguments.
macro_rules! impl_macro {
    ($model:ty, item, $parse:path, $validate:path, $expand:path, $fallback:expr $(,)?) => {
        $crate::skeleton::impl_macro!(@impl $model, ::proc_macro2::TokenStream,
            |input, errors| $parse(input, errors), $validate, $expand, $fallback);
    };
    ($model:ty, args_and_item, $parse:path, $validate:path, $expand:path, $fallback:expr $(,)?) => {
        $crate::skeleton::impl_macro!(@impl $model, (::proc_macro2::TokenStream, ::proc_macro2::TokenStream),
            |(args, item), errors| $parse(args, item, errors), $validate, $expand, $fallback);
    };
    (@impl $model:ty, $input:ty, $parse:expr, $validate:path, $expand:path, $fallback:expr) => {
        impl $crate::skeleton::Macro for $model {
            type Input = $input;

            fn parse(
                input: $input,
                errors: &mut $crate::errors::Errors,
            ) -> ::core::result::Result<Self, ::proc_macro2::TokenStream> {
                let parse: fn($input, &mut $crate::errors::Errors) -> ::core::result::Result<Self, ::proc_macro2::TokenStream> = $parse;
                parse(input, errors)
            }

            fn validate(&self, errors: &mut $crate::errors::Errors) {
                $validate(self, errors)
            }

            fn expand(&self) -> ::proc_macro2::TokenStream {
                $expand(self)
            }

            fn fallback(&self) -> ::proc_macro2::TokenStream {
                let fallback: fn(&Self) -> ::proc_macro2::TokenStream = $fallback;
                fallback(self)
            }
        }
    };
}

pub(crate) use impl_macro;
