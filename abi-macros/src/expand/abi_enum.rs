//! `#[derive(AbiEnum)]` expansion. A fieldless enum: its description (its name and its
//! variants' names), the name lookup both ways, and each conversion trait through
//! abi-core's shared enum functions (`convert::enums`), so the generated code is the tables
//! and two matches. An enum with data: its description (the names, and each variant's
//! fields as a struct's), and the tagged tuple both ways (`convert::tagged` reads the tag;
//! the fields convert as a struct's do).

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::model::EnumDef;
use crate::skeleton::impl_macro;
use crate::{parse, validate};

impl_macro!(EnumDef, item, parse::abi_enum, validate::abi_enum, expand, fallback);

fn expand(e: &EnumDef) -> TokenStream {
    if e.has_data() {
        return expand_tagged(e);
    }
    let (krate, ident) = (&e.krate, &e.ident);
    let name = ident.to_string();
    let names: Vec<String> = e.names().into_iter().map(|(n, _)| n).collect();
    let variants: Vec<&syn::Ident> = e.variants.iter().map(|v| &v.ident).collect();
    let idents = variants.iter().map(|v| v.to_string());
    let positions = 0..variants.len();
    let byte_names = names.iter().map(|n| syn::LitByteStr::new(n.as_bytes(), ident.span()));
    let with_nul = names.iter().map(|n| format!("{n}\0"));
    let json_names = names.iter().map(|n| super::default_value::json_string(n));
    let n = names.len();
    quote! {
        const _: () = {
            use #krate::__private as __abi;

            static NAME_OBJECTS: [__abi::StaticStr; #n] = [#(__abi::StaticStr::new(#with_nul)),*];

            impl __abi::AbiType for #ident {
                const DESC: &'static __abi::TypeDesc = &__abi::TypeDesc::Enum(<Self as __abi::AbiEnum>::ENUM);
            }

            impl __abi::ListItem for #ident {}

            impl __abi::AbiEnum for #ident {
                const ENUM: &'static __abi::EnumDesc = &__abi::EnumDesc {
                    name: #name,
                    names: &[#(#names),*],
                    variants: &[#(#idents),*],
                };
                const JSON_NAMES: &'static [&'static str] = &[#(#json_names),*];

                #[inline]
                fn from_name(name: &[u8]) -> ::core::option::Option<Self> {
                    match name {
                        #(#byte_names => ::core::option::Option::Some(#ident::#variants),)*
                        _ => ::core::option::Option::None,
                    }
                }

                #[inline]
                fn position(&self) -> usize {
                    match self {
                        #(#ident::#variants => #positions,)*
                    }
                }

                #[inline]
                fn name_objects() -> &'static [__abi::StaticStr] {
                    &NAME_OBJECTS
                }
            }

            impl<'a> __abi::FromArg<'a> for #ident {
                const HAS_FAST_PATH: bool = true;
                // A long name arrives as a Str object, which a converted result releases.
                const FAST_PATH_PLAIN: bool = false;

                #[inline]
                fn from_arg(v: &'a __abi::AnyView<'a>) -> ::core::result::Result<Self, __abi::ConvError> {
                    __abi::enum_from_arg::<Self>(v)
                }

                #[inline(always)]
                fn fast_path(v: &'a __abi::AnyView<'a>) -> ::core::option::Option<Self> {
                    __abi::enum_fast_path::<Self>(v)
                }

                fn exact_slot(v: &'a __abi::AnyView<'a>) -> ::core::result::Result<__abi::RawAny, __abi::ConvError> {
                    __abi::enum_exact_slot::<Self>(v)
                }
            }

            impl __abi::IntoAny for #ident {
                #[inline]
                fn into_any(self) -> ::core::result::Result<__abi::Any, __abi::ConvError> {
                    ::core::result::Result::Ok(__abi::enum_any(&self))
                }
            }

            impl __abi::IntoArg for #ident {
                type Slot = __abi::Any;
                #[inline]
                fn into_slot(self) -> ::core::result::Result<__abi::Any, __abi::ConvError> {
                    ::core::result::Result::Ok(__abi::enum_any(&self))
                }
            }
        };
    }
}

