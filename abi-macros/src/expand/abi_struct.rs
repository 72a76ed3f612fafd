//! `#[derive(AbiStruct)]` expansion: reflection (`sdict`/`stuple`), tuple lowering both
//! ways (an Array of the fields in declaration order), and expanded lowering.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::errors::Errors;
use crate::model::StructDef;
use crate::{parse, validate};

/// Entry point: parse, validate, expand.
pub fn derive(input: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let input: syn::DeriveInput = match syn::parse2(input) {
        Ok(i) => i,
        Err(e) => return e.to_compile_error(),
    };
    let Some(model) = parse::abi_struct(&input, &mut errors) else {
        return errors.into_compile_errors();
    };
    validate::abi_struct(&input, &model, &mut errors);
    if !errors.is_empty() {
        return errors.into_compile_errors();
    }
    expand(&model)
}

fn expand(s: &StructDef) -> TokenStream {
    let krate = &s.krate;
    let p = quote!(#krate::__private);
    let ident = &s.ident;
    let name = ident.to_string();
    let n = s.fields.len();
    let tuple_like = s.tuple_like;

    let field_descs = s.fields.iter().map(|f| {
        let key = &f.key;
        let ty = &f.ty;
        let desc = quote_spanned!(ty.span()=> <#ty as #krate::AbiType>::DESC);
        quote!(#p::FieldDesc { name: #key, ty: #desc })
    });

    let from_fields = s.fields.iter().enumerate().map(|(i, f)| {
        let (member, ty, key) = (&f.member, &f.ty, &f.key);
        let from = quote_spanned!(ty.span()=> <#ty as #krate::FromArg<'a>>::from_arg);
        quote!(#member: #from(&items[#i]).map_err(|e| #p::in_field(#name, #key, e))?)
    });

    let into_fields = s.fields.iter().map(|f| {
        let (member, ty, key) = (&f.member, &f.ty, &f.key);
        let into = quote_spanned!(ty.span()=> <#ty as #krate::IntoAny>::into_any);
        quote!(#into(self.#member).map_err(|e| #p::in_field(#name, #key, e))?)
    });

    let leaf_bounds = s.fields.iter().map(|f| {
        let ty = &f.ty;
        quote_spanned!(ty.span()=> #ty: #krate::Expand<'a>)
    });
    let leaf_counts = s.fields.iter().map(|f| {
        let ty = &f.ty;
        quote!(<#ty as #krate::Expand<'a>>::LEAVES)
    });
    let from_slots = s.fields.iter().map(|f| {
        let (member, ty) = (&f.member, &f.ty);
        quote! {
            #member: {
                let width = <#ty as #krate::Expand<'a>>::LEAVES;
                let v = <#ty as #krate::Expand<'a>>::from_slots(&slots[offset..offset + width])
                    .map_err(|(slot, e)| (offset as u32 + slot, e))?;
                offset += width;
                v
            }
        }
    });

    quote! {
        #[allow(non_upper_case_globals, clippy::all)]
        const _: () = {
            impl #krate::AbiType for #ident {
                const DESC: &'static #p::TypeDesc = &#p::TypeDesc::Struct(&#p::StructDesc {
                    name: #name,
                    fields: &[#(#field_descs),*],
                    tuple_like: #tuple_like,
                });
            }

            impl #krate::ListItem for #ident {}

            impl #krate::AbiStruct for #ident {
                const FIELD_COUNT: usize = #n;
            }

            impl<'a> #krate::FromArg<'a> for #ident {
                fn from_arg(v: &'a #krate::AnyView<'a>) -> ::core::result::Result<Self, #krate::ConvError> {
                    let items = #p::struct_items(v, <Self as #krate::AbiType>::DESC, #name, #n)?;
                    ::core::result::Result::Ok(#ident { #(#from_fields),* })
                }
            }

            impl #krate::IntoAny for #ident {
                fn into_any(self) -> ::core::result::Result<#krate::Any, #krate::ConvError> {
                    ::core::result::Result::Ok(#p::struct_any(::std::vec![#(#into_fields),*]))
                }
            }

            impl #krate::IntoArg for #ident {
                type Slot = #krate::Any;
                fn into_slot(self) -> ::core::result::Result<#krate::Any, #krate::ConvError> {
                    #krate::IntoAny::into_any(self)
                }
            }

            // Checked only where expansion is used: the bounds name the impl's lifetime.
            impl<'a> #krate::Expand<'a> for #ident where #(#leaf_bounds),* {
                const LEAVES: usize = {
                    let leaves = 0 #(+ #leaf_counts)*;
                    ::core::assert!(
                        leaves == #p::leaf_count(<Self as #krate::AbiType>::DESC),
                        "leaf count differs from the reflected structure"
                    );
                    leaves
                };
                #[inline]
                fn from_slots(
                    slots: &'a [#krate::AnyView<'a>],
                ) -> ::core::result::Result<Self, (u32, #krate::ConvError)> {
                    let mut offset = 0usize;
                    let value = #ident { #(#from_slots),* };
                    let _ = offset;
                    ::core::result::Result::Ok(value)
                }
            }

            const _: () = ::core::assert!(
                <#ident as #krate::AbiStruct>::FIELD_COUNT == #n,
                "field count differs from the declaration"
            );
        };
    }
}
