//! `#[import(Name)]` expansion: a struct holding one binding per declared function, bind
//! constructors that resolve and check every import at once, and typed call methods.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use crate::model::{ImportFn, ImportSet};
use crate::skeleton::impl_macro;
use crate::{parse, validate};

impl_macro!(ImportSet, args_and_item, parse::import_set, validate::import_set, expand, fallback);

fn desc_ident(f: &ImportFn) -> syn::Ident {
    format_ident!("__ABI_DESC_{}", f.sig.ident)
}

fn ret_type(f: &ImportFn) -> syn::Type {
    f.ret.clone().unwrap_or_else(|| syn::parse_quote!(()))
}

/// The struct, with the documented bind constructors around `bind_body`.
fn struct_and_binds(set: &ImportSet, fields: TokenStream, bind_body: TokenStream, items: TokenStream) -> TokenStream {
    let p = private(set);
    let (ident, vis, attrs) = (&set.ident, &set.vis, &set.attrs);
    quote! {
        #(#attrs)*
        #[derive(Clone, Debug)]
        #vis struct #ident {
            #fields
        }

        impl #ident {
            /// Binds every import from a library on disk.
            #vis fn bind(library: &#p::Library) -> #p::Result<Self> {
                Self::bind_from(#p::ImportSource::Library(library))
            }

            /// Binds every import from the global function registry.
            #vis fn bind_globals() -> #p::Result<Self> {
                Self::bind_from(#p::ImportSource::Globals)
            }

            /// Binds every import from `#[export_fn]` functions linked into this binary.
            #vis fn bind_linked() -> #p::Result<Self> {
                Self::bind_from(#p::ImportSource::Linked)
            }

            /// Binds every import from `source`, checking published signatures; fails
            /// listing every missing or mismatched import.
            #vis fn bind_from(source: #p::ImportSource<'_>) -> #p::Result<Self> {
                #bind_body
            }

            #items
        }
    }
}

