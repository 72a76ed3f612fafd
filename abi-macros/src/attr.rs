//! Options: `#[export_fn(...)]`, `#[import(...)]` and the helper attribute `#[abi(...)]` on
//! structs, fields, parameters and imported functions. Every option is an [`Opt`] slot that
//! refuses a second value; [`parse_list`] runs one `key = value` list against a set of slots.

use proc_macro2::{Span, TokenStream};
use syn::meta::ParseNestedMeta;
use syn::parse::Parser;
use syn::spanned::Spanned;
use syn::{Attribute, LitStr};

use crate::errors::Errors;
use crate::model::{DefaultLit, DimRule, OutRule, ParamDefault};

/// Every option key, spelled once (serde's `symbol.rs` habit).
mod key {
    pub const NAME: &str = "name";
    pub const CRATE: &str = "crate";
    pub const GLOBAL: &str = "global";
    pub const IREE: &str = "iree";
    pub const EXPAND: &str = "expand";
    pub const DEFAULT: &str = "default";
    pub const RENAME: &str = "rename";
    pub const OPTIONAL: &str = "optional";
    pub const UNCHECKED: &str = "unchecked";
    pub const FALLBACK: &str = "fallback";
    pub const TYPE_KEY: &str = "type_key";
    pub const GET: &str = "get";
    pub const SET: &str = "set";
    pub const PARENT: &str = "parent";
    pub const INIT: &str = "init";
    pub const STATIC: &str = "static";
    pub const OP: &str = "op";
    pub const BACKWARD: &str = "backward";
    pub const OUT: &str = "out";
    pub const INOUT: &str = "inout";
    pub const GIL: &str = "gil";
    pub const RENAME_ALL: &str = "rename_all";
    pub const BASE: &str = "base";
    pub const KIND: &str = "kind";
}

/// One option: empty, or set once with the span of its key. It knows how its value is
/// written, so the "expected ..." list of an unknown option is built from the slots.
pub struct Opt<T> {
    key: &'static str,
    /// How the value follows the key in the source (`= "..."`, `= path`, or nothing).
    form: &'static str,
    parse: fn(&ParseNestedMeta) -> syn::Result<T>,
    value: Option<(T, Span)>,
}

impl<T> Opt<T> {
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

impl Opt<LitStr> {
    /// `key = "..."`.
    const fn string(key: &'static str) -> Self {
        Opt { key, form: " = \"...\"", parse: lit_str, value: None }
    }
}

impl Opt<syn::Path> {
    /// `key = "a::path"` (a path written as a string, as serde's `crate = "..."`).
    const fn quoted_path(key: &'static str) -> Self {
        Opt { key, form: " = \"...\"", parse: path_lit, value: None }
    }

    /// `key = a::path`.
    const fn path(key: &'static str) -> Self {
        Opt { key, form: " = path", parse: path, value: None }
    }
}

/// A value-less flag (`expand`, `optional`).
pub type Flag = Opt<()>;

impl Flag {
    /// `key` alone.
    const fn flag(key: &'static str) -> Self {
        Opt { key, form: "", parse: flag, value: None }
    }
}

impl Opt<Option<DefaultLit>> {
    /// `key` alone or `key = literal`.
    const fn default_value(key: &'static str) -> Self {
        Opt { key, form: "[ = literal]", parse: default_lit, value: None }
    }
}

impl Opt<syn::Result<OutRule>> {
    /// `key = input` or `key = [dim, ...]`; a malformed list inside the brackets is kept as
    /// its error, so the parameter still reads as an output.
    const fn out_rule(key: &'static str) -> Self {
        Opt { key, form: " = input or [input.axis, scalar, 3, ...]", parse: out_rule, value: None }
    }
}

/// A slot [`parse_list`] offers options to.
trait Slot {
    /// Whether `meta` is this option; then parses and stores its value, failing on a
    /// second occurrence.
    fn offer(&mut self, meta: &ParseNestedMeta) -> Option<syn::Result<()>>;
    /// How the option is written: `` `name = "..."` ``.
    fn describe(&self) -> String;
}

impl<T> Slot for Opt<T> {
    fn offer(&mut self, meta: &ParseNestedMeta) -> Option<syn::Result<()>> {
        if !meta.path.is_ident(self.key) {
            return None;
        }
        Some(if self.value.is_some() {
            Err(meta.error(format!("duplicate `{}` option", self.key)))
        } else {
            (self.parse)(meta).map(|v| self.value = Some((v, meta.path.span())))
        })
    }

