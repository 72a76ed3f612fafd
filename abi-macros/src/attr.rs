//! Options: `#[export_fn(...)]`, `#[import(...)]` and the helper attribute `#[abi(...)]` on
//! structs, fields, parameters and imported functions. Every option is an [`Opt`] slot that
//! refuses a second value; [`parse_list`] runs one `key = value` list against a set of slots.

use proc_macro2::{Span, TokenStream};
use syn::meta::ParseNestedMeta;
use syn::parse::Parser;
use syn::spanned::Spanned;
use syn::{Attribute, LitStr};

use crate::errors::Errors;

/// One option: empty, or set once with the span of its key.
pub struct Opt<T> {
    key: &'static str,
    value: Option<(T, Span)>,
}

impl<T> Opt<T> {
    /// An empty slot for `key`.
    pub const fn new(key: &'static str) -> Self {
        Opt { key, value: None }
    }

    /// Whether `meta` is this option; then parses its value with `value` and stores it,
    /// failing on a second occurrence.
    fn accept(
        &mut self,
        meta: &ParseNestedMeta,
        value: impl FnOnce(&ParseNestedMeta) -> syn::Result<T>,
    ) -> Option<syn::Result<()>> {
        if !meta.path.is_ident(self.key) {
            return None;
        }
        Some(if self.value.is_some() {
            Err(meta.error(format!("duplicate `{}` option", self.key)))
        } else {
            value(meta).map(|v| self.value = Some((v, meta.path.span())))
        })
    }

    /// The value, if set.
    pub fn get(&self) -> Option<&T> {
        self.value.as_ref().map(|(v, _)| v)
    }

    /// The value, if set.
    pub fn take(self) -> Option<T> {
        self.value.map(|(v, _)| v)
    }

    /// The key's span, if set.
    pub fn span(&self) -> Option<Span> {
        self.value.as_ref().map(|(_, s)| *s)
    }
}

/// A value-less flag (`expand`, `optional`).
pub type Flag = Opt<()>;

fn flag(_: &ParseNestedMeta) -> syn::Result<()> {
    Ok(())
}

fn lit_str(meta: &ParseNestedMeta) -> syn::Result<LitStr> {
    meta.value()?.parse()
}

fn path_lit(meta: &ParseNestedMeta) -> syn::Result<syn::Path> {
    lit_str(meta)?.parse()
}

fn path(meta: &ParseNestedMeta) -> syn::Result<syn::Path> {
    meta.value()?.parse()
}

/// Runs one option list: `each` offers every item to the slots (returning `None` when no
/// slot takes it); anything else is an error naming `context` and what is `expected`.
fn parse_list(
    context: &str,
    expected: &str,
    mut each: impl FnMut(&ParseNestedMeta) -> Option<syn::Result<()>>,
) -> impl FnMut(ParseNestedMeta) -> syn::Result<()> {
    let message = format!("unknown {context}; expected {expected}");
    move |meta| each(&meta).unwrap_or_else(|| Err(meta.error(&message)))
}

/// Runs `parse` on every `#[abi(...)]` attribute in `attrs`, recording errors.
fn abi_attrs(attrs: &[Attribute], errors: &mut Errors, mut parse: impl FnMut(ParseNestedMeta) -> syn::Result<()>) {
    for attr in attrs.iter().filter(|a| a.path().is_ident("abi")) {
        if let Err(e) = attr.parse_nested_meta(&mut parse) {
            errors.push(e);
        }
    }
}

/// Removes our `#[abi(...)]` attributes from an item we re-emit (rustc does not know them).
fn strip_abi_attrs(attrs: &mut Vec<Attribute>) {
    attrs.retain(|a| !a.path().is_ident("abi"));
}

/// `crate = "path"`, or `::abi_core`.
fn krate_or_default(krate: Opt<syn::Path>) -> syn::Path {
    krate.take().unwrap_or_else(|| syn::parse_quote!(::abi_core))
}

