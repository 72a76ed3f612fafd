//! `#[export_fn]` expansion: the user's function unchanged, plus the packed shim, the
//! compile-time metadata and docs, and the export registry entry.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;

use crate::errors::Errors;
use crate::mangle;
use crate::model::ExportFn;
use crate::skeleton::Macro;
use crate::{parse, validate};

impl Macro for ExportFn {
    type Input = (TokenStream, TokenStream);

    fn parse((args, item): Self::Input, errors: &mut Errors) -> Result<Self, TokenStream> {
        parse::export_fn(args, item, errors)
    }

    fn validate(&self, errors: &mut Errors) {
        validate::export_fn(self, errors);
    }

    fn expand(&self) -> TokenStream {
        expand(self)
    }

    /// The user's function, unchanged: calls to it still compile.
    fn fallback(&self) -> TokenStream {
        self.item.to_token_stream()
    }
}

fn expand(f: &ExportFn) -> TokenStream {
    let krate = &f.krate;
    let item = &f.item;
    let fn_ident = &f.item.sig.ident;
    let (name, doc, doc_nul) = (&f.name, &f.doc, format!("{}\0", f.doc));
    let shim = mangle::shim(&f.name, f.name_span);
    let metadata = mangle::metadata(&f.name, f.name_span);
    let doc_fn = mangle::doc(&f.name, f.name_span);
    let marker = mangle::uniqueness_marker(&f.name, f.name_span);
    let section = abi_shared::EXPORTS_SECTION;
    // Symbols embed the exported name, which may be any C identifier (`fooBar`).
    let snake = f.name.chars().all(|c| !c.is_ascii_uppercase());
    let allow = (!snake).then(|| quote!(#[allow(non_snake_case)]));
    let marker_macro = quote_spanned! {f.name_span=>
        #[doc(hidden)]
        #[macro_export]
        macro_rules! #marker { () => {}; }
    };
    let unit: syn::Type = syn::parse_quote!(());
    let ret_ty = f.ret.as_ref().unwrap_or(&unit);
    let ret_span = f.ret.as_ref().map_or_else(Span::call_site, |t| t.span());

    // Each parameter: its description, and its conversion in a pass of mode `M` from its
    // first slot (one slot per plain parameter, `LEAVES` per expanded struct).
    let mut offset = quote!(0);
    let mut descs = Vec::new();
    let mut args = Vec::new();
    for param in &f.params {
        let ty = strip_lifetimes(&param.ty);
        let pname = param.name.to_string();
        match param.expand {
            None => {
                descs.push(quote_spanned!(param.ty.span()=> __abi::plain(#pname, <#ty as __abi::FromArg<'_>>::PARAM)));
                args.push(quote_spanned!(param.ty.span()=> <#ty as __abi::FromArg<'_>>::convert::<M>(s, #offset)?));
                offset = quote!(#offset + 1);
            }
            Some(span) => {
                descs.push(quote_spanned!(param.ty.span()=> __abi::expanded(#pname, <#ty as __abi::AbiType>::DESC)));
                args.push(quote_spanned!(span=> <#ty as __abi::Expand<'_>>::convert::<M>(s, #offset)?));
                offset = quote!(#offset + <#ty as __abi::Expand<'static>>::LEAVES);
            }
        }
    }
    let ret = quote_spanned!(ret_span=> <#ret_ty as __abi::ReturnValue>::into_outcome::<M>);
    let ret_desc = quote_spanned!(ret_span=> <#ret_ty as __abi::ReturnValue>::DESC);

    quote! {
        #item

        #allow
        const _: () = {
            use #krate::__private as __abi;
            const DESC: __abi::FnDesc = __abi::FnDesc::new(#name, &[#(#descs),*], #ret_desc, #doc);
            const N: usize = DESC.slot_count();
            const FAST: bool = DESC.fast_path();
            const LEN: usize = __abi::export_texts_len(&DESC);
            static META: __abi::StaticStr = __abi::StaticStr::with_trailer(&__abi::export_texts::<LEN>(&DESC));
            static DOC: __abi::StaticStr = __abi::StaticStr::new(#doc_nul.as_bytes());

            #[inline(always)]
            fn call<'a, M: __abi::Mode>(s: &'a [__abi::AnyView<'a>]) -> __abi::Outcome<M> {
                #ret(#fn_ident(#(#args),*))
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn #shim(_: __abi::H, args: __abi::A, n: i32, out: __abi::O) -> i32 {
                // SAFETY: the packed calling convention; `export` checks count and pointers.
                unsafe { __abi::export::<N, FAST>(|| &EXPORT, args, n, out, call::<__abi::Fast>, call::<__abi::Full>) }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn #metadata(_: __abi::H, _: __abi::A, _: i32, out: __abi::O) -> i32 {
                // SAFETY: the packed calling convention.
                unsafe { __abi::return_static_str(&META, out) }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn #doc_fn(_: __abi::H, _: __abi::A, _: i32, out: __abi::O) -> i32 {
                // SAFETY: the packed calling convention.
                unsafe { __abi::return_static_str(&DOC, out) }
            }

            // Exported names share the crate-root macro namespace, so a second export of
            // `name` is "defined multiple times" on the second name.
            #marker_macro

            #[used]
            #[unsafe(link_section = #section)]
            static EXPORT: __abi::Export = __abi::Export::new(&DESC, #shim, &META);
        };
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
