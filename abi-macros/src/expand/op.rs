//! What `#[export_fn(op)]` adds to an export: the op's description (`OpDesc`, published as
//! `abi.op`) in a hidden item `__abi_op_<fn>` that holds the export's whole `FnDesc` (the
//! export's `DESC` copies it, and a forward's `backward = path` names it), the compile-time
//! checks of its rules (an axis within its tensor's rank, `out = x` of `x`'s rank) and of
//! its backward's signature, and for an op with an in-place parameter the second export
//! `<name>__jax` in JAX's argument order.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use crate::expand::packed::{self, strip_lifetimes};
use crate::model::{DimRule, ExportFn, OpRole, OpType, OutRule, Param};

/// An op being expanded.
pub struct Op<'f> {
    f: &'f ExportFn,
    /// The hidden item's name, `__abi_op_<fn>`.
    hidden: syn::Ident,
}

/// The ident of the hidden item of the op whose function is `ident`.
fn hidden_ident(ident: &syn::Ident) -> syn::Ident {
    format_ident!("__abi_op_{}", ident, span = ident.span())
}

impl<'f> Op<'f> {
    pub fn new(f: &'f ExportFn) -> Op<'f> {
        Op { f, hidden: hidden_ident(&f.item.sig.ident) }
    }

    /// What the export's `DESC` copies.
    pub fn desc_path(&self) -> TokenStream {
        let hidden = &self.hidden;
        quote!(#hidden)
    }

    fn param(&self, name: &syn::Ident) -> Option<&'f Param> {
        self.f.params.iter().find(|p| p.name == *name)
    }

    fn has_inout(&self) -> bool {
        self.f.params.iter().any(|p| p.op_role() == OpRole::InOut)
    }

    /// The exported name of the JAX-order entry point, for an op with an in-place tensor.
    fn jax_name(&self) -> Option<String> {
        self.has_inout().then(|| format!("{}__jax", self.f.name))
    }

    /// `__abi_op_<fn>`: `&'static FnDesc` of the export, the op's description included,
    /// with the function's visibility; and the check of the backward's signature.
    pub fn hidden_item(&self, entry: &packed::Entry) -> TokenStream {
        let (krate, vis, hidden) = (&self.f.krate, &self.f.item.vis, &self.hidden);
        let names = |role: OpRole| -> Vec<String> {
            self.f.params.iter().filter(|p| p.op_role() == role).map(|p| p.name.to_string()).collect()
        };
        let (inputs, scalars) = (names(OpRole::Input), names(OpRole::Scalar));
        let strided: Vec<String> =
            self.f.params.iter().filter(|p| p.op_strided_input()).map(|p| p.name.to_string()).collect();
        let outputs = self.f.params.iter().filter_map(|p| {
            let name = p.name.to_string();
            let rule = match (&p.out, p.op_role()) {
                (_, OpRole::InOut) => quote!(__abi::OpRule::InOut),
                (Some((OutRule::Like(x), _)), _) => {
                    let x = x.to_string();
                    quote!(__abi::OpRule::Like(#x))
                }
                (Some((OutRule::Shape(dims, _), _)), _) => {
                    let dims = dims.iter().map(|d| match d {
                        DimRule::Axis(x, axis) => {
                            let (x, axis) = (x.to_string(), unsuffixed(axis));
                            quote!(__abi::OpDim::Axis(#x, #axis))
                        }
                        DimRule::Scalar(n) => {
                            let n = n.to_string();
                            quote!(__abi::OpDim::Scalar(#n))
                        }
                        DimRule::Const(c) => {
                            let c = unsuffixed(c);
                            quote!(__abi::OpDim::Const(#c))
                        }
                    });
                    quote!(__abi::OpRule::Shape(&[#(#dims),*]))
                }
                _ => return None,
            };
            Some(quote!(__abi::OpOutput { name: #name, rule: #rule }))
        });
        let none = quote!(::core::option::Option::None);
        let (backward, bwd_const, bwd_check) = match &self.f.backward {
            Some((path, _)) => {
                let mut path = path.clone();
                if let Some(last) = path.segments.last_mut() {
                    last.ident = hidden_ident(&last.ident);
                }
                let span = path.span();
                (
                    quote!(::core::option::Option::Some(BWD.name)),
                    quote_spanned!(span=> const BWD: &__abi::FnDesc = #path;),
                    quote_spanned!(span=> const _: () = __abi::op_check_backward(&DESC, BWD);),
                )
            }
            None => (none.clone(), TokenStream::new(), TokenStream::new()),
        };
        let jax = match self.jax_name() {
            Some(name) => quote!(::core::option::Option::Some(#name)),
            None => none,
        };
        let device = match self
            .f
            .params
            .iter()
            .any(|p| matches!(p.op_type(), OpType::Input { device: true } | OpType::Mutable { device: true }))
        {
            true => quote!(__abi::OpDevice::Gpu),
            false => quote!(__abi::OpDevice::Cpu),
        };
        let desc = packed::fn_desc(entry, quote!(.with_op(&OP)));
        // A scalar named by a plain path must be a fieldless enum (a string to torch and JAX).
        let enum_checks = self.f.params.iter().filter(|p| p.op_type() == OpType::Named).map(|p| {
            let ty = strip_lifetimes(&p.ty);
            let message = format!(
                "`{}` cannot be a parameter of an op: ops carry only tensors, int/float/bool scalars (i64, i32, f64, f32, bool) and fieldless enums (`#[derive(AbiEnum)]`)",
                quote!(#ty).to_string().replace(' ', "")
            );
            quote_spanned!(p.ty.span()=> const _: () = ::core::assert!(__abi::op_scalar_is_enum(<#ty as __abi::AbiType>::DESC), #message);)
        });
        quote! {
            #[doc(hidden)]
            #[allow(non_upper_case_globals)]
            #vis const #hidden: &'static #krate::__private::FnDesc = {
                use #krate::__private as __abi;
                #bwd_const
                const OP: __abi::OpDesc = __abi::OpDesc {
                    inputs: &[#(#inputs),*],
                    scalars: &[#(#scalars),*],
                    outputs: &[#(#outputs),*],
                    backward: #backward,
                    jax: #jax,
                    device: #device,
                    strided: &[#(#strided),*],
                };
                const DESC: __abi::FnDesc = #desc;
                #bwd_check
                #(#enum_checks)*
                &DESC
            };
        }
    }

    /// The rules' compile-time checks, inside the export's block: an axis within the rank
    /// of its tensor, an `out = x` output of `x`'s rank, a shape of one dimension per axis
    /// of its output.
    pub fn checks(&self) -> TokenStream {
        let rank = |p: &Param| {
            let ty = strip_lifetimes(&p.ty);
            quote!(__abi::op_tensor_rank(<#ty as __abi::AbiType>::DESC))
        };
        let mut checks = Vec::new();
        for p in &self.f.params {
            let Some((rule, _)) = &p.out else { continue };
            match rule {
                OutRule::Like(x) => {
                    let Some(input) = self.param(x) else { continue };
                    let message = format!("`out = {x}`: output `{}` must have the rank of input `{x}`", p.name);
                    let (want, got) = (rank(input), rank(p));
                    checks.push(quote_spanned!(x.span()=> const _: () = ::core::assert!(#want == #got, #message);));
                }
                OutRule::Shape(dims, span) => {
                    if let Some(span) = span {
                        let n = dims.len();
                        let message = format!(
                            "the shape rule of output `{}` gives {n} dimension{}: it needs one per axis of the output's rank",
                            p.name,
                            if n == 1 { "" } else { "s" }
                        );
                        let (got, n) = (rank(p), proc_macro2::Literal::usize_unsuffixed(n));
                        checks.push(quote_spanned!(*span=> const _: () = ::core::assert!(#got == #n, #message);));
                    }
                    for d in dims {
                        let DimRule::Axis(x, axis) = d else { continue };
                        let Some(input) = self.param(x) else { continue };
                        let message = format!("axis {} is past the rank of input `{x}`", unsuffixed(axis));
                        let (have, axis) = (rank(input), unsuffixed(axis));
                        checks.push(
                            quote_spanned!(axis.span()=> const _: () = ::core::assert!(#axis < #have, #message);),
                        );
                    }
                }
            }
        }
        quote!(#(#checks)*)
    }

    /// The JAX-order entry point, for an op with an in-place tensor.
    pub fn jax_entry(&self) -> Option<JaxEntry> {
        let name = self.jax_name()?;
        // Where each scalar stands: before the tensors, between inputs and outputs, after them.
        let (mut before, mut between, mut after) = (Vec::new(), Vec::new(), Vec::new());
        let (mut inputs, mut copies, mut outputs) = (Vec::new(), Vec::new(), Vec::new());
        let mut seen_output = false;
        for p in &self.f.params {
            match p.op_role() {
                OpRole::Input => inputs.push(plain(p.name.clone(), p.ty.clone())),
                OpRole::Output | OpRole::InOut => {
                    seen_output = true;
                    if p.op_role() == OpRole::InOut {
                        let copy = format_ident!("{}__in", p.name);
                        copies.push(plain(copy, syn::parse_quote_spanned!(p.ty.span()=> __abi::IgnoredArg)));
                    }
                    outputs.push(plain(p.name.clone(), p.ty.clone()));
                }
                OpRole::Scalar => {
                    let group = match (seen_output, inputs.is_empty()) {
                        (true, _) => &mut after,
                        (false, true) => &mut before,
                        (false, false) => &mut between,
                    };
                    group.push(plain(p.name.clone(), p.ty.clone()));
                }
            }
        }
        let params = [before, inputs, copies, between, outputs, after].into_iter().flatten().collect();
        let doc = format!(
            "`{}` in JAX's argument order (input tensors, the input copy of each in-place tensor, then the outputs): what jax-tvm-ffi calls, with the in-place tensors aliased.",
            self.f.name
        );
        Some(JaxEntry { name, doc, params, callee: self.f.item.sig.ident.clone() })
    }
}

/// A validated integer literal without its suffix (`2u8` is the axis `2`), on its span.
fn unsuffixed(lit: &syn::LitInt) -> proc_macro2::Literal {
    let mut out = proc_macro2::Literal::u32_unsuffixed(lit.base10_parse().unwrap_or_default());
    out.set_span(lit.span());
    out
}

fn plain(name: syn::Ident, ty: syn::Type) -> Param {
    Param { name, ty, expand: None, default: None, out: None, inout: None }
}

/// The `<name>__jax` export of an op with an in-place tensor.
pub struct JaxEntry {
    /// Its exported name.
    pub name: String,
    doc: String,
    /// Its parameters, in JAX's order.
    params: Vec<Param>,
    /// The op's function.
    callee: syn::Ident,
}

impl JaxEntry {
    /// Its packed entry, calling [`JaxEntry::wrapper`].
    pub fn entry<'a>(&'a self, f: &'a ExportFn) -> packed::Entry<'a> {
        packed::Entry {
            name: &self.name,
            doc: &self.doc,
            params: &self.params,
            ret: f.ret.as_ref(),
            callee: quote!(jax_call),
            texts_in_records: true,
            global: None,
            release_gil: f.release_gil,
            desc_from: None,
        }
    }

    /// `jax_call`: takes the parameters in JAX's order and calls the op's function in its
    /// own, ignoring the input copies (the in-place tensor comes from its output slot).
    pub fn wrapper(&self, f: &ExportFn) -> TokenStream {
        let callee = &self.callee;
        let params = self.params.iter().map(|p| {
            let (name, ty) = (&p.name, strip_lifetimes(&p.ty));
            quote!(#name: #ty)
        });
        let args = f.params.iter().map(|p| &p.name);
        let ret = match &f.ret {
            Some(ty) => quote!(-> #ty),
            None => TokenStream::new(),
        };
        let span = Span::call_site();
        quote_spanned! {span=>
            #[allow(unused_variables, non_snake_case, clippy::too_many_arguments)]
            fn jax_call(#(#params),*) #ret {
                #callee(#(#args),*)
            }
        }
    }
}