/// Options of `#[export_fn(...)]`.
pub struct ExportOptions {
    /// `name = "..."`.
    pub name: Option<LitStr>,
    /// `crate = "..."`, defaulted.
    pub krate: syn::Path,
    /// `global = "..."`: also registered in the global registry under this name.
    pub global: Option<LitStr>,
    /// `iree` (its span): also a function of the library's IREE VM module.
    pub iree: Option<Span>,
}

/// Parses `#[export_fn(...)]` arguments; problems go to `errors`.
pub fn export_options(args: TokenStream, errors: &mut Errors) -> ExportOptions {
    let (mut name, mut krate, mut global) = (Opt::new("name"), Opt::new("crate"), Opt::new("global"));
    let mut iree = Flag::new("iree");
    let expected = "`name = \"...\"`, `global = \"...\"`, `iree` or `crate = \"...\"`";
    let parser = syn::meta::parser(parse_list("`export_fn` option", expected, |m| {
        name.accept(m, lit_str)
            .or_else(|| global.accept(m, lit_str))
            .or_else(|| iree.accept(m, flag))
            .or_else(|| krate.accept(m, path_lit))
    }));
    if let Err(e) = parser.parse2(args) {
        errors.push(e);
    }
    ExportOptions { name: name.take(), krate: krate_or_default(krate), global: global.take(), iree: iree.span() }
}

/// Reads and removes `#[abi(...)]` attributes from an exported parameter: the span of
/// `expand`, if given.
pub fn take_param_options(attrs: &mut Vec<Attribute>, errors: &mut Errors) -> Option<Span> {
    let mut expand = Flag::new("expand");
    abi_attrs(attrs, errors, parse_list("`abi` option on a parameter", "`expand`", |m| expand.accept(m, flag)));
    strip_abi_attrs(attrs);
    expand.span()
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

/// Reads `#[abi(...)]` on a derived struct: the runtime crate path.
pub fn struct_options(attrs: &[Attribute], errors: &mut Errors) -> syn::Path {
    let mut krate = Opt::new("crate");
    abi_attrs(
        attrs,
        errors,
        parse_list("`abi` option on a struct", "`crate = \"...\"`", |m| krate.accept(m, path_lit)),
    );
    krate_or_default(krate)
}

/// Reads `#[abi(...)]` on a field: its `rename`, if given.
pub fn field_options(attrs: &[Attribute], errors: &mut Errors) -> Option<LitStr> {
    let mut rename = Opt::new("rename");
    abi_attrs(
        attrs,
        errors,
        parse_list("`abi` option on a field", "`rename = \"...\"`", |m| rename.accept(m, lit_str)),
    );
    rename.take()
}

/// Arguments of `#[import(...)]`: `[vis] Name [, crate = "..."]`.
pub struct ImportOptions {
    /// The struct's visibility (default `pub`).
    pub vis: syn::Visibility,
    /// The struct's name.
    pub ident: syn::Ident,
    /// `crate = "..."`, defaulted.
    pub krate: syn::Path,
}

/// Parses `#[import(...)]` arguments. `None` when there is no struct name to generate;
/// other problems go to `errors`.
pub fn import_options(args: TokenStream, errors: &mut Errors) -> Option<ImportOptions> {
    const MISSING: &str = "#[import] needs the name of the struct to generate, e.g. #[import(MathLib)]";
    let mut krate = Opt::new("crate");
    let mut rest_errors = Ok(());
    let parser = |input: syn::parse::ParseStream| -> syn::Result<(syn::Visibility, syn::Ident)> {
        if input.is_empty() {
            return Err(syn::Error::new(Span::call_site(), MISSING));
        }
        let vis: syn::Visibility = input.parse()?;
        let ident: syn::Ident = input.parse()?;
        if !input.is_empty() {
            input.parse::<syn::Token![,]>()?;
            let rest: TokenStream = input.parse()?;
            let list = parse_list("`import` option", "`crate = \"...\"`", |m| krate.accept(m, path_lit));
            rest_errors = syn::meta::parser(list).parse2(rest);
        }
        Ok((vis, ident))
    };
    let parsed = parser.parse2(args);
    if let Err(e) = rest_errors {
        errors.push(e);
    }
    match parsed {
        Ok((vis, ident)) => {
            let vis = if matches!(vis, syn::Visibility::Inherited) { syn::parse_quote!(pub) } else { vis };
            Some(ImportOptions { vis, ident, krate: krate_or_default(krate) })
        }
        Err(e) => {
            errors.push(e);
            None
        }
    }
}

/// Options of `#[abi(...)]` on an imported function.
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
    let (mut name, mut optional, mut fallback) = (Opt::new("name"), Flag::new("optional"), Opt::new("fallback"));
    let expected = "`optional`, `name = \"...\"` or `fallback = path`";
    abi_attrs(
        attrs,
        errors,
        parse_list("`abi` option on an import", expected, |m| {
            optional.accept(m, flag).or_else(|| name.accept(m, lit_str)).or_else(|| fallback.accept(m, path))
        }),
    );
    strip_abi_attrs(attrs);
    ImportFnOptions { name: name.take(), optional: optional.get().is_some(), fallback: fallback.take() }
}

