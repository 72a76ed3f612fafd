//! `#[import(Name)]` expansion: a struct holding one binding per declared function, bind
//! constructors that resolve and check every import at once, and typed call methods.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use crate::errors::Errors;
use crate::model::{ImportFn, ImportSet};
use crate::{parse, validate};

/// Entry point: parse, validate, expand.
pub fn import(args: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let Some(model) = parse::import_set(args, item, &mut errors) else {
        return errors.into_compile_errors();
    };
    validate::import_set(&model, &mut errors);
    if !errors.is_empty() {
        return errors.into_compile_errors();
    }
    expand(&model)
}

fn desc_ident(f: &ImportFn) -> syn::Ident {
    format_ident!("__ABI_DESC_{}", f.sig.ident)
}

fn expand(set: &ImportSet) -> TokenStream {
    let krate = &set.krate;
    let p = quote!(#krate::__private);
    let (ident, vis, attrs) = (&set.ident, &set.vis, &set.attrs);
    let set_name = ident.to_string();

    let fields = set.fns.iter().map(|f| {
        let field = &f.sig.ident;
        if f.optional {
            quote!(#field: ::core::option::Option<#krate::Bound>)
        } else {
            quote!(#field: #krate::Bound)
        }
    });
    let descs = set.fns.iter().map(|f| {
        let d = desc_ident(f);
        let name = &f.name;
        let params = f.params.iter().map(|prm| {
            let (pname, ty) = (prm.name.to_string(), &prm.ty);
            let desc = quote_spanned!(ty.span()=> <#ty as #krate::AbiType>::DESC);
            quote!(#p::ParamDesc::new(#pname, #desc))
        });
        let ret = ret_type(f);
        let ret_desc = quote_spanned!(ret.span()=> <#ret as #krate::AbiType>::DESC);
        quote! {
            #[doc(hidden)]
            const #d: #p::FnDesc = #p::FnDesc { name: #name, params: &[#(#params),*], ret: #ret_desc, doc: "" };
        }
    });
    let binds = set.fns.iter().map(|f| {
        let (field, d, optional) = (&f.sig.ident, desc_ident(f), f.optional);
        quote!(let #field = binder.bind(&source, &Self::#d, #optional);)
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

    quote! {
        #(#attrs)*
        #[derive(Clone, Debug)]
        #vis struct #ident {
            #(#fields,)*
        }

        #[allow(non_upper_case_globals, clippy::all)]
        impl #ident {
            #(#descs)*

            /// Binds every import from a library on disk.
            #vis fn bind(library: &#krate::Library) -> #krate::Result<Self> {
                Self::bind_from(#krate::ImportSource::Library(library))
            }

            /// Binds every import from the global function registry.
            #vis fn bind_globals() -> #krate::Result<Self> {
                Self::bind_from(#krate::ImportSource::Globals)
            }

            /// Binds every import from `#[export_fn]` functions linked into this binary.
            #vis fn bind_linked() -> #krate::Result<Self> {
                Self::bind_from(#krate::ImportSource::Linked)
            }

            /// Binds every import from `source`, checking published signatures; fails
            /// listing every missing or mismatched import.
            #vis fn bind_from(source: #krate::ImportSource<'_>) -> #krate::Result<Self> {
                let mut binder = #p::Binder::default();
                #(#binds)*
                binder.finish(#set_name, &source)?;
                ::core::result::Result::Ok(Self { #(#inits,)* })
            }

            #(#methods)*
        }
    }
}

fn ret_type(f: &ImportFn) -> syn::Type {
    f.ret.clone().unwrap_or_else(|| syn::parse_quote!(()))
}

fn method(set: &ImportSet, f: &ImportFn) -> TokenStream {
    let krate = &set.krate;
    let p = quote!(#krate::__private);
    let vis = &set.vis;
    let field = &f.sig.ident;
    let attrs = &f.attrs;
    let d = desc_ident(f);
    let ret = ret_type(f);
    let names: Vec<_> = f.params.iter().map(|prm| &prm.name).collect();
    let tys: Vec<_> = f.params.iter().map(|prm| &prm.ty).collect();
    let slots: Vec<_> = (0..f.params.len()).map(|i| format_ident!("__abi_slot{}", i)).collect();
    let packs = f.params.iter().zip(&slots).enumerate().map(|(i, (prm, slot))| {
        let (name, ty) = (&prm.name, &prm.ty);
        let into = quote_spanned!(ty.span()=> <#ty as #krate::IntoArg>::into_slot);
        quote! {
            let #slot = match #into(#name) {
                ::core::result::Result::Ok(s) => s,
                ::core::result::Result::Err(e) => return ::core::result::Result::Err(#p::bad_arg(&Self::#d, #i, e)),
            };
        }
    });
    let from = quote_spanned!(ret.span()=> <#ret as #krate::FromAny>::from_any);
    let has_fast = quote_spanned!(ret.span()=> <#ret as #krate::FromArg<'_>>::HAS_FAST_PATH);
    let fast = quote_spanned!(ret.span()=> <#ret as #krate::FromArg<'_>>::fast_path);
    let call = quote! {
        #(#packs)*
        let __abi_raw = [#(#p::ArgSlot::raw(&#slots)),*];
        let __abi_out = bound.call_raw(&__abi_raw)?;
        // Exact result types skip the general conversion (and the release it may need).
        if #has_fast {
            if let ::core::option::Option::Some(v) = #fast(&__abi_out.view()) {
                return ::core::result::Result::Ok(v);
            }
        }
        #from(__abi_out.view()).map_err(|e| #p::bad_result(&Self::#d, e))
    };
    let body = if f.optional {
        let absent = match &f.fallback {
            Some(fb) => quote!(::core::result::Result::Ok(#fb(#(#names),*))),
            None => {
                let name = &f.name;
                let set_name = set.ident.to_string();
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
        #vis fn #field(&self, #(#names: #tys),*) -> #krate::Result<#ret> {
            #body
        }
        #has_fn
    }
}