/// An enum with data: a tagged tuple, its variant's name then its fields.
fn expand_tagged(e: &EnumDef) -> TokenStream {
    let (krate, ident) = (&e.krate, &e.ident);
    let name = ident.to_string();
    let names: Vec<String> = e.names().into_iter().map(|(n, _)| n).collect();
    let idents: Vec<String> = e.variants.iter().map(|v| v.ident.to_string()).collect();
    let with_nul = names.iter().map(|n| format!("{n}\0"));
    let n = names.len();
    // Each variant's fields, as a struct's: every mention of a field type goes through
    // `StructField`, spanned on the type, so an unsupported one is a single error there.
    let owners: Vec<String> = e.variants.iter().map(|v| format!("{name}.{}", v.ident)).collect();
    let variant_descs = e.variants.iter().zip(&owners).map(|(v, owner)| {
        let fields = v.fields.iter().map(|f| {
            let (key, ty) = (&f.key, &f.ty);
            let desc = quote_spanned!(ty.span()=> <#ty as __abi::StructField>::FIELD);
            quote!(__abi::FieldDesc { name: #key, ty: #desc })
        });
        let tuple_like = v.shape == crate::model::VariantShape::Tuple;
        quote!(__abi::StructDesc { name: #owner, fields: &[#(#fields),*], tuple_like: #tuple_like })
    });
    let last = e.variants.len().saturating_sub(1);
    let from_arms = e.variants.iter().zip(&owners).enumerate().map(|(i, (v, owner))| {
        let variant = &v.ident;
        let fields = v.fields.iter().enumerate().map(|(j, f)| {
            let (member, ty, key) = (&f.member, &f.ty, &f.key);
            let from = quote_spanned!(ty.span()=> <#ty as __abi::StructField>::from_field(&items[#j]));
            quote!(#member: #from.map_err(|e| __abi::in_field(#owner, #key, e))?)
        });
        // The last arm takes every position: `tagged_items` gives only the variants'.
        let pattern = if i == last { quote!(_) } else { quote!(#i) };
        quote!(#pattern => #ident::#variant { #(#fields),* })
    });
    let into_arms = e.variants.iter().zip(&owners).enumerate().map(|(i, (v, owner))| {
        let variant = &v.ident;
        let bindings: Vec<syn::Ident> = (0..v.fields.len()).map(|j| quote::format_ident!("__field{j}")).collect();
        let members = v.fields.iter().map(|f| &f.member);
        let items = v.fields.iter().zip(&bindings).map(|(f, b)| {
            let (ty, key) = (&f.ty, &f.key);
            let into = quote_spanned!(ty.span()=> <#ty as __abi::StructField>::into_field(#b));
            quote!(#into.map_err(|e| __abi::in_field(#owner, #key, e))?)
        });
        quote! {
            #ident::#variant { #(#members: #bindings),* } => {
                __abi::struct_any(::std::vec![TAGS[#i].any(), #(#items),*])
            }
        }
    });
    quote! {
        const _: () = {
            use #krate::__private as __abi;

            static TAGS: [__abi::StaticStr; #n] = [#(__abi::StaticStr::new(#with_nul)),*];

            impl __abi::AbiType for #ident {
                const DESC: &'static __abi::TypeDesc = &__abi::TypeDesc::Tagged(&__abi::TaggedDesc {
                    tags: __abi::EnumDesc { name: #name, names: &[#(#names),*], variants: &[#(#idents),*] },
                    variants: &[#(#variant_descs),*],
                });
            }

            impl __abi::ListItem for #ident {}

            impl<'a> __abi::FromArg<'a> for #ident {
                fn from_arg(v: &'a __abi::AnyView<'a>) -> ::core::result::Result<Self, __abi::ConvError> {
                    let (position, items) = __abi::tagged_items(v, <Self as __abi::AbiType>::DESC)?;
                    let _ = items;
                    ::core::result::Result::Ok(match position {
                        #(#from_arms,)*
                    })
                }
            }

            impl __abi::IntoAny for #ident {
                fn into_any(self) -> ::core::result::Result<__abi::Any, __abi::ConvError> {
                    ::core::result::Result::Ok(match self {
                        #(#into_arms)*
                    })
                }
            }

            impl __abi::IntoArg for #ident {
                type Slot = __abi::Any;
                fn into_slot(self) -> ::core::result::Result<__abi::Any, __abi::ConvError> {
                    __abi::IntoAny::into_any(self)
                }
            }
        };
    }
}

/// Every trait the derive implements, with unreachable bodies: uses of the type as an ABI
/// type compile, so the derive's own error is the only one.
fn fallback(e: &EnumDef) -> TokenStream {
    let (krate, ident) = (&e.krate, &e.ident);
    let (impl_g, ty_g, where_c) = e.generics.split_for_impl();
    let unreachable = quote!(::core::unreachable!("#[derive(AbiEnum)] failed to compile"));
    let values = super::fallback_impls::value_traits(ident, &e.generics, &unreachable);
    quote! {
        const _: () = {
            use #krate::__private as __abi;
            impl #impl_g __abi::AbiType for #ident #ty_g #where_c {
                const DESC: &'static __abi::TypeDesc = &__abi::TypeDesc::Str;
            }
            impl #impl_g __abi::AbiEnum for #ident #ty_g #where_c {
                const ENUM: &'static __abi::EnumDesc = &__abi::EnumDesc { name: "", names: &[], variants: &[] };
                const JSON_NAMES: &'static [&'static str] = &[];
                fn from_name(_: &[u8]) -> ::core::option::Option<Self> {
                    #unreachable
                }
                fn position(&self) -> usize {
                    #unreachable
                }
                fn name_objects() -> &'static [__abi::StaticStr] {
                    #unreachable
                }
            }
            #values
        };
    }
}