/// `#[abi(...)]` on a struct deriving `Object`: the type key and the runtime crate path.
pub fn object_options(attrs: &[Attribute], errors: &mut Errors) -> (Option<LitStr>, syn::Path) {
    let (mut key, mut krate) = (Opt::new("type_key"), Opt::new("crate"));
    abi_attrs(
        attrs,
        errors,
        parse_list("`abi` option on an object", "`type_key = \"...\"` or `crate = \"...\"`", |m| {
            key.accept(m, lit_str).or_else(|| krate.accept(m, path_lit))
        }),
    );
    (key.take(), krate_or_default(krate))
}

/// `#[abi(...)]` on a field of an object: `get`, `set`, `parent`, with their spans.
pub struct ObjectFieldOptions {
    /// `get`.
    pub get: Option<Span>,
    /// `set`.
    pub set: Option<Span>,
    /// `parent`.
    pub parent: Option<Span>,
}

/// Reads `#[abi(...)]` on a field of an object.
pub fn object_field_options(attrs: &[Attribute], errors: &mut Errors) -> ObjectFieldOptions {
    let (mut get, mut set, mut parent) = (Flag::new("get"), Flag::new("set"), Flag::new("parent"));
    abi_attrs(
        attrs,
        errors,
        parse_list("`abi` option on an object field", "`get`, `set` or `parent`", |m| {
            get.accept(m, flag).or_else(|| set.accept(m, flag)).or_else(|| parent.accept(m, flag))
        }),
    );
    ObjectFieldOptions { get: get.span(), set: set.span(), parent: parent.span() }
}

/// Arguments of `#[methods(...)]`: the runtime crate path.
pub fn methods_options(args: TokenStream, errors: &mut Errors) -> syn::Path {
    let mut krate = Opt::new("crate");
    let parser = syn::meta::parser(parse_list("`methods` option", "`crate = \"...\"`", |m| krate.accept(m, path_lit)));
    if let Err(e) = parser.parse2(args) {
        errors.push(e);
    }
    krate_or_default(krate)
}

/// `#[abi(...)]` on a method: `init` and `static`, with their spans.
pub struct MethodOptions {
    /// `init`.
    pub init: Option<Span>,
    /// `static`.
    pub is_static: Option<Span>,
}

/// Reads and removes `#[abi(...)]` from a method.
pub fn take_method_options(attrs: &mut Vec<Attribute>, errors: &mut Errors) -> MethodOptions {
    let (mut init, mut is_static) = (Flag::new("init"), Flag::new("static"));
    abi_attrs(
        attrs,
        errors,
        parse_list("`abi` option on a method", "`init` or `static`", |m| {
            init.accept(m, flag).or_else(|| is_static.accept(m, flag))
        }),
    );
    strip_abi_attrs(attrs);
    MethodOptions { init: init.span(), is_static: is_static.span() }
}
