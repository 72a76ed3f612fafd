//! syn -> model. Never returns early on a recoverable problem: everything wrong is
//! recorded so the user sees it all at once.

use proc_macro2::TokenStream;
use syn::spanned::Spanned;
use syn::{FnArg, Pat, ReturnType};

use crate::attr;
use crate::errors::Errors;
use crate::model::{
    Access, EnumDef, EnumVariant, ErrorDef, ErrorVariant, ExportFn, Field, ImportFn, ImportSet, Method, MethodKind,
    MethodsBlock, ObjectDef, ObjectField, Param, StructDef, VariantShape,
};

/// The exported name: the `name = "..."` option, else the Rust name, with its span.
fn exported_name(option: Option<&syn::LitStr>, ident: &syn::Ident) -> (String, proc_macro2::Span) {
    match option {
        Some(lit) => (lit.value(), lit.span()),
        None => (ident.to_string(), ident.span()),
    }
}

/// `item` as written, without its parameters' `#[abi]` options, when it is a function
/// (attributes, visibility, signature, a braced body) whose body does not parse as Rust: one
/// holding a syntax error.
fn function_with_bad_body(item: TokenStream) -> Option<TokenStream> {
    let head = |input: syn::parse::ParseStream<'_>| -> syn::Result<TokenStream> {
        let attrs = input.call(syn::Attribute::parse_outer)?;
        let vis: syn::Visibility = input.parse()?;
        let mut sig: syn::Signature = input.parse()?;
        let body: proc_macro2::Group = input.parse()?;
        if body.delimiter() != proc_macro2::Delimiter::Brace || !input.is_empty() {
            return Err(input.error("not a function"));
        }
        for input in sig.inputs.iter_mut() {
            if let FnArg::Typed(pt) = input {
                attr::strip_abi_attrs(&mut pt.attrs);
            }
        }
        Ok(quote::quote!(#(#attrs)* #vis #sig #body))
    };
    syn::parse::Parser::parse2(head, item).ok()
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
            // A function whose body does not parse: given back as written (its parameters'
            // `#[abi]` options taken off), rustc reports the syntax error where it is, and
            // nothing else needs saying.
            if let Some(function) = function_with_bad_body(item.clone()) {
                return Err(function);
            }
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
                let opts = attr::take_param_options(&mut pt.attrs, errors);
                let name = param_name(pt, index, errors);
                params.push(Param {
                    name,
                    ty: (*pt.ty).clone(),
                    expand: opts.expand,
                    default: opts.default,
                    out: opts.out,
                    inout: opts.inout,
                });
            }
        }
    }
    let ret = match &item.sig.output {
        ReturnType::Default => None,
        ReturnType::Type(_, ty) => Some((**ty).clone()),
    };
    let doc = attr::doc_text(&item.attrs);
    Ok(ExportFn {
        item,
        name,
        name_span,
        krate,
        params,
        ret,
        doc,
        global: opts.global,
        iree: opts.iree,
        op: opts.op,
        backward: opts.backward,
        release_gil: opts.release_gil,
    })
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
            let msg = "an enum cannot derive AbiStruct; derive AbiEnum for an enum whose variants have no fields";
            errors.error(e.enum_token, msg);
            return Ok(StructDef { ident, generics, krate, fields: Vec::new(), tuple_like: false });
        }
        syn::Data::Union(u) => {
            errors.error(u.union_token, "unions cannot derive AbiStruct; use a struct with one field per variant");
            return Ok(StructDef { ident, generics, krate, fields: Vec::new(), tuple_like: false });
        }
    };
    let tuple_like = matches!(data.fields, syn::Fields::Unnamed(_));
    let fields = fields(&data.fields, errors);
    Ok(StructDef { ident, generics, krate, fields, tuple_like })
}

/// The fields of a struct or of an enum's variant, with their `#[abi(rename)]`.
fn fields(fields: &syn::Fields, errors: &mut Errors) -> Vec<Field> {
    fields
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
        .collect()
}

