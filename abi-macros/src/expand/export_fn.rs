//! `#[export_fn]` expansion: the user's function unchanged, plus the packed shim, the
//! compile-time metadata and docs, and the export registry entry.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;

use crate::errors::Errors;
use crate::mangle;
use crate::model::ExportFn;
use crate::{parse, validate};

/// Entry point: parse, validate, expand; errors come out next to the unchanged item.
pub fn export_fn(args: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let Some(model) = parse::export_fn(args, item.clone(), &mut errors) else {
        let errs = errors.into_compile_errors();
        return quote!(#errs #item);
    };
    validate::export_fn(&model, &mut errors);
    if !errors.is_empty() {
        let errs = errors.into_compile_errors();
        let item = &model.item;
        return quote!(#errs #item);
    }
    expand(&model)
}

fn expand(f: &ExportFn) -> TokenStream {
    let krate = &f.krate;
    let p = quote!(#krate::__private);
    let item = &f.item;
    let fn_ident = &f.item.sig.ident;
    let name = &f.name;
    let doc = &f.doc;
    let doc_nul = format!("{}\0", f.doc);
    let shim = mangle::shim(name, f.name_span);
    let metadata = mangle::metadata(name, f.name_span);
    let doc_fn = mangle::doc(name, f.name_span);
    let marker = mangle::uniqueness_marker(name, f.name_span);
    let marker_macro = quote_spanned! {f.name_span=>
        #[doc(hidden)]
        #[macro_export]
        macro_rules! #marker {
            () => {};
        }
    };
    let unit: syn::Type = syn::parse_quote!(());
    let ret_ty = f.ret.as_ref().unwrap_or(&unit);
    let ret_span = f.ret.as_ref().map_or_else(Span::call_site, |t| t.span());

    // Slot offsets: each parameter takes one slot, or its leaf count when expanded.
    let mut offset = quote!(0usize);
    let mut param_descs = Vec::new();
    let mut conversions = Vec::new();
    let mut bindings = Vec::new();
    for (i, param) in f.params.iter().enumerate() {
        let ty = strip_lifetimes(&param.ty);
        let pname = param.name.to_string();
        let binding = format_ident!("__abi_arg{}", i);
        let slot = quote!((#offset) as u32);
        match param.expand {
            None => {
                let desc = quote_spanned!(param.ty.span()=> <#ty as #krate::FromArg<'_>>::PARAM_DESC);
                param_descs.push(quote!(#p::ParamDesc { name: #pname, ty: #desc, expand: false }));
                let from = quote_spanned!(param.ty.span()=> <#ty as #krate::FromArg<'_>>::from_arg);
                conversions.push(quote! {
                    let #binding = match #from(&__abi_args[#offset]) {
                        ::core::result::Result::Ok(v) => v,
                        ::core::result::Result::Err(err) => {
                            return ::core::result::Result::Err(#p::CallError::Arg { slot: #slot, err })
                        }
                    };
                });
                offset = quote!(#offset + 1);
            }
            Some(span) => {
                let desc = quote_spanned!(param.ty.span()=> <#ty as #krate::AbiType>::DESC);
                param_descs.push(quote!(#p::ParamDesc { name: #pname, ty: #desc, expand: true }));
                let leaves = quote_spanned!(span=> <#ty as #krate::Expand<'static>>::LEAVES);
                let from = quote_spanned!(span=> <#ty as #krate::Expand<'_>>::from_slots);
                let is_struct = quote_spanned!(span=> #krate::__private::assert_abi_struct::<#ty>);
                conversions.push(quote! {
                    #is_struct();
                    let #binding = match #from(&__abi_args[#offset..#offset + #leaves]) {
                        ::core::result::Result::Ok(v) => v,
                        ::core::result::Result::Err((leaf, err)) => {
                            return ::core::result::Result::Err(#p::CallError::Arg { slot: #slot + leaf, err })
                        }
                    };
                });
                offset = quote!(#offset + #leaves);
            }
        }
        bindings.push(binding);
    }
    let slot_count = offset;
    let fast_path = fast_path(f, &bindings);
    let ret_desc = quote_spanned!(ret_span=> <#ret_ty as #krate::ReturnValue>::DESC);
    let into_result = quote_spanned!(ret_span=> <#ret_ty as #krate::ReturnValue>::into_result);

    quote! {
        #item

        #[doc(hidden)]
        #[allow(non_upper_case_globals, non_snake_case, clippy::all)]
        const _: () = {
            const __ABI_DESC: #p::FnDesc = #p::FnDesc {
                name: #name,
                params: &[#(#param_descs),*],
                ret: #ret_desc,
                doc: #doc,
            };
            const __ABI_SLOTS: usize = #slot_count;
            const __ABI_META_LEN: usize = #p::metadata_len(&__ABI_DESC);
            const __ABI_META_BYTES: [u8; __ABI_META_LEN] = #p::metadata_bytes::<__ABI_META_LEN>(&__ABI_DESC);
            static __ABI_META: #p::StaticStr = #p::StaticStr::new(&__ABI_META_BYTES);
            static __ABI_DOC: #p::StaticStr = #p::StaticStr::new(#doc_nul.as_bytes());

            #[unsafe(no_mangle)]
            unsafe extern "C" fn #shim(
                _handle: *mut ::core::ffi::c_void,
                args: *const #krate::RawAny,
                num_args: i32,
                result: *mut #krate::RawAny,
            ) -> i32 {
                #fast_path
                // SAFETY: the packed calling convention; `run_export` checks count and pointers.
                unsafe { __abi_full_body(args, num_args, result) }
            }

            // The full path out of line: the fast path (when the parameters have one) calls
            // it for anything but exact types, so the fast path stays a leaf with no frame.
            #[inline(never)]
            unsafe fn __abi_full_call(args: *const #krate::RawAny, num_args: i32, result: *mut #krate::RawAny) -> i32 {
                // SAFETY: forwarded from the shim's caller.
                unsafe { __abi_full_body(args, num_args, result) }
            }

            // Every conversion with its fallbacks and errors.
            #[inline(always)]
            unsafe fn __abi_full_body(args: *const #krate::RawAny, num_args: i32, result: *mut #krate::RawAny) -> i32 {
                // SAFETY: forwarded from the shim's caller.
                unsafe {
                    #p::run_export::<__ABI_SLOTS, _>(&__ABI_DESC, args, num_args, result, |__abi_args| {
                        #(#conversions)*
                        #into_result(#fn_ident(#(#bindings),*)).map_err(#p::CallError::Return)
                    })
                }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn #metadata(
                _handle: *mut ::core::ffi::c_void,
                _args: *const #krate::RawAny,
                _num_args: i32,
                result: *mut #krate::RawAny,
            ) -> i32 {
                // SAFETY: the packed calling convention.
                unsafe { #p::return_static_str(&__ABI_META, result) }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn #doc_fn(
                _handle: *mut ::core::ffi::c_void,
                _args: *const #krate::RawAny,
                _num_args: i32,
                result: *mut #krate::RawAny,
            ) -> i32 {
                // SAFETY: the packed calling convention.
                unsafe { #p::return_static_str(&__ABI_DOC, result) }
            }

            // Exported names share the crate-root macro namespace, so a second export of
            // `name` is "defined multiple times" on the second name.
            #marker_macro

            #[#p::linkme::distributed_slice(#p::EXPORTS)]
            #[linkme(crate = #p::linkme)]
            static __ABI_EXPORT: #p::Export = #p::Export {
                desc: &__ABI_DESC,
                safe_call: #shim,
                metadata: &__ABI_META,
            };
        };
    }
}

/// The shim's fast path: when every parameter is a plain (not expanded) type with an
/// exact-type conversion, and the count and pointers are right, convert with no fallback
/// and call. Anything else falls through to the full path. Empty for expanded parameters
/// and for functions without parameters.
fn fast_path(f: &ExportFn, bindings: &[syn::Ident]) -> TokenStream {
    if f.params.is_empty() || f.params.iter().any(|p| p.expand.is_some()) {
        return TokenStream::new();
    }
    let krate = &f.krate;
    let p = quote!(#krate::__private);
    let fn_ident = &f.item.sig.ident;
    let ret_ty = f.ret.clone().unwrap_or_else(|| syn::parse_quote!(()));
    let ret_span = f.ret.as_ref().map_or_else(Span::call_site, |t| t.span());
    let into_result = quote_spanned!(ret_span=> <#ret_ty as #krate::ReturnValue>::into_result);
    let mut has = Vec::new();
    let mut fast = Vec::new();
    for (i, param) in f.params.iter().enumerate() {
        let ty = strip_lifetimes(&param.ty);
        has.push(quote_spanned!(param.ty.span()=> <#ty as #krate::FromArg<'_>>::HAS_FAST_PATH));
        fast.push(quote_spanned!(param.ty.span()=> <#ty as #krate::FromArg<'_>>::fast_path(&__abi_args[#i])));
    }
    quote! {
        if true #(&& #has)* {
            // SAFETY: the packed calling convention; `checked_slots` checks count and pointers.
            if let ::core::option::Option::Some(__abi_args) = unsafe { #p::checked_slots::<__ABI_SLOTS>(args, num_args, result) } {
                // SAFETY: `checked_slots` checked that `result` is non-null.
                let __abi_done = unsafe {
                    #p::try_fast_call(&__ABI_DESC, result, || {
                        #(let ::core::option::Option::Some(#bindings) = #fast else { return ::core::option::Option::None };)*
                        ::core::option::Option::Some(#into_result(#fn_ident(#(#bindings),*)).map_err(#p::CallError::Return))
                    })
                };
                if let ::core::option::Option::Some(__abi_code) = __abi_done {
                    return __abi_code;
                }
            }
            // SAFETY: forwarded from the shim's caller.
            return unsafe { __abi_full_call(args, num_args, result) };
        }
    }
}

/// Replaces named and elided lifetimes by `'_` so the type can be named inside the shim.
fn strip_lifetimes(ty: &syn::Type) -> TokenStream {
    struct Strip;
    impl syn::visit_mut::VisitMut for Strip {
        fn visit_lifetime_mut(&mut self, l: &mut syn::Lifetime) {
            *l = syn::Lifetime::new("'_", l.span());
        }
    }
    let mut ty = ty.clone();
    syn::visit_mut::VisitMut::visit_type_mut(&mut Strip, &mut ty);
    ty.into_token_stream()
}
