//! `#[derive(Object)]` expansion: the class description (type key, layout fingerprint,
//! reflected fields with their accessors), the `Object` impl with its index slot, the
//! conversions that make the type a parameter (`&T`), a result (`T`, `Obj<T>`), and the
//! ELF constructor that registers the type while the library loads.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;

use crate::expand::{at_load, class_records};
use crate::model::{Access, ObjectDef};
use crate::skeleton::impl_macro;
use crate::{parse, validate};

impl_macro!(ObjectDef, item, parse::object, validate::object, expand, fallback);

/// The trait impls with a placeholder class, so uses of the type still compile.
fn fallback(o: &ObjectDef) -> TokenStream {
    let (ident, krate) = (&o.ident, &o.krate);
    let (impl_generics, ty_generics, _) = o.generics.split_for_impl();
    // Conditioned on the supertraits, so a rejected generic struct adds no errors.
    let mut generics = o.generics.clone();
    generics.make_where_clause().predicates.push(syn::parse_quote!(Self: Send + Sync + 'static));
    let where_clause = &generics.where_clause;
    quote! {
        const _: () = {
            use #krate::__private as __abi;
            unsafe impl #impl_generics __abi::Object for #ident #ty_generics #where_clause {
                const CLASS: &'static __abi::ClassSpec = &__abi::ClassSpec {
                    key: "",
                    desc: &__abi::TypeDesc::Object,
                    doc: "",
                    parent: ::core::option::Option::None,
                    parent_key: "",
                    size: 0,
                    align: 0,
                    layout: &[],
                    fields: &[],
                };
                fn slot() -> &'static __abi::TypeSlot {
                    ::core::unreachable!()
                }
            }
        };
    }
}

fn expand(o: &ObjectDef) -> TokenStream {
    let (ident, krate, doc) = (&o.ident, &o.krate, &o.doc);
    let key = o.type_key.as_ref().map(syn::LitStr::value).unwrap_or_default();
    let layout = o.fields.iter().map(|f| {
        let (fid, ty) = (&f.ident, &f.ty);
        let (name, text) = (fid.to_string(), ty.to_token_stream().to_string().replace(' ', ""));
        quote! {
            __abi::FieldLayout {
                name: #name,
                ty: #text,
                offset: ::core::mem::offset_of!(#ident, #fid),
                size: ::core::mem::size_of::<#ty>(),
            }
        }
    });
    let fields = o.fields.iter().filter(|f| f.access != Access::Hidden).enumerate().map(|(i, f)| {
        let (fid, ty, fdoc) = (&f.ident, &f.ty, &f.doc);
        let name = fid.to_string();
        let (desc, getter, setter) = match f.access {
            Access::GetSet => (
                quote_spanned!(ty.span()=> <#ty as __abi::SharedField>::FIELD),
                quote_spanned!(ty.span()=> __abi::get_shared_field::<#ident, #ty, #i>),
                quote_spanned!(ty.span()=> ::core::option::Option::Some(__abi::set_shared_field::<#ident, #ty, #i>)),
            ),
            _ => (
                quote_spanned!(ty.span()=> <#ty as __abi::FieldGet>::FIELD),
                quote_spanned!(ty.span()=> __abi::get_field::<#ident, #ty, #i>),
                quote!(::core::option::Option::None),
            ),
        };
        quote! {
            __abi::FieldSpec {
                name: #name,
                doc: #fdoc,
                ty: #desc,
                offset: ::core::mem::offset_of!(#ident, #fid),
                size: ::core::mem::size_of::<#ty>(),
                align: ::core::mem::align_of::<#ty>(),
                getter: #getter,
                setter: #setter,
            }
        }
    });
    let parent = o.fields.iter().find(|f| f.parent.is_some());
    let (parent_fn, parent_key, parent_check) = match parent {
        Some(p) => {
            let (pty, pid) = (&p.ty, &p.ident);
            let span = p.parent.unwrap_or_else(|| pty.span());
            (
                quote_spanned!(pty.span()=> ::core::option::Option::Some(<#pty as __abi::Object>::type_index)),
                quote_spanned!(pty.span()=> <#pty as __abi::Object>::CLASS.key),
                quote_spanned! {span=>
                    const _: () = ::core::assert!(
                        ::core::mem::offset_of!(#ident, #pid) == 0,
                        "the parent field is not at offset 0: add `#[repr(C)]` to the struct so it stays first"
                    );
                },
            )
        }
        None => {
            let root = abi_shared::vocab::Kind::Object.key();
            (quote!(::core::option::Option::None), quote!(#root), TokenStream::new())
        }
    };
    let shared = quote_spanned!(ident.span()=> unsafe impl __abi::Object for #ident);
    let register = at_load::constructor(quote!(__abi::register_at_load::<#ident>()));
    let record =
        class_records::record(quote!(__abi::class_record_len(SPEC)), quote!(__abi::class_record_bytes::<LEN>(SPEC)));
    quote! {
        const _: () = {
            use #krate::__private as __abi;

            // Named directly (not through `Object`), so a type that is not `Send + Sync`
            // gets one error, on the impl.
            const SPEC: &__abi::ClassSpec = &__abi::ClassSpec {
                    key: #key,
                    desc: &__abi::TypeDesc::Class { key: #key },
                    doc: #doc,
                    parent: #parent_fn,
                    parent_key: #parent_key,
                    size: ::core::mem::size_of::<#ident>(),
                    align: ::core::mem::align_of::<#ident>(),
                    layout: &[#(#layout),*],
                    fields: &[#(#fields),*],
            };

            #shared {
                const CLASS: &'static __abi::ClassSpec = SPEC;

                #[inline(always)]
                fn slot() -> &'static __abi::TypeSlot {
                    static SLOT: __abi::TypeSlot = __abi::TypeSlot::new();
                    &SLOT
                }
            }

            #parent_check

            impl __abi::AbiType for #ident {
                const DESC: &'static __abi::TypeDesc = SPEC.desc;
            }

            impl __abi::IntoAny for #ident {
                fn into_any(self) -> ::core::result::Result<__abi::Any, __abi::ConvError> {
                    let obj = __abi::Obj::try_new(self).map_err(<__abi::ConvError as ::core::convert::From<__abi::Error>>::from)?;
                    __abi::IntoAny::into_any(obj)
                }
            }

            // Registration while the library loads, so hosts see the type's fields and
            // methods the first time they meet it.
            #register

            #record
        };
    }
}
