//! syn -> model. Never returns early on a recoverable problem: everything wrong is
//! recorded so the user sees it all at once.

use proc_macro2::TokenStream;
use syn::spanned::Spanned;
use syn::{FnArg, Pat, ReturnType};

use crate::attr;
use crate::errors::Errors;
use crate::model::{ExportFn, Field, ImportFn, ImportSet, Param, StructDef};

/// The exported name: the `name = "..."` option, else the Rust name, with its span.
fn exported_name(option: Option<&syn::LitStr>, ident: &syn::Ident) -> (String, proc_macro2::Span) {
    match option {
        Some(lit) => (lit.value(), lit.span()),
        None => (ident.to_string(), ident.span()),
    }
}

/// A parameter's binding name; patterns are rejected (the shim binds arguments by name).
fn param_name(pt: &syn::PatType, index: usize, errors: &mut Errors) -> syn::Ident {
    match &*pt.pat {
        Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => pi.ident.clone(),
        other => {
            errors.error(other, "patterns cannot be parameters here; bind a plain name and destructure inside");
            syn::Ident::new(&format!("arg{index}"), other.span())
        }
    }
}

/// Parses an `#[export_fn]` invocation. `Err(item)` when the item is not a function at all.
pub fn export_fn(args: TokenStream, item: TokenStream, errors: &mut Errors) -> Result<ExportFn, TokenStream> {
    let opts = attr::export_options(args, errors);
    let mut item: syn::ItemFn = match syn::parse2(item.clone()) {
        Ok(f) => f,
        Err(e) => {
            errors.error_at(e.span(), "#[export_fn] can only be applied to a free function");
            return Err(item);
        }
    };
    let krate = opts.krate;
    let (name, name_span) = exported_name(opts.name.as_ref(), &item.sig.ident);
    let mut params = Vec::new();
    for (index, input) in item.sig.inputs.iter_mut().enumerate() {
        match input {
            FnArg::Receiver(r) => errors
                .error(&*r, "methods cannot be exported; export a free function that takes the value as a parameter"),
            FnArg::Typed(pt) => {
                let expand = attr::take_param_options(&mut pt.attrs, errors);
                let name = param_name(pt, index, errors);
                params.push(Param { name, ty: (*pt.ty).clone(), expand });
            }
        }
    }
    let ret = match &item.sig.output {
        ReturnType::Default => None,
        ReturnType::Type(_, ty) => Some((**ty).clone()),
    };
    let doc = attr::doc_text(&item.attrs);
    Ok(ExportFn { item, name, name_span, krate, params, ret, doc })
}

/// Parses a `#[derive(AbiStruct)]` input. Enums and unions are refused here (the model is
/// a struct), leaving a model with no fields for the fallback.
pub fn abi_struct(input: TokenStream, errors: &mut Errors) -> Result<StructDef, TokenStream> {
    let input: syn::DeriveInput = syn::parse2(input).map_err(|e| e.to_compile_error())?;
    let krate = attr::struct_options(&input.attrs, errors);
    let (ident, generics) = (input.ident, input.generics);
    let data = match input.data {
        syn::Data::Struct(s) => s,
        syn::Data::Enum(e) => {
            let msg =
                "enums cannot derive AbiStruct yet; pass a struct, or an integer code and convert it in the function";
            errors.error(e.enum_token, msg);
            return Ok(StructDef { ident, generics, krate, fields: Vec::new(), tuple_like: false });
        }
        syn::Data::Union(u) => {
            errors.error(u.union_token, "unions cannot derive AbiStruct; use a struct with one field per variant");
            return Ok(StructDef { ident, generics, krate, fields: Vec::new(), tuple_like: false });
        }
    };
    let tuple_like = matches!(data.fields, syn::Fields::Unnamed(_));
    let fields = data
        .fields
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let rename = attr::field_options(&f.attrs, errors);
            let (member, default_key, default_span) = match &f.ident {
                Some(id) => (syn::Member::Named(id.clone()), id.to_string(), id.span()),
                None => (syn::Member::Unnamed(i.into()), i.to_string(), f.ty.span()),
            };
            let renamed = rename.is_some();
            let (key, key_span) = match rename {
                Some(lit) => (lit.value(), lit.span()),
                None => (default_key, default_span),
            };
            Field { member, key, key_span, renamed, ty: f.ty.clone() }
        })
        .collect();
    Ok(StructDef { ident, generics, krate, fields, tuple_like })
}

/// Parses an `#[import(Name)]` extern block. `Err(tokens to emit)` when there is no struct
/// name (nothing to generate) or the item is not an extern block (it is emitted unchanged).
pub fn import_set(args: TokenStream, item: TokenStream, errors: &mut Errors) -> Result<ImportSet, TokenStream> {
    let Some(opts) = attr::import_options(args, errors) else {
        return Err(TokenStream::new());
    };
    let block: syn::ItemForeignMod = match syn::parse2(item.clone()) {
        Ok(b) => b,
        Err(e) => {
            errors.error_at(e.span(), "#[import] applies to an `extern \"C\" { fn ...; }` block of declarations");
            return Err(item);
        }
    };
    let mut fns = Vec::new();
    for item in block.items {
        let syn::ForeignItem::Fn(mut f) = item else {
            errors.error(item, "only `fn` declarations can be imported");
            continue;
        };
        let opts = attr::take_import_fn_options(&mut f.attrs, errors);
        let (name, name_span) = exported_name(opts.name.as_ref(), &f.sig.ident);
        let mut params = Vec::new();
        for (index, input) in f.sig.inputs.iter().enumerate() {
            match input {
                FnArg::Receiver(r) => errors.error(r, "imports are free functions; remove the receiver"),
                FnArg::Typed(pt) => {
                    let name = param_name(pt, index, errors);
                    if let Some(a) = pt.attrs.first() {
                        errors.error(a, "attributes are not supported on import parameters");
                    }
                    params.push(Param { name, ty: (*pt.ty).clone(), expand: None });
                }
            }
        }
        let ret = match &f.sig.output {
            ReturnType::Default => None,
            ReturnType::Type(_, ty) => Some((**ty).clone()),
        };
        fns.push(ImportFn {
            sig: f.sig,
            attrs: f.attrs,
            name,
            name_span,
            params,
            ret,
            optional: opts.optional,
            fallback: opts.fallback,
        });
    }
    Ok(ImportSet { ident: opts.ident, vis: opts.vis, krate: opts.krate, attrs: block.attrs, fns })
}
