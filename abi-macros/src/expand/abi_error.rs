//! `#[derive(AbiError)]` expansion: the type's kinds (`<crate>.<Enum>.<Variant>`, or the
//! variant's `kind`), `From<Self> for abi_core::Error` (the kind and the `Display` text),
//! and the type's record in the class records section, so tools read its kinds from the
//! file.

use proc_macro2::TokenStream;
use quote::quote;

use crate::model::ErrorDef;
use crate::skeleton::impl_macro;
use crate::{parse, validate};

use super::class_records;

impl_macro!(ErrorDef, item, parse::abi_error, validate::abi_error, expand, fallback);

fn expand(e: &ErrorDef) -> TokenStream {
    let (krate, ident, doc) = (&e.krate, &e.ident, &e.doc);
    let name = ident.to_string();
    let kinds = e.variants.iter().map(|v| {
        let variant = v.ident.to_string();
        let kind_with_nul = match &v.kind {
            Some(kind) => {
                let text = format!("{}\0", kind.value());
                quote!(#text)
            }
            // Prefixed with the crate's name, so two libraries' `KernelError.BadShape` are
            // two kinds in tvm_ffi's one process-wide registry.
            None => {
                let rest = format!(".{name}.{variant}\0");
                quote!(::core::concat!(::core::env!("CARGO_CRATE_NAME"), #rest))
            }
        };
        let base = v.base.as_ref().and_then(|b| b.get_ident()).map_or("RuntimeError".to_owned(), |b| b.to_string());
        let doc = &v.doc;
        quote!(__abi::ErrorKindDesc { variant: #variant, kind_with_nul: #kind_with_nul, base: #base, doc: #doc })
    });
    let variants = e.variants.iter().map(|v| &v.ident);
    let positions = 0..e.variants.len();
    let record = class_records::record(
        quote!(__abi::error_record_len(<#ident as __abi::AbiError>::ERRORS)),
        quote!(__abi::error_record_bytes::<LEN>(<#ident as __abi::AbiError>::ERRORS)),
    );
    quote! {
        const _: () = {
            use #krate::__private as __abi;

            impl __abi::AbiError for #ident {
                const ERRORS: &'static __abi::ErrorDesc =
                    &__abi::ErrorDesc { name: #name, doc: #doc, kinds: &[#(#kinds),*] };

                #[inline]
                fn position(&self) -> usize {
                    match self {
                        #(#ident::#variants { .. } => #positions,)*
                    }
                }
            }

            impl ::core::convert::From<#ident> for __abi::Error {
                #[cold]
                fn from(e: #ident) -> __abi::Error {
                    __abi::error_of(&e)
                }
            }

            #record
        };
    }
}

/// The trait impls with unreachable bodies: uses of the type compile, so the derive's own
/// error is the only one.
fn fallback(e: &ErrorDef) -> TokenStream {
    let (krate, ident) = (&e.krate, &e.ident);
    let (impl_g, ty_g, where_c) = e.generics.split_for_impl();
    let unreachable = quote!(::core::unreachable!("#[derive(AbiError)] failed to compile"));
    quote! {
        const _: () = {
            use #krate::__private as __abi;
            impl #impl_g __abi::AbiError for #ident #ty_g #where_c {
                const ERRORS: &'static __abi::ErrorDesc = &__abi::ErrorDesc { name: "", doc: "", kinds: &[] };
                fn position(&self) -> usize {
                    #unreachable
                }
            }
            impl #impl_g ::core::convert::From<#ident #ty_g> for __abi::Error #where_c {
                fn from(_: #ident #ty_g) -> __abi::Error {
                    #unreachable
                }
            }
        };
    }
}