/// Parses an enum deriving `AbiEnum`; a struct or union is kept as an enum of no variants
/// with what is wrong noted, so validation reports it.
pub fn abi_enum(input: TokenStream, errors: &mut Errors) -> Result<EnumDef, TokenStream> {
    let input: syn::DeriveInput = syn::parse2(input).map_err(|e| e.to_compile_error())?;
    let (rename_all, krate) = attr::enum_options(&input.attrs, errors);
    let (ident, generics) = (input.ident, input.generics);
    let (data, not_an_enum) = match input.data {
        syn::Data::Enum(e) => {
            let empty = e.variants.is_empty().then(|| (ident.span(), "an enum with no variants has no value to cross"));
            (Some(e), empty)
        }
        syn::Data::Struct(s) => {
            (None, Some((s.struct_token.span, "a struct cannot derive AbiEnum; derive AbiStruct for a struct")))
        }
        syn::Data::Union(u) => (None, Some((u.union_token.span, "a union cannot derive AbiEnum; use an enum"))),
    };
    let variants = data
        .map(|e| {
            e.variants
                .into_iter()
                .map(|v| EnumVariant {
                    rename: attr::variant_options(&v.attrs, errors),
                    fields: fields(&v.fields, errors),
                    shape: match v.fields {
                        syn::Fields::Unit => VariantShape::Unit,
                        syn::Fields::Unnamed(_) => VariantShape::Tuple,
                        syn::Fields::Named(_) => VariantShape::Named,
                    },
                    discriminant: v.discriminant.map(|(_, expr)| expr),
                    ident: v.ident,
                })
                .collect()
        })
        .unwrap_or_default();
    Ok(EnumDef { ident, generics, krate, rename_all, variants, not_an_enum })
}

/// Parses an enum deriving `AbiError`; a struct or union is kept as an enum of no variants
/// with what is wrong noted, so validation reports it.
pub fn abi_error(input: TokenStream, errors: &mut Errors) -> Result<ErrorDef, TokenStream> {
    let input: syn::DeriveInput = syn::parse2(input).map_err(|e| e.to_compile_error())?;
    let krate = attr::error_options(&input.attrs, errors);
    let doc = attr::doc_text(&input.attrs);
    let (ident, generics) = (input.ident, input.generics);
    let (data, not_an_enum) = match input.data {
        syn::Data::Enum(e) => {
            let empty =
                e.variants.is_empty().then(|| (ident.span(), "an error type with no variants has no kind to raise"));
            (Some(e), empty)
        }
        syn::Data::Struct(s) => (
            None,
            Some((
                s.struct_token.span,
                "a struct cannot derive AbiError: derive it for an enum, one error kind per variant",
            )),
        ),
        syn::Data::Union(u) => (None, Some((u.union_token.span, "a union cannot derive AbiError; use an enum"))),
    };
    let variants = data
        .map(|e| {
            e.variants
                .into_iter()
                .map(|v| {
                    let (base, kind) = attr::error_variant_options(&v.attrs, errors);
                    ErrorVariant { doc: attr::doc_text(&v.attrs), base, kind, ident: v.ident }
                })
                .collect()
        })
        .unwrap_or_default();
    Ok(ErrorDef { ident, generics, krate, doc, variants, not_an_enum })
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
                    params.push(Param {
                        name,
                        ty: (*pt.ty).clone(),
                        expand: None,
                        default: None,
                        out: None,
                        inout: None,
                    });
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
            unchecked: opts.unchecked,
        });
    }
    Ok(ImportSet { ident: opts.ident, vis: opts.vis, krate: opts.krate, attrs: block.attrs, fns })
}

/// Parses a `#[derive(Object)]` input. Anything but a struct with named fields is refused
/// here, leaving a model with no fields for the fallback.
pub fn object(input: TokenStream, errors: &mut Errors) -> Result<ObjectDef, TokenStream> {
    let input: syn::DeriveInput = syn::parse2(input).map_err(|e| e.to_compile_error())?;
    let (type_key, krate) = attr::object_options(&input.attrs, errors);
    let doc = attr::doc_text(&input.attrs);
    let (ident, generics) = (input.ident, input.generics);
    let named = match input.data {
        syn::Data::Struct(syn::DataStruct { fields: syn::Fields::Named(named), .. }) => Some(named),
        syn::Data::Struct(s) => {
            errors.error(&s.fields, "an Object needs named fields (they are reflected by name)");
            None
        }
        syn::Data::Enum(e) => {
            errors.error(e.enum_token, "enums cannot derive Object; wrap the enum in a struct field");
            None
        }
        syn::Data::Union(u) => {
            errors.error(u.union_token, "unions cannot derive Object");
            None
        }
    };
    let fields = named
        .into_iter()
        .flat_map(|n| n.named)
        .map(|f| {
            let opts = attr::object_field_options(&f.attrs, errors);
            if let (Some(set), None) = (opts.set, opts.get) {
                errors.error_at(set, "`set` needs `get` as well: write `#[abi(get, set)]`");
            }
            let access = match (opts.get, opts.set) {
                (Some(_), Some(_)) => Access::GetSet,
                (Some(_), None) => Access::Get,
                _ => Access::Hidden,
            };
            ObjectField {
                ident: f.ident.clone().expect("named field"),
                ty: f.ty.clone(),
                doc: attr::doc_text(&f.attrs),
                access,
                parent: opts.parent,
            }
        })
        .collect();
    Ok(ObjectDef { ident, generics, krate, type_key, doc, fields })
}