fn private(set: &ImportSet) -> TokenStream {
    let krate = &set.krate;
    quote!(#krate::__private)
}

fn expand(set: &ImportSet) -> TokenStream {
    let p = private(set);
    let set_name = set.ident.to_string();
    let fields = set.fns.iter().map(|f| {
        let field = &f.sig.ident;
        if f.optional {
            quote!(#field: ::core::option::Option<#p::Bound>,)
        } else {
            quote!(#field: #p::Bound,)
        }
    });
    // Every mention of a parameter type goes through `IntoArg`, and of the result type
    // through `FromAny`, spanned on the type: an unsupported one is a single error there.
    let descs = set.fns.iter().map(|f| {
        let (d, name) = (desc_ident(f), &f.name);
        let params = f.params.iter().map(|prm| {
            let (pname, ty) = (prm.name.to_string(), &prm.ty);
            let desc = quote_spanned!(ty.span()=> <#ty as #p::IntoArg>::ARG);
            quote!(#p::ParamDesc::new(#pname, #desc))
        });
        let ret = ret_type(f);
        let ret_desc = quote_spanned!(ret.span()=> <#ret as #p::FromAny>::RESULT);
        quote! {
            #[doc(hidden)]
            #[allow(non_upper_case_globals)]
            const #d: #p::FnDesc = #p::FnDesc::new(#name, &[#(#params),*], #ret_desc, "");
        }
    });
    let binds = set.fns.iter().map(|f| {
        let (field, d, optional) = (&f.sig.ident, desc_ident(f), f.optional);
        match f.unchecked {
            false => quote!(let #field = binder.bind(&source, &Self::#d, #optional);),
            true => quote!(let #field = binder.bind_unchecked(&source, &Self::#d, #optional);),
        }
    });
    let inits = set.fns.iter().map(|f| {
        let field = &f.sig.ident;
        if f.optional {
            quote!(#field)
        } else {
            quote!(#field: #field.expect("bound when the binder reported no problem"))
        }
    });
    let methods = set.fns.iter().map(|f| method(set, f));
    let bind_body = quote! {
        let mut binder: #p::Binder = ::core::default::Default::default();
        #(#binds)*
        binder.finish(#set_name, &source)?;
        ::core::result::Result::Ok(Self { #(#inits,)* })
    };
    struct_and_binds(set, quote!(#(#fields)*), bind_body, quote!(#(#descs)* #(#methods)*))
}

fn method(set: &ImportSet, f: &ImportFn) -> TokenStream {
    let p = private(set);
    let (vis, field, attrs, d) = (&set.vis, &f.sig.ident, &f.attrs, desc_ident(f));
    let ret = ret_type(f);
    let names: Vec<_> = f.params.iter().map(|prm| &prm.name).collect();
    let tys: Vec<_> = f.params.iter().map(|prm| &prm.ty).collect();
    let slots: Vec<_> = (0..f.params.len()).map(|i| format_ident!("__abi_slot{}", i)).collect();
    let packs = f.params.iter().zip(&slots).enumerate().map(|(i, (prm, slot))| {
        let (name, ty) = (&prm.name, &prm.ty);
        let into = quote_spanned!(ty.span()=> <#ty as #p::IntoArg>::into_slot(#name));
        quote!(let #slot = #into.map_err(|e| #p::bad_arg(&Self::#d, #i, e))?;)
    });
    let from = quote_spanned!(ret.span()=> <#ret as #p::FromAny>::from_result(__abi_out));
    let call = quote! {
        #(#packs)*
        let __abi_out = bound.call_raw(&[#(#p::ArgSlot::raw(&#slots)),*])?;
        #from.map_err(|e| #p::bad_result(&Self::#d, e))
    };
    let body = if f.optional {
        let absent = match &f.fallback {
            Some(fb) => quote!(::core::result::Result::Ok(#fb(#(#names),*))),
            None => {
                let (name, set_name) = (&f.name, set.ident.to_string());
                quote!(::core::result::Result::Err(#p::absent(#set_name, #name)))
            }
        };
        quote! {
            let ::core::option::Option::Some(bound) = &self.#field else { return #absent };
            #call
        }
    } else {
        quote! {
            let bound = &self.#field;
            #call
        }
    };
    let has = format_ident!("has_{}", field);
    let has_fn = f.optional.then(|| {
        quote! {
            /// Whether this optional import was found when binding.
            #vis fn #has(&self) -> bool {
                self.#field.is_some()
            }
        }
    });
    quote! {
        #(#attrs)*
        #[inline]
        #vis fn #field(&self, #(#names: #tys),*) -> #p::Result<#ret> {
            #body
        }
        #has_fn
    }
}

/// The struct with every declared method, bodies unreachable: code using the import set
/// compiles, so the reported errors are the real ones.
fn fallback(set: &ImportSet) -> TokenStream {
    let p = private(set);
    let vis = &set.vis;
    let unreachable = quote!(::core::unreachable!("#[import] failed to compile"));
    // One method per name: a duplicate declaration is already an error.
    let firsts = set.fns.iter().enumerate().filter(|(i, f)| !set.fns[..*i].iter().any(|g| g.sig.ident == f.sig.ident));
    let methods = firsts.map(|(_, f)| {
        let (field, attrs, ret) = (&f.sig.ident, &f.attrs, ret_type(f));
        let (generics, where_c) = (&f.sig.generics, &f.sig.generics.where_clause);
        let tys = f.params.iter().map(|prm| &prm.ty);
        let has = format_ident!("has_{}", field);
        let has_fn = f.optional.then(|| quote!(#vis fn #has(&self) -> bool { #unreachable }));
        quote! {
            #(#attrs)*
            #vis fn #field #generics (&self, #(_: #tys),*) -> #p::Result<#ret> #where_c { #unreachable }
            #has_fn
        }
    });
    let bind_body = quote!(let _ = source; #unreachable);
    struct_and_binds(set, TokenStream::new(), bind_body, quote!(#(#methods)*))
}
