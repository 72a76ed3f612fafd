//! `#[derive(AbiStruct)]` expansion: reflection (`sdict`/`stuple`), tuple lowering both
//! ways (an Array of the fields in declaration order), and expanded lowering.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::model::StructDef;
use crate::skeleton::impl_macro;
use crate::{parse, validate};

impl_macro!(StructDef, item, parse::abi_struct, validate::abi_struct, expand, fallback);

fn expand(s: &StructDef) -> TokenStream {
    let krate = &s.krate;
    let ident = &s.ident;
    let name = ident.to_string();
    let n = s.fields.len();
    let tuple_like = s.tuple_like;

    // Every mention of a field type goes through `StructField`, spanned on the type, so an
    // unsupported one is a single error there.
    let field_descs = s.fields.iter().map(|f| {
        let (key, ty) = (&f.key, &f.ty);
        let desc = quote_spanned!(ty.span()=> <#ty as __abi::StructField>::FIELD);
        quote!(__abi::FieldDesc { name: #key, ty: #desc })
    });
    let from_fields = s.fields.iter().enumerate().map(|(i, f)| {
        let (member, ty, key) = (&f.member, &f.ty, &f.key);
        let from = quote_spanned!(ty.span()=> <#ty as __abi::StructField>::from_field(&items[#i]));
        quote!(#member: #from.map_err(|e| __abi::in_field(#name, #key, e))?)
    });
    let into_fields = s.fields.iter().map(|f| {
        let (member, ty, key) = (&f.member, &f.ty, &f.key);
        let into = quote_spanned!(ty.span()=> <#ty as __abi::StructField>::into_field(self.#member));
        quote!(#into.map_err(|e| __abi::in_field(#name, #key, e))?)
    });

    // Expansion: checked only where it is used (the bounds name the impl's lifetime).
    let leaf_bounds = s.fields.iter().map(|f| {
        let ty = &f.ty;
        quote_spanned!(ty.span()=> #ty: __abi::Expand<'a>)
    });
    let leaf_counts = s.fields.iter().map(|f| {
        let ty = &f.ty;
        quote!(<#ty as __abi::Expand<'a>>::LEAVES)
    });
    let from_slots = s.fields.iter().map(|f| {
        let (member, ty) = (&f.member, &f.ty);
        quote! {
            #member: {
                let width = <#ty as __abi::Expand<'a>>::LEAVES;
                let v = <#ty as __abi::Expand<'a>>::from_slots(&slots[offset..offset + width])
                    .map_err(|(slot, e)| (offset as u32 + slot, e))?;
                offset += width;
                v
            }
        }
    });

    quote! {
        const _: () = {
            use #krate::__private as __abi;

            impl __abi::AbiType for #ident {
                const DESC: &'static __abi::TypeDesc = &__abi::TypeDesc::Struct(&__abi::StructDesc {
                    name: #name,
                    fields: &[#(#field_descs),*],
                    tuple_like: #tuple_like,
                });
            }

            impl __abi::ListItem for #ident {}

            impl __abi::AbiStruct for #ident {}

            impl<'a> __abi::FromArg<'a> for #ident {
                fn from_arg(v: &'a __abi::AnyView<'a>) -> ::core::result::Result<Self, __abi::ConvError> {
                    let items = __abi::struct_items(v, <Self as __abi::AbiType>::DESC, #name, #n)?;
                    ::core::result::Result::Ok(#ident { #(#from_fields),* })
                }
            }

            impl __abi::IntoAny for #ident {
                fn into_any(self) -> ::core::result::Result<__abi::Any, __abi::ConvError> {
                    ::core::result::Result::Ok(__abi::struct_any(::std::vec![#(#into_fields),*]))
                }
            }

            impl __abi::IntoArg for #ident {
                type Slot = __abi::Any;
                fn into_slot(self) -> ::core::result::Result<__abi::Any, __abi::ConvError> {
                    __abi::IntoAny::into_any(self)
                }
            }

            impl<'a> __abi::Expand<'a> for #ident where #(#leaf_bounds),* {
                const LEAVES: usize = {
                    let leaves = 0 #(+ #leaf_counts)*;
                    ::core::assert!(
                        leaves == __abi::leaf_count(<Self as __abi::AbiType>::DESC),
                        "leaf count differs from the reflected structure"
                    );
                    leaves
                };
                #[inline]
                fn from_slots(
                    slots: &'a [__abi::AnyView<'a>],
                ) -> ::core::result::Result<Self, (u32, __abi::ConvError)> {
                    let mut offset = 0usize;
                    let value = #ident { #(#from_slots),* };
                    let _ = offset;
                    ::core::result::Result::Ok(value)
                }
            }
        };
    }
}

/// Every trait the derive implements, with unreachable bodies: uses of the type as an ABI
/// type compile, so the derive's own error is the only one.
fn fallback(s: &StructDef) -> TokenStream {
    let (krate, ident) = (&s.krate, &s.ident);
    let (impl_g, ty_g, where_c) = s.generics.split_for_impl();
    let mut with_a = s.generics.clone();
    with_a.params.insert(0, syn::parse_quote!('__abi));
    let (impl_a, _, _) = with_a.split_for_impl();
    let unreachable = quote!(::core::unreachable!("#[derive(AbiStruct)] failed to compile"));
    let values = super::fallback_impls::value_traits(ident, &s.generics, &unreachable);
    quote! {
        const _: () = {
            use #krate::__private as __abi;
            impl #impl_g __abi::AbiType for #ident #ty_g #where_c {
                const DESC: &'static __abi::TypeDesc = &__abi::TypeDesc::Any;
            }
            impl #impl_g __abi::AbiStruct for #ident #ty_g #where_c {}
            #values
            impl #impl_a __abi::Expand<'__abi> for #ident #ty_g #where_c {
                const LEAVES: usize = 1;
                fn from_slots(_: &'__abi [__abi::AnyView<'__abi>]) -> ::core::result::Result<Self, (u32, __abi::ConvError)> {
                    #unreachable
                }
            }
        };
    }
}
