//! A parameter's default (`#[abi(default = ...)]`) twice over: the Rust value an omitted
//! argument takes, spanned on the literal so a value that does not fit the parameter's
//! type is a compile error there, and the JSON text the metadata publishes.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
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
        // Converted as an argument holding the string would be: a `String`, or the variant
        // of a fieldless enum the string names.
        DefaultLit::Str(s) => {
            let ty = super::packed::strip_lifetimes(ty);
            quote_spanned!(s.span()=> __abi::default_from_str::<#ty>(::core::concat!(#s, "\0")))
        }
        DefaultLit::None(span) => quote_spanned!(*span=> ::core::option::Option::None),
        DefaultLit::Variant(path) => quote!(#path),
    }
}

/// For an integer default, a constant asserting the value fits the parameter's type (the
/// `T` of an `Option<T>`), for a string default one asserting it names a variant when the
/// type is a fieldless enum, spanned on the literal; nothing for other literals.
pub fn range_check(ty: &Type, default: &ParamDefault) -> TokenStream {
    if let Some(DefaultLit::Str(lit)) = &default.value {
        let ty = super::packed::strip_lifetimes(ty);
        let suits = format!("a string default is for a string, bytes or fieldless enum parameter, not `{ty}`");
        let names = format!("the default {:?} is not one of the names of `{ty}`", lit.value());
        return quote_spanned! {lit.span()=>
            const _: () = ::core::assert!(__abi::str_default_suits(<#ty as __abi::AbiType>::DESC), #suits);
            const _: () = ::core::assert!(__abi::str_default_names(<#ty as __abi::AbiType>::DESC, #lit), #names);
        };
    }
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

/// The JSON the metadata publishes under `abi.defaults`, as an expression of a
/// `&'static str`: a literal's text, or for a variant's path the quoted name it crosses as
/// (the enum's table, indexed by the variant: an `AbiEnum` has no discriminants).
pub fn json(ty: &Type, default: &ParamDefault) -> TokenStream {
    if let Some(DefaultLit::Variant(path)) = &default.value {
        let ty = super::packed::strip_lifetimes(option_inner(ty).unwrap_or(ty));
        return quote_spanned!(path.span()=> __abi::enum_json_name(<#ty as __abi::AbiEnum>::JSON_NAMES, #path as usize));
    }
    let text = literal_json(default);
    quote!(#text)
}

fn literal_json(default: &ParamDefault) -> String {
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
        Some(DefaultLit::Variant(_)) => unreachable!("a variant's JSON is the enum's"),
    }
}

/// `s` as a JSON string.
pub fn json_string(s: &str) -> String {
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
