//! The packed entry of a Rust function, shared by exports and object methods: its
//! compile-time description and texts, the conversion of every parameter in a pass of mode
//! `M`, and the `extern "C"` shim that runs the call behind the boundary. The caller puts
//! the items inside a `const _: () = { use <crate>::__private as __abi; ... };` block and
//! adds `static EXPORT: __abi::Export` (the entry the shim reports errors with).

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;

use super::default_value;
use crate::model::Param;

/// What a packed entry calls and describes.
pub struct Entry<'a> {
    /// The name in the description (and in error messages).
    pub name: &'a str,
    /// The `///` docs.
    pub doc: &'a str,
    /// Parameters in slot order.
    pub params: &'a [Param],
    /// The return type, `None` for `()`.
    pub ret: Option<&'a syn::Type>,
    /// The path of the function to call with the converted arguments.
    pub callee: TokenStream,
    /// Whether the `TEXTS` record also goes in the export records section tools read (an
    /// export's does, a method's does not).
    pub texts_in_records: bool,
    /// The global registry name (`#[export_fn(global = "...")]`), published in `META`.
    pub global: Option<&'a str>,
    /// The GIL choice (`#[export_fn(gil = "...")]`), published in `META`.
    pub release_gil: Option<bool>,
    /// For an op: the path of its `&'static FnDesc` (the hidden `__abi_op_<fn>` item, built
    /// by [`fn_desc`]), which `DESC` copies.
    pub desc_from: Option<TokenStream>,
}

