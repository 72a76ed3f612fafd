//! The value traits a derive's fallback implements with unreachable bodies (`ListItem`,
//! `FromArg`, `IntoAny`, `IntoArg`), so uses of a type whose derive failed still compile
//! and the derive's own error is the only one.

use proc_macro2::TokenStream;
use quote::quote;

/// The impls for `ident` with `generics`, inside a block that has `__abi` in scope;
/// `unreachable` is the body each runs.
pub fn value_traits(ident: &syn::Ident, generics: &syn::Generics, unreachable: &TokenStream) -> TokenStream {
    let (impl_g, ty_g, where_c) = generics.split_for_impl();
    let mut with_a = generics.clone();
    with_a.params.insert(0, syn::parse_quote!('__abi));
    let (impl_a, _, _) = with_a.split_for_impl();
    quote! {
        impl #impl_g __abi::ListItem for #ident #ty_g #where_c {}
        impl #impl_a __abi::FromArg<'__abi> for #ident #ty_g #where_c {
            fn from_arg(_: &'__abi __abi::AnyView<'__abi>) -> ::core::result::Result<Self, __abi::ConvError> {
                #unreachable
            }
        }
        impl #impl_g __abi::IntoAny for #ident #ty_g #where_c {
            fn into_any(self) -> ::core::result::Result<__abi::Any, __abi::ConvError> {
                #unreachable
            }
        }
        impl #impl_g __abi::IntoArg for #ident #ty_g #where_c {
            type Slot = __abi::Any;
            fn into_slot(self) -> ::core::result::Result<__abi::Any, __abi::ConvError> {
                #unreachable
            }
        }
    }
}
