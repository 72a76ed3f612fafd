//! Options: `#[export_fn(name = "...", crate = "...")]` and the helper attribute
//! `#[abi(...)]` on parameters and fields, parsed into typed option structs.

use proc_macro2::TokenStream;
use syn::parse::Parser;
use syn::{Attribute, LitStr};

use crate::errors::Errors;

/// Options of `#[export_fn(...)]`.
#[derive(Default)]
pub struct ExportOptions {
    /// `name = "..."`.
    pub name: Option<LitStr>,
    /// `crate = "..."`.
    pub krate: Option<syn::Path>,
}

/// Parses `#[export_fn(...)]` arguments; problems go to `errors`.
pub fn export_options(args: TokenStream, errors: &mut Errors) -> ExportOptions {
    let mut opts = ExportOptions::default();
    let parser = syn::meta::parser(|meta| {
        if meta.path.is_ident("name") {
            let lit: LitStr = meta.value()?.parse()?;
            if opts.name.is_some() {
                return Err(syn::Error::new_spanned(&meta.path, "duplicate `name` option"));
            }
            opts.name = Some(lit);
            Ok(())
        } else if meta.path.is_ident("crate") {
            let lit: LitStr = meta.value()?.parse()?;
            if opts.krate.is_some() {
                return Err(syn::Error::new_spanned(&meta.path, "duplicate `crate` option"));
            }
            opts.krate = Some(lit.parse()?);
            Ok(())
        } else {
            Err(meta.error("unknown `export_fn` option; expected `name = \"...\"` or `crate = \"...\"`"))
        }
    });
    if let Err(e) = parser.parse2(args) {
        errors.push(e);
    }
    opts
}

/// Options of `#[abi(...)]` on a parameter.
#[derive(Default)]
pub struct ParamOptions {
    /// `expand`, with its span.
    pub expand: Option<proc_macro2::Span>,
}

/// Reads and removes `#[abi(...)]` attributes from a parameter.
pub fn take_param_options(attrs: &mut Vec<Attribute>, errors: &mut Errors) -> ParamOptions {
    let mut opts = ParamOptions::default();
    attrs.retain(|attr| {
        if !attr.path().is_ident("abi") {
            return true;
        }
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("expand") {
                if opts.expand.is_some() {
                    return Err(meta.error("duplicate `expand` option"));
                }
                opts.expand = Some(syn::spanned::Spanned::span(&meta.path));
                Ok(())
            } else {
                Err(meta.error("unknown `abi` option on a parameter; expected `expand`"))
            }
        });
        if let Err(e) = result {
            errors.push(e);
        }
        false
    });
    opts
}

/// The `///` docs of an item, one line per attribute, the leading space removed.
pub fn doc_text(attrs: &[Attribute]) -> String {
    let lines: Vec<String> = attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        })
        .map(|line| line.strip_prefix(' ').map(str::to_owned).unwrap_or(line))
        .collect();
    lines.join("\n").trim().to_owned()
}

/// Options of `#[abi(...)]` on a struct deriving `AbiStruct`.
#[derive(Default)]
pub struct StructOptions {
    /// `crate = "..."`.
    pub krate: Option<syn::Path>,
}

/// Reads `#[abi(...)]` on a derived struct.
pub fn struct_options(attrs: &[Attribute], errors: &mut Errors) -> StructOptions {
    let mut opts = StructOptions::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("abi")) {
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("crate") {
                let lit: LitStr = meta.value()?.parse()?;
                if opts.krate.is_some() {
                    return Err(meta.error("duplicate `crate` option"));
                }
                opts.krate = Some(lit.parse()?);
                Ok(())
            } else {
                Err(meta.error("unknown `abi` option on a struct; expected `crate = \"...\"`"))
            }
        });
        if let Err(e) = result {
            errors.push(e);
        }
    }
    opts
}

/// Options of `#[abi(...)]` on a field.
#[derive(Default)]
pub struct FieldOptions {
    /// `rename = "..."`.
    pub rename: Option<LitStr>,
}

/// Reads `#[abi(...)]` on a field.
pub fn field_options(attrs: &[Attribute], errors: &mut Errors) -> FieldOptions {
    let mut opts = FieldOptions::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("abi")) {
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename") {
                let lit: LitStr = meta.value()?.parse()?;
                if opts.rename.is_some() {
                    return Err(meta.error("duplicate `rename` option"));
                }
                opts.rename = Some(lit);
                Ok(())
            } else {
                Err(meta.error("unknown `abi` option on a field; expected `rename = \"...\"`"))
            }
        });
        if let Err(e) = result {
            errors.push(e);
        }
    }
    opts
}

/// Arguments of `#[import(...)]`: `[vis] Name [, crate = "..."]`.
pub struct ImportOptions {
    /// The struct's visibility.
    pub vis: syn::Visibility,
    /// The struct's name.
    pub ident: syn::Ident,
    /// `crate = "..."`.
    pub krate: Option<syn::Path>,
}

impl syn::parse::Parse for ImportOptions {
    fn parse(input: syn::parse::ParseStream) -> syn::Result<Self> {
        if input.is_empty() {
            return Err(input.error("#[import] needs the name of the struct to generate, e.g. #[import(MathLib)]"));
        }
        let vis: syn::Visibility = input.parse()?;
        let vis = if matches!(vis, syn::Visibility::Inherited) { syn::parse_quote!(pub) } else { vis };
        let ident: syn::Ident = input.parse()?;
        let mut krate = None;
        while !input.is_empty() {
            input.parse::<syn::Token![,]>()?;
            if input.is_empty() {
                break;
            }
            let key: syn::Ident = input.call(syn::ext::IdentExt::parse_any)?;
            if key != "crate" {
                return Err(syn::Error::new(key.span(), "unknown `import` option; expected `crate = \"...\"`"));
            }
            input.parse::<syn::Token![=]>()?;
            let lit: LitStr = input.parse()?;
            if krate.is_some() {
                return Err(syn::Error::new(key.span(), "duplicate `crate` option"));
            }
            krate = Some(lit.parse()?);
        }
        Ok(ImportOptions { vis, ident, krate })
    }
}

/// Options of `#[abi(...)]` on an imported function.
#[derive(Default)]
pub struct ImportFnOptions {
    /// `name = "..."`.
    pub name: Option<LitStr>,
    /// `optional`.
    pub optional: bool,
    /// `fallback = path`.
    pub fallback: Option<syn::Path>,
}

/// Reads and removes `#[abi(...)]` from an imported function's attributes.
pub fn take_import_fn_options(attrs: &mut Vec<Attribute>, errors: &mut Errors) -> ImportFnOptions {
    let mut opts = ImportFnOptions::default();
    attrs.retain(|attr| {
        if !attr.path().is_ident("abi") {
            return true;
        }
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("optional") {
                if opts.optional {
                    return Err(meta.error("duplicate `optional` option"));
                }
                opts.optional = true;
            } else if meta.path.is_ident("name") {
                let lit: LitStr = meta.value()?.parse()?;
                if opts.name.replace(lit).is_some() {
                    return Err(meta.error("duplicate `name` option"));
                }
            } else if meta.path.is_ident("fallback") {
                let path: syn::Path = meta.value()?.parse()?;
                if opts.fallback.replace(path).is_some() {
                    return Err(meta.error("duplicate `fallback` option"));
                }
            } else {
                return Err(meta.error(
                    "unknown `abi` option on an import; expected `optional`, `name = \"...\"` or `fallback = path`",
                ));
            }
            Ok(())
        });
        if let Err(e) = result {
            errors.push(e);
        }
        false
    });
    opts
}