/// `DESC` (the `FnDesc`), `RENDERED` and `TEXTS` (the record: name, global name, metadata
/// JSON, signature text and docs, rendered at compile time), `PASSES` (the passes the shim
/// runs) and their `KIND` (which body of `export` the shim compiles), and `call::<M>`
/// (converts the slots, calls, converts the result).
pub fn entry(e: &Entry) -> TokenStream {
    let parts = parts(e);
    let (ret_ty, ret_span) = ret(e);
    let callee = &e.callee;
    let (checks, args) = (&parts.checks, &parts.args);
    let desc = match &e.desc_from {
        Some(path) => quote!(*#path),
        None => desc_expr(e, &parts),
    };
    let texts = &parts.texts;
    let ret = quote_spanned!(ret_span=> <#ret_ty as __abi::ReturnValue>::into_outcome::<M>);
    let ret_texts = quote_spanned!(ret_span=> <#ret_ty as __abi::ReturnValue>::TEXTS);
    let record = quote!(
        static TEXTS: [u8; RENDERED.len()] = RENDERED.texts(&DESC);
    );
    let record = match e.texts_in_records {
        true => quote!(__abi::place! { export_record: #record }),
        false => record,
    };
    quote! {
        #(#checks)*
        const DESC: __abi::FnDesc = #desc;
        const RENDERED: __abi::RenderedTexts = __abi::render_export_texts(&DESC, &[#(#texts),*], &#ret_texts);
        #record
        const PASSES: __abi::Passes = DESC.passes(call::<__abi::Fast>, call::<__abi::Full>);
        const KIND: u8 = PASSES.kind();

        #[inline(always)]
        fn call<'a, M: __abi::Mode>(s: &'a __abi::Slots<'a>, sink: __abi::ResultSink) -> __abi::Outcome<M> {
            #ret(#callee(#(#args),*), sink)
        }
    }
}

/// The `FnDesc` expression of an entry, `op` being `.with_op(&OP)` or nothing (inside a
/// block that has `__abi` in scope).
pub fn fn_desc(e: &Entry, op: TokenStream) -> TokenStream {
    let desc = desc_expr(e, &parts(e));
    quote!(#desc #op)
}

fn ret(e: &Entry) -> (syn::Type, Span) {
    let unit: syn::Type = syn::parse_quote!(());
    (e.ret.cloned().unwrap_or(unit), e.ret.map_or_else(Span::call_site, |t| t.span()))
}

fn desc_expr(e: &Entry, parts: &Parts) -> TokenStream {
    let (name, doc) = (e.name, e.doc);
    let global = e.global.map(|g| quote!(.with_global(#g)));
    let gil = e.release_gil.map(|release| quote!(.with_gil(#release)));
    let error = e.ret.and_then(error_type_name).map(|name| quote!(.with_error(#name)));
    let descs = &parts.descs;
    let (ret_ty, ret_span) = ret(e);
    let ret_desc = quote_spanned!(ret_span=> <#ret_ty as __abi::ReturnValue>::DESC);
    quote!(__abi::FnDesc::new(#name, &[#(#descs),*], #ret_desc, #doc)#global #gil #error)
}

/// The name of `E` in a result written `Result<T, E>`, unless it is abi_core's `Error`: the
/// error type the export raises, which the metadata names (a derived one's kinds are in its
/// record; the macro sees only how the type is spelled).
fn error_type_name(ret: &syn::Type) -> Option<String> {
    let syn::Type::Path(p) = ret else { return None };
    let last = p.path.segments.last().filter(|s| s.ident == "Result")?;
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else { return None };
    let mut types = args.args.iter().filter_map(|a| match a {
        syn::GenericArgument::Type(t) => Some(t),
        _ => None,
    });
    let (_, Some(syn::Type::Path(e))) = (types.next(), types.next()) else { return None };
    let name = e.path.segments.last()?.ident.to_string();
    // abi_core's own `Error` (its Python name is its Rust name).
    (name != abi_shared::vocab::Kind::Error.python()).then_some(name)
}

/// Each parameter's description, texts, conversion and compile-time checks.
struct Parts {
    descs: Vec<TokenStream>,
    texts: Vec<TokenStream>,
    args: Vec<TokenStream>,
    checks: Vec<TokenStream>,
}

fn parts(e: &Entry) -> Parts {
    // Each parameter: its description, and its conversion in a pass of mode `M` from its
    // first slot (one slot per plain parameter, `LEAVES` per expanded struct).
    let mut offset = quote!(0);
    let mut descs = Vec::new();
    let mut texts = Vec::new();
    let mut args = Vec::new();
    let mut checks = Vec::new();
    for param in e.params {
        let ty = strip_lifetimes(&param.ty);
        let pname = param.name.to_string();
        match param.expand {
            None => {
                // A shared slice `&[E]` converts through `SliceParam`: `&[u8]` for bytes, and
                // for any other element one error that names what to take instead.
                let conv = if is_shared_slice(&param.ty) { quote!(__abi::SliceParam) } else { quote!(__abi::FromArg) };
                let desc = quote_spanned!(param.ty.span()=> __abi::plain(#pname, <#ty as #conv<'_>>::PARAM));
                texts.push(quote_spanned!(param.ty.span()=> <#ty as #conv<'_>>::TEXTS));
                let arg = quote_spanned!(param.ty.span()=> <#ty as #conv<'_>>::convert::<M>(s, #offset)?);
                match &param.default {
                    None => {
                        descs.push(desc);
                        args.push(arg);
                    }
                    // An omitted trailing argument takes the default.
                    Some(default) => {
                        let (json, value) =
                            (default_value::json(&param.ty, default), default_value::rust_value(&param.ty, default));
                        checks.push(default_value::range_check(&param.ty, default));
                        descs.push(quote!(#desc.with_default(#json)));
                        args.push(quote!(if s.passed() > #offset { #arg } else { #value }));
                    }
                }
                offset = quote!(#offset + 1);
            }
            Some(span) => {
                descs.push(quote_spanned!(param.ty.span()=> __abi::expanded(#pname, <#ty as __abi::AbiType>::DESC)));
                texts.push(quote!(__abi::TypeTexts::NONE));
                args.push(quote_spanned!(span=> <#ty as __abi::Expand<'_>>::convert::<M>(s, #offset)?));
                offset = quote!(#offset + <#ty as __abi::Expand<'static>>::LEAVES);
            }
        }
    }
    Parts { descs, texts, args, checks }
}

/// The packed shim `ident`, with `attrs` (`#[no_mangle]` for an export).
pub fn shim(ident: &syn::Ident, attrs: TokenStream) -> TokenStream {
    quote! {
        #attrs
        unsafe extern "C" fn #ident(h: __abi::Handle, a: __abi::ArgsPtr, n: i32, out: __abi::ResultPtr) -> i32 {
            // SAFETY: the packed calling convention; `export` checks count and pointers.
            unsafe { __abi::export::<KIND>(&EXPORT, h, a, n, out, PASSES) }
        }
    }
}

/// Replaces named and elided lifetimes by `'_` so the type can be named inside the shim.
/// Whether `ty` is a shared slice `&[E]`.
fn is_shared_slice(ty: &syn::Type) -> bool {
    fn peel(ty: &syn::Type) -> &syn::Type {
        match ty {
            syn::Type::Group(g) => peel(&g.elem),
            syn::Type::Paren(p) => peel(&p.elem),
            other => other,
        }
    }
    matches!(peel(ty), syn::Type::Reference(r) if r.mutability.is_none() && matches!(peel(&r.elem), syn::Type::Slice(_)))
}

pub fn strip_lifetimes(ty: &syn::Type) -> TokenStream {
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
