//! `#[export_fn]` expansion: the user's function unchanged, plus the packed shim, the
//! compile-time metadata and docs, and the export registry entry; for an op, also its
//! description and checks and, with an in-place parameter, its JAX-order entry point
//! (`expand/op.rs`).

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned, ToTokens};

use crate::expand::{at_load, iree, op, packed};
use crate::mangle;
use crate::model::ExportFn;
use crate::skeleton::impl_macro;
use crate::{parse, validate};

// Errors keep the user's function unchanged, so calls to it still compile.
impl_macro!(ExportFn, args_and_item, parse::export_fn, validate::export_fn, expand, |m| m.item.to_token_stream());

fn expand(f: &ExportFn) -> TokenStream {
    let item = &f.item;
    let fn_ident = &f.item.sig.ident;
    let global_name = f.global.as_ref().map(syn::LitStr::value);
    let op = f.op.as_ref().map(|_| op::Op::new(f));
    let entry = packed::Entry {
        name: &f.name,
        doc: &f.doc,
        params: &f.params,
        ret: f.ret.as_ref(),
        callee: fn_ident.to_token_stream(),
        // The record is also data a tool reads from the file without running it.
        texts_in_records: true,
        global: global_name.as_deref(),
        release_gil: f.release_gil,
        desc_from: op.as_ref().map(op::Op::desc_path),
    };
    // `global = "..."`: the description (so the metadata) names it, and the library
    // registers it as it loads.
    let register = match &f.global {
        Some(_) => at_load::constructor(quote!(__abi::register_globals_at_load())),
        None => TokenStream::new(),
    };
    let iree = f.iree.map(|_| iree::entry(f)).unwrap_or_default();
    let extra = match &op {
        Some(op) => {
            let checks = op.checks();
            quote!(#register #iree #checks)
        }
        None => quote!(#register #iree),
    };
    let export = export_block(f, &f.name, &entry, extra);
    let Some(op) = op else {
        return quote! {
            #item

            #export
        };
    };
    let hidden = op.hidden_item(&entry);
    let jax = op.jax_entry().map(|jax| export_block(f, &jax.name, &jax.entry(f), jax.wrapper(f)));
    quote! {
        #item
        #hidden
        #export
        #jax
    }
}

/// The `const _` block of one export named `name`: its packed entry, shim, metadata and
/// docstring functions, uniqueness marker and registry entry, then `extra`.
fn export_block(f: &ExportFn, name: &str, entry: &packed::Entry, extra: TokenStream) -> TokenStream {
    let krate = &f.krate;
    let shim = mangle::shim(name, f.name_span);
    let metadata = mangle::metadata(name, f.name_span);
    let doc_fn = mangle::doc(name, f.name_span);
    let marker = mangle::uniqueness_marker(name, f.name_span);
    // Symbols embed the exported name, which may be any C identifier (`fooBar`).
    let snake = name.chars().all(|c| !c.is_ascii_uppercase());
    let allow = (!snake).then(|| quote!(#[allow(non_snake_case)]));
    let marker_macro = quote_spanned! {f.name_span=>
        #[doc(hidden)]
        #[macro_export]
        macro_rules! #marker { () => {}; }
    };
    let entry = packed::entry(entry);
    let shim_fn = packed::shim(&shim, quote!(#[unsafe(no_mangle)]));
    quote! {
        #allow
        const _: () = {
            use #krate::__private as __abi;
            #entry
            #shim_fn

            #[unsafe(no_mangle)]
            unsafe extern "C" fn #metadata(h: __abi::Handle, a: __abi::ArgsPtr, n: i32, out: __abi::ResultPtr) -> i32 {
                // SAFETY: the packed calling convention.
                unsafe { __abi::return_metadata(h, a, n, out, &EXPORT) }
            }

            #[unsafe(no_mangle)]
            unsafe extern "C" fn #doc_fn(h: __abi::Handle, a: __abi::ArgsPtr, n: i32, out: __abi::ResultPtr) -> i32 {
                // SAFETY: the packed calling convention.
                unsafe { __abi::return_doc(h, a, n, out, &EXPORT) }
            }

            // Exported names share the crate-root macro namespace, so a second export of
            // `name` is "defined multiple times" on the second name.
            #marker_macro

            __abi::place! {
                EXPORTS: static EXPORT: __abi::Export = __abi::Export::new(&DESC, #shim, &TEXTS, RENDERED.offsets());
            }
            #extra
        };
    }
}
