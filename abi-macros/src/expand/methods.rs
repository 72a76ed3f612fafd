//! `#[methods]` expansion: the impl block unchanged, plus one packed entry per method
//! (`self` as the first argument of instance methods), collected at link time under the
//! class's type key and registered with the type.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;

use crate::expand::{class_records, packed};
use crate::model::{MethodKind, MethodsBlock};
use crate::skeleton::impl_macro;
use crate::{parse, validate};

// Errors keep the impl block (without our attributes), so calls to the methods compile.
impl_macro!(MethodsBlock, args_and_item, parse::methods, validate::methods, expand, |m| m.item.to_token_stream());

fn expand(block: &MethodsBlock) -> TokenStream {
    let (item, krate) = (&block.item, &block.krate);
    let self_ty = &block.item.self_ty;
    let class_name = self_ty.to_token_stream().to_string().replace(' ', "");
    let entries = block.methods.iter().map(|m| {
        let ident = &m.ident;
        let shim = format_ident!("__abi_method_{}", ident);
        let entry = packed::entry(&packed::Entry {
            // Error messages name what the caller wrote: `Counter(...)` for the constructor.
            name: &format!("{class_name}.{}", if m.kind == MethodKind::Init { "__init__" } else { &m.name }),
            doc: &m.doc,
            params: &m.params,
            ret: m.ret.as_ref(),
            callee: quote!(<#self_ty>::#ident),
            texts_in_records: false,
            global: None,
            release_gil: None,
            desc_from: None,
        });
        let shim_fn = packed::shim(&shim, TokenStream::new());
        let is_static = m.kind != MethodKind::Instance;
        let init_check = match (&m.kind, &m.ret) {
            (MethodKind::Init, Some(ret)) => {
                quote_spanned!(ret.span()=> const _: () = __abi::check_init::<#self_ty, #ret>();)
            }
            (MethodKind::Init, None) => {
                quote_spanned!(m.sig.span()=> const _: () = __abi::check_init::<#self_ty, ()>();)
            }
            _ => TokenStream::new(),
        };
        let name = &m.name;
        let record = class_records::record(
            quote!(__abi::method_record_len(<#self_ty as __abi::Object>::CLASS.key, #name, #is_static, &DESC)),
            quote!(__abi::method_record_bytes::<LEN>(<#self_ty as __abi::Object>::CLASS.key, #name, #is_static, &DESC)),
        );
        let clash = format!("method `{name}` has the name of a reflected field of `{class_name}`: rename one of them");
        let name_check = quote_spanned! {ident.span()=>
            const _: () = ::core::assert!(!<#self_ty as __abi::Object>::CLASS.has_field(#name), #clash);
        };
        quote! {
            const _: () = {
                use #krate::__private as __abi;
                #entry
                #shim_fn
                #init_check
                #name_check
                static EXPORT: __abi::Export = __abi::Export::new(&DESC, #shim, &TEXTS, RENDERED.offsets());

                #record

                __abi::place! {
                    METHODS: static METHOD: __abi::MethodSpec = __abi::MethodSpec {
                        class_key: <#self_ty as __abi::Object>::CLASS.key,
                        name: #name,
                        is_static: #is_static,
                        export: &EXPORT,
                    };
                }
            };
        }
    });
    quote! {
        #item
        #(#entries)*
    }
}
