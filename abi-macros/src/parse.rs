//! syn -> model. Never returns early on a recoverable problem: everything wrong is
//! recorded so the user sees it all at once.

use proc_macro2::TokenStream;
use syn::spanned::Spanned;
use syn::{FnArg, Pat, ReturnType};

use crate::attr;
use crate::errors::Errors;
use crate::model::{ExportFn, Param};

/// Parses an `#[export_fn]` invocation. `None` when the item is not a function at all.
pub fn export_fn(args: TokenStream, item: TokenStream, errors: &mut Errors) -> Option<ExportFn> {
    let opts = attr::export_options(args, errors);
    let mut item: syn::ItemFn = match syn::parse2(item) {
        Ok(f) => f,
        Err(e) => {
            errors.error_at(
                e.span(),
                "#[export_fn] can only be applied to a free function",
            );
            return None;
        }
    };
    let krate = opts.krate.unwrap_or_else(|| syn::parse_quote!(::abi_core));
    let (name, name_span) = match &opts.name {
        Some(lit) => (lit.value(), lit.span()),
        None => (item.sig.ident.to_string(), item.sig.ident.span()),
    };
    let mut params = Vec::new();
    for (index, input) in item.sig.inputs.iter_mut().enumerate() {
        match input {
            FnArg::Receiver(r) => errors.error(
                &*r,
                "methods cannot be exported; export a free function that takes the value as a parameter",
            ),
            FnArg::Typed(pt) => {
                let opts = attr::take_param_options(&mut pt.attrs, errors);
                let name = match &*pt.pat {
                    Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => pi.ident.clone(),
                    other => {
                        errors.error(other, "patterns cannot be exported parameters; bind a plain name and destructure inside");
                        syn::Ident::new(&format!("arg{index}"), other.span())
                    }
                };
                params.push(Param { name, ty: (*pt.ty).clone(), expand: opts.expand });
            }
        }
    }
    let ret = match &item.sig.output {
        ReturnType::Default => None,
        ReturnType::Type(_, ty) => Some((**ty).clone()),
    };
    let doc = attr::doc_text(&item.attrs);
    Some(ExportFn {
        item,
        name,
        name_span,
        krate,
        params,
        ret,
        doc,
    })
}