    fn describe(&self) -> String {
        format!("`{}{}`", self.key, self.form)
    }
}

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

/// `= x` (the shape of input `x`) or `= [a.0, n, 3]` (a dimension of an input, an integer
/// scalar parameter, a constant).
fn out_rule(meta: &ParseNestedMeta) -> syn::Result<syn::Result<OutRule>> {
    let input = meta.value()?;
    if !input.peek(syn::token::Bracket) {
        return Ok(Ok(OutRule::Like(input.parse()?)));
    }
    let content;
    let bracket = syn::bracketed!(content in input);
    let items = shape_items(&content).map(|dims| OutRule::Shape(dims, Some(bracket.span.join())));
    if items.is_err() {
        // The rest of the list is part of the reported mistake, not a second one.
        content.parse::<TokenStream>()?;
    }
    Ok(items)
}

/// The items of `[a.0, n, 3]`.
fn shape_items(content: syn::parse::ParseStream) -> syn::Result<Vec<DimRule>> {
    let mut dims = Vec::new();
    while !content.is_empty() {
        if content.peek(syn::LitInt) {
            dims.push(DimRule::Const(content.parse()?));
        } else {
            let name: syn::Ident = content.parse().map_err(|e| {
                syn::Error::new(
                    e.span(),
                    "a shape item is `input.axis`, an integer scalar parameter's name, or an integer",
                )
            })?;
            if content.peek(syn::Token![.]) {
                content.parse::<syn::Token![.]>()?;
                dims.push(DimRule::Axis(name, content.parse()?));
            } else {
                dims.push(DimRule::Scalar(name));
            }
        }
        if !content.is_empty() {
            content.parse::<syn::Token![,]>()?;
        }
    }
    Ok(dims)
}

/// Nothing (`default`), or `= literal` with a literal Python can also write: an integer or
/// float (negated or not), a bool, a string, or `None`; or `= Enum::Variant`.
fn default_lit(meta: &ParseNestedMeta) -> syn::Result<Option<DefaultLit>> {
    if !meta.input.peek(syn::Token![=]) {
        return Ok(None);
    }
    let expr: syn::Expr = meta.value()?.parse()?;
    let (negated, inner) = match &expr {
        syn::Expr::Unary(syn::ExprUnary { op: syn::UnOp::Neg(_), expr, .. }) => (true, &**expr),
        other => (false, other),
    };
    let lit = match inner {
        syn::Expr::Lit(syn::ExprLit { lit, .. }) => match (lit, negated) {
            (syn::Lit::Int(i), _) => Some(DefaultLit::Int(i.clone(), negated)),
            (syn::Lit::Float(f), _) => Some(DefaultLit::Float(f.clone(), negated)),
            (syn::Lit::Bool(b), false) => Some(DefaultLit::Bool(b.clone())),
            (syn::Lit::Str(s), false) => Some(DefaultLit::Str(s.clone())),
            _ => None,
        },
        syn::Expr::Path(p) if !negated && p.path.is_ident("None") => Some(DefaultLit::None(p.span())),
        syn::Expr::Path(p) if !negated && p.qself.is_none() && p.path.segments.len() >= 2 => {
            Some(DefaultLit::Variant(p.path.clone()))
        }
        _ => None,
    };
    lit.map(Some).ok_or_else(|| {
        syn::Error::new(
            expr.span(),
            "a default is a literal Python can also write (an integer, a float, `true`/`false`, a string or `None`), \
             or a variant of a fieldless enum (`Interp::Nearest`)",
        )
    })
}

/// `a`, `a or b`, `a, b or c`.
fn one_of(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

/// Runs one option list against `slots` (each item offered to them in order); anything no
/// slot takes is an error naming `context` and every option the slots accept.
fn parse_list<'s, 'o: 's>(
    context: &str,
    slots: &'s mut [&'o mut dyn Slot],
) -> impl FnMut(ParseNestedMeta) -> syn::Result<()> + use<'s, 'o> {
    let expected: Vec<String> = slots.iter().map(|s| s.describe()).collect();
    let message = format!("unknown {context}; expected {}", one_of(&expected));
    move |meta| slots.iter_mut().find_map(|s| s.offer(&meta)).unwrap_or_else(|| Err(meta.error(&message)))
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
pub fn strip_abi_attrs(attrs: &mut Vec<Attribute>) {
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
    /// `op` (its span): a framework op.
    pub op: Option<Span>,
    /// `backward = path`, with the span of its key.
    pub backward: Option<(syn::Path, Span)>,
    /// `gil = "release" | "keep"`: `true` to release the GIL for Python callers.
    pub release_gil: Option<bool>,
}

/// Parses `#[export_fn(...)]` arguments; problems go to `errors`.
pub fn export_options(args: TokenStream, errors: &mut Errors) -> ExportOptions {
    let (mut name, mut global) = (Opt::string(key::NAME), Opt::string(key::GLOBAL));
    let (mut iree, mut krate) = (Flag::flag(key::IREE), Opt::quoted_path(key::CRATE));
    let (mut op, mut backward) = (Flag::flag(key::OP), Opt::path(key::BACKWARD));
    let mut gil = Opt::string(key::GIL);
    let mut slots: [&mut dyn Slot; 7] =
        [&mut name, &mut global, &mut iree, &mut krate, &mut op, &mut backward, &mut gil];
    if let Err(e) = syn::meta::parser(parse_list("`export_fn` option", &mut slots)).parse2(args) {
        errors.push(e);
    }
    let backward_span = backward.span();
    let release_gil = gil.take().and_then(|lit| match lit.value().as_str() {
        "release" => Some(true),
        "keep" => Some(false),
        _ => {
            let msg = "`gil` is \"release\" (Python callers release the GIL while the export runs) or \"keep\"";
            errors.error(&lit, msg);
            None
        }
    });
    ExportOptions {
        name: name.take(),
        krate: krate_or_default(krate),
        global: global.take(),
        iree: iree.span(),
        op: op.span(),
        backward: backward.take().zip(backward_span),
        release_gil,
    }
}

/// Options of an exported function's or a method's parameter.
pub struct ParamOptions {
    /// `expand` (its span).
    pub expand: Option<Span>,
    /// `default` or `default = literal`.
    pub default: Option<ParamDefault>,
    /// `out = rule`, with the span of its key: an op's output.
    pub out: Option<(OutRule, Span)>,
    /// `inout` (its span): an op's in-place tensor.
    pub inout: Option<Span>,
}

/// Reads and removes `#[abi(...)]` attributes from a parameter.
pub fn take_param_options(attrs: &mut Vec<Attribute>, errors: &mut Errors) -> ParamOptions {
    let (mut expand, mut default) = (Flag::flag(key::EXPAND), Opt::default_value(key::DEFAULT));
    let (mut out, mut inout) = (Opt::out_rule(key::OUT), Flag::flag(key::INOUT));
    let mut slots: [&mut dyn Slot; 4] = [&mut expand, &mut default, &mut out, &mut inout];
    abi_attrs(attrs, errors, parse_list("`abi` option on a parameter", &mut slots));
    strip_abi_attrs(attrs);
    let span = default.span();
    let out_span = out.span();
    let out = match out.take() {
        Some(Err(e)) => {
            errors.push(e);
            Some(OutRule::Shape(Vec::new(), None))
        }
        other => other.and_then(Result::ok),
    };
    ParamOptions {
        expand: expand.span(),
        default: span.map(|span| ParamDefault { value: default.take().flatten(), span }),
        out: out.zip(out_span),
        inout: inout.span(),
    }
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
    let mut krate = Opt::quoted_path(key::CRATE);
    abi_attrs(attrs, errors, parse_list("`abi` option on a struct", &mut [&mut krate]));
    krate_or_default(krate)
}

/// Reads `#[abi(...)]` on an enum deriving `AbiEnum`: its `rename_all` rule, if given, and
/// `crate`.
pub fn enum_options(attrs: &[Attribute], errors: &mut Errors) -> (Option<LitStr>, syn::Path) {
    let (mut rename_all, mut krate) = (Opt::string(key::RENAME_ALL), Opt::quoted_path(key::CRATE));
    abi_attrs(attrs, errors, parse_list("`abi` option on an enum", &mut [&mut rename_all, &mut krate]));
    (rename_all.take(), krate_or_default(krate))
}

/// Reads `#[abi(...)]` on a variant: its `rename`, if given.
pub fn variant_options(attrs: &[Attribute], errors: &mut Errors) -> Option<LitStr> {
    let mut rename = Opt::string(key::RENAME);
    abi_attrs(attrs, errors, parse_list("`abi` option on a variant", &mut [&mut rename]));
    rename.take()
}

/// Reads `#[abi(...)]` on an enum deriving `AbiError`: the runtime crate path.
pub fn error_options(attrs: &[Attribute], errors: &mut Errors) -> syn::Path {
    let mut krate = Opt::quoted_path(key::CRATE);
    abi_attrs(attrs, errors, parse_list("`abi` option on an error type", &mut [&mut krate]));
    krate_or_default(krate)
}

/// Reads `#[abi(...)]` on a variant of an error type: its `base` builtin kind and its
/// `kind` (a rename of the whole kind), if given.
pub fn error_variant_options(attrs: &[Attribute], errors: &mut Errors) -> (Option<syn::Path>, Option<LitStr>) {
    let (mut base, mut kind) = (Opt::path(key::BASE), Opt::string(key::KIND));
    abi_attrs(attrs, errors, parse_list("`abi` option on an error variant", &mut [&mut base, &mut kind]));
    (base.take(), kind.take())
}

/// Reads `#[abi(...)]` on a field: its `rename`, if given.
pub fn field_options(attrs: &[Attribute], errors: &mut Errors) -> Option<LitStr> {
    let mut rename = Opt::string(key::RENAME);
    abi_attrs(attrs, errors, parse_list("`abi` option on a field", &mut [&mut rename]));
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
    let mut krate = Opt::quoted_path(key::CRATE);
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
            rest_errors = syn::meta::parser(parse_list("`import` option", &mut [&mut krate])).parse2(rest);
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
    /// `unchecked`.
    pub unchecked: bool,
    /// `fallback = path`.
    pub fallback: Option<syn::Path>,
}

/// Reads and removes `#[abi(...)]` from an imported function's attributes.
pub fn take_import_fn_options(attrs: &mut Vec<Attribute>, errors: &mut Errors) -> ImportFnOptions {
    let (mut optional, mut name) = (Flag::flag(key::OPTIONAL), Opt::string(key::NAME));
    let (mut fallback, mut unchecked) = (Opt::path(key::FALLBACK), Flag::flag(key::UNCHECKED));
    let opts: &mut [&mut dyn Slot] = &mut [&mut optional, &mut name, &mut fallback, &mut unchecked];
    abi_attrs(attrs, errors, parse_list("`abi` option on an import", opts));
    strip_abi_attrs(attrs);
    ImportFnOptions {
        name: name.take(),
        optional: optional.get().is_some(),
        unchecked: unchecked.get().is_some(),
        fallback: fallback.take(),
    }
}

/// `#[abi(...)]` on a struct deriving `Object`: the type key and the runtime crate path.
pub fn object_options(attrs: &[Attribute], errors: &mut Errors) -> (Option<LitStr>, syn::Path) {
    let (mut type_key, mut krate) = (Opt::string(key::TYPE_KEY), Opt::quoted_path(key::CRATE));
    abi_attrs(attrs, errors, parse_list("`abi` option on an object", &mut [&mut type_key, &mut krate]));
    (type_key.take(), krate_or_default(krate))
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
    let (mut get, mut set, mut parent) = (Flag::flag(key::GET), Flag::flag(key::SET), Flag::flag(key::PARENT));
    abi_attrs(attrs, errors, parse_list("`abi` option on an object field", &mut [&mut get, &mut set, &mut parent]));
    ObjectFieldOptions { get: get.span(), set: set.span(), parent: parent.span() }
}

/// Arguments of `#[methods(...)]`: the runtime crate path.
pub fn methods_options(args: TokenStream, errors: &mut Errors) -> syn::Path {
    let mut krate = Opt::quoted_path(key::CRATE);
    let mut slots: [&mut dyn Slot; 1] = [&mut krate];
    if let Err(e) = syn::meta::parser(parse_list("`methods` option", &mut slots)).parse2(args) {
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
    let (mut init, mut is_static) = (Flag::flag(key::INIT), Flag::flag(key::STATIC));
    abi_attrs(attrs, errors, parse_list("`abi` option on a method", &mut [&mut init, &mut is_static]));
    strip_abi_attrs(attrs);
    MethodOptions { init: init.span(), is_static: is_static.span() }
}
