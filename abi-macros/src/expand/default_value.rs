//! A parameter's default (`#[abi(default = ...)]`) twice over: the Rust value an omitted
//! argument takes, spanned on the literal so a value that does not fit the parameter's
//! type is a compile error there, and the JSON text the metadata publishes.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::Type;

use crate::model::{DefaultLit, ParamDefault};

/// The value, for a parameter of type `ty`: `Some(...)` around the literal for an
/// `Option`, `From::from("...")` for an owned string.
pub fn rust_value(ty: &Type, default: &ParamDefault) -> TokenStream {
    let span = default.span;
    match (&default.value, option_inner(ty)) {
        (None, _) | (Some(DefaultLit::None(_)), _) => quote_spanned!(span=> ::core::option::Option::None),
        (Some(lit), Some(inner)) => {
            let value = literal(inner, lit);
            quote_spanned!(span=> ::core::option::Option::Some(#value))
        }
        (Some(lit), None) => literal(ty, lit),
    }
}

fn literal(ty: &Type, lit: &DefaultLit) -> TokenStream {
    match lit {
        DefaultLit::Int(l, true) => quote_spanned!(l.span()=> -#l),
        DefaultLit::Int(l, false) => quote!(#l),
        DefaultLit::Float(l, true) => quote_spanned!(l.span()=> -#l),
        DefaultLit::Float(l, false) => quote!(#l),
        DefaultLit::Bool(b) => quote!(#b),
        DefaultLit::Str(s) if matches!(ty, Type::Reference(_)) => quote!(#s),
        DefaultLit::Str(s) => quote_spanned!(s.span()=> ::core::convert::From::from(#s)),
        DefaultLit::None(span) => quote_spanned!(*span=> ::core::option::Option::None),
    }
}

/// For an integer default, a constant asserting the value fits the parameter's type (the
/// `T` of an `Option<T>`), spanned on the literal; nothing for other literals.
pub fn range_check(ty: &Type, default: &ParamDefault) -> TokenStream {
    let Some(DefaultLit::Int(lit, negated)) = &default.value else { return TokenStream::new() };
    let ty = super::packed::strip_lifetimes(option_inner(ty).unwrap_or(ty));
    let text = format!("{}{}", if *negated { "-" } else { "" }, lit.base10_digits());
    let Ok(value) = text.parse::<i128>() else {
        return quote_spanned!(lit.span()=> ::core::compile_error!("this integer default is out of every integer type's range"););
    };
    let value = proc_macro2::Literal::i128_suffixed(value);
    let message = format!("the default {text} is out of range for `{ty}`");
    quote_spanned! {lit.span()=>
        const _: () = ::core::assert!(__abi::int_default_fits::<#ty>(#value), #message);
    }
}

/// `T` of a type written `Option<T>`.
fn option_inner(ty: &Type) -> Option<&Type> {
    let Type::Path(p) = ty else { return None };
    let last = p.path.segments.last().filter(|s| s.ident == "Option")?;
    match &last.arguments {
        syn::PathArguments::AngleBracketed(args) => args.args.iter().find_map(|a| match a {
            syn::GenericArgument::Type(t) => Some(t),
            _ => None,
        }),
        _ => None,
    }
}

/// The JSON the metadata publishes under `abi.defaults`.
pub fn json(default: &ParamDefault) -> String {
    let sign = |negated: bool| if negated { "-" } else { "" };
    match &default.value {
        None | Some(DefaultLit::None(_)) => "null".into(),
        Some(DefaultLit::Int(l, negated)) => format!("{}{}", sign(*negated), l.base10_digits()),
        // `{:?}` keeps a point (`1.0`) so readers see a float, and is valid JSON.
        Some(DefaultLit::Float(l, negated)) => {
            format!("{}{:?}", sign(*negated), l.base10_digits().parse::<f64>().unwrap_or(f64::NAN))
        }
        Some(DefaultLit::Bool(b)) => b.value.to_string(),
        Some(DefaultLit::Str(s)) => json_string(&s.value()),
    }
}

fn json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