/// Replaces `Self` in a type by the implementing type (generated code lives outside the
/// impl block).
fn replace_self(ty: &syn::Type, self_ty: &syn::Type) -> syn::Type {
    struct Replace<'a>(&'a syn::Type);
    impl syn::visit_mut::VisitMut for Replace<'_> {
        fn visit_type_mut(&mut self, ty: &mut syn::Type) {
            if let syn::Type::Path(p) = ty {
                if p.qself.is_none() && p.path.is_ident("Self") {
                    *ty = self.0.clone();
                    return;
                }
            }
            syn::visit_mut::visit_type_mut(self, ty);
        }
    }
    let mut ty = ty.clone();
    syn::visit_mut::VisitMut::visit_type_mut(&mut Replace(self_ty), &mut ty);
    ty
}

/// Parses a `#[methods]` impl block. `Err(item)` when the item is not an inherent impl.
pub fn methods(args: TokenStream, item: TokenStream, errors: &mut Errors) -> Result<MethodsBlock, TokenStream> {
    let krate = attr::methods_options(args, errors);
    let mut block: syn::ItemImpl = match syn::parse2(item.clone()) {
        Ok(b) => b,
        Err(e) => {
            errors.error_at(e.span(), "#[methods] applies to an inherent `impl Type { ... }` block");
            return Err(item);
        }
    };
    if let Some((_, path, _)) = &block.trait_ {
        errors.error(path, "#[methods] applies to an inherent impl, not a trait impl");
    }
    let self_ty = (*block.self_ty).clone();
    let mut methods = Vec::new();
    for item in &mut block.items {
        let syn::ImplItem::Fn(f) = item else { continue };
        let opts = attr::take_method_options(&mut f.attrs, errors);
        // Parameter options (`default`) are read, and removed from the re-emitted method.
        let mut param_opts = Vec::new();
        for input in f.sig.inputs.iter_mut() {
            if let FnArg::Typed(pt) = input {
                param_opts.push(attr::take_param_options(&mut pt.attrs, errors));
            }
        }
        let sig = &f.sig;
        let receiver = sig.receiver();
        let kind = match (opts.init, opts.is_static, receiver) {
            (Some(init), Some(_), _) => {
                errors.error_at(init, "a method is `init` or `static`, not both");
                MethodKind::Init
            }
            (Some(init), None, Some(_)) => {
                errors.error_at(init, "`#[abi(init)]` makes a new object: remove the receiver");
                MethodKind::Init
            }
            (None, Some(s), Some(_)) => {
                errors.error_at(s, "`#[abi(static)]` takes no receiver: remove `self`, or remove `static`");
                MethodKind::Static
            }
            (Some(_), None, None) => MethodKind::Init,
            (None, _, None) => MethodKind::Static,
            (None, None, Some(_)) => MethodKind::Instance,
        };
        let mut params = Vec::new();
        if let Some(r) = receiver {
            if r.reference.is_none() || r.mutability.is_some() || r.colon_token.is_some() {
                errors.error(r, "methods take `&self`: objects are shared by every holder and every thread, so mutation goes through interior mutability (atomics, locks)");
            }
            params.push(Param {
                name: syn::Ident::new("self", r.self_token.span),
                ty: syn::parse_quote_spanned!(r.self_token.span=> &#self_ty),
                expand: None,
                default: None,
                out: None,
                inout: None,
            });
        }
        let typed = sig.inputs.iter().enumerate().filter_map(|(i, input)| match input {
            FnArg::Typed(pt) => Some((i, pt)),
            FnArg::Receiver(_) => None,
        });
        for ((index, pt), opts) in typed.zip(param_opts) {
            if let Some(span) = opts.expand {
                errors.error_at(span, "`#[abi(expand)]` is not supported on method parameters");
            }
            if let Some(span) = opts.out.as_ref().map(|o| o.1).or(opts.inout) {
                errors.error_at(span, "`out` and `inout` mark parameters of an `#[export_fn(op)]`, not of methods");
            }
            let name = param_name(pt, index, errors);
            params.push(Param {
                name,
                ty: replace_self(&pt.ty, &self_ty),
                expand: None,
                default: opts.default,
                out: None,
                inout: None,
            });
        }
        let ret = match &sig.output {
            ReturnType::Default => None,
            ReturnType::Type(_, ty) => Some(replace_self(ty, &self_ty)),
        };
        let name = if kind == MethodKind::Init { abi_shared::FFI_INIT.to_owned() } else { sig.ident.to_string() };
        let doc = attr::doc_text(&f.attrs);
        methods.push(Method { ident: sig.ident.clone(), sig: sig.clone(), name, kind, params, ret, doc });
    }
    Ok(MethodsBlock { item: block, krate, methods })
}
