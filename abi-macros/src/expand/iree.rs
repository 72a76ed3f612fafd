//! The IREE half of `#[export_fn(iree)]`: the calling convention and buffer layout computed
//! at compile time from each parameter's `IreeArg` and the result's `IreeReturn` (a type
//! IREE cannot carry fails that bound, spanned on it), the function that holds each
//! argument (a scalar's value, a tensor's mapped buffer), calls with views of them and
//! encodes the results, the module entry collected at link time, and the record tools read
//! (`abi_shared::IREE_RECORDS_SECTION`). Emitted inside the export's `const _` block, next
//! to its `DESC`.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::expand::packed::strip_lifetimes;
use crate::model::ExportFn;

pub fn entry(f: &ExportFn) -> TokenStream {
    let (name, fn_ident) = (&f.name, &f.item.sig.ident);
    let n = f.params.len();
    let unit: syn::Type = syn::parse_quote!(());
    let ret_ty = f.ret.as_ref().unwrap_or(&unit);
    let ret_span = f.ret.as_ref().map_or_else(Span::call_site, |t| t.span());
    let kinds = f.params.iter().map(|p| {
        let ty = strip_lifetimes(&p.ty);
        quote_spanned!(p.ty.span()=> <#ty as __abi::IreeArg<'_>>::KIND)
    });
    let held: Vec<_> = (0..n).map(|i| quote::format_ident!("held{}", i)).collect();
    let holds = f.params.iter().zip(&held).enumerate().map(|(i, (p, h))| {
        let (ty, pname) = (strip_lifetimes(&p.ty), p.name.to_string());
        quote_spanned! {p.ty.span()=>
            // SAFETY: the module checked the buffer's size against the layout.
            let mut #h = match unsafe { <#ty as __abi::IreeArg<'_>>::hold(&cx, args.add(IREE_ARGS.0[#i])) } {
                ::core::result::Result::Ok(v) => v,
                ::core::result::Result::Err(e) => return ::core::result::Result::Err(__abi::iree_bad_arg(#pname, #i, e)),
            };
        }
    });
    let views = f.params.iter().zip(&held).enumerate().map(|(i, (p, h))| {
        let (ty, pname) = (strip_lifetimes(&p.ty), p.name.to_string());
        quote_spanned! {p.ty.span()=>
            match <#ty as __abi::IreeArg<'_>>::view(&mut #h) {
                ::core::result::Result::Ok(v) => v,
                ::core::result::Result::Err(e) => return ::core::result::Result::Err(__abi::iree_bad_arg(#pname, #i, e)),
            }
        }
    });
    let ret_kinds = quote_spanned!(ret_span=> <#ret_ty as __abi::IreeReturn>::KINDS);
    let into_slots = quote_spanned!(ret_span=> <#ret_ty as __abi::IreeReturn>::into_slots);
    quote! {
        const IREE_ARG_KINDS: &[__abi::IreeKind] = &[#(#kinds),*];
        const IREE_RESULT_KINDS: &[__abi::IreeKind] = #ret_kinds;
        const IREE_R: usize = IREE_RESULT_KINDS.len();
        const IREE_ARGS: ([usize; #n], usize) = __abi::iree_layout::<#n>(IREE_ARG_KINDS);
        const IREE_RESULTS: ([usize; IREE_R], usize) = __abi::iree_layout::<IREE_R>(IREE_RESULT_KINDS);
        const IREE_CCONV_LEN: usize = __abi::iree_cconv_len(IREE_ARG_KINDS, IREE_RESULT_KINDS);
        const IREE_CCONV: [u8; IREE_CCONV_LEN] = __abi::iree_cconv::<IREE_CCONV_LEN>(IREE_ARG_KINDS, IREE_RESULT_KINDS);
        const IREE_ABI_LEN: usize = __abi::iree_record_len(&DESC);
        const IREE_ABI: [u8; IREE_ABI_LEN] = __abi::iree_record::<IREE_ABI_LEN>(&DESC);

        unsafe fn iree_call(cx: __abi::IreeHalCall<'_>, args: *const u8, results: *mut u8) -> ::core::result::Result<(), __abi::IreeFailure> {
            #(#holds)*
            let value = #fn_ident(#(#views),*);
            let mut slots = [__abi::IreeSlot::Bits(0); IREE_R];
            if let ::core::result::Result::Err(e) = #into_slots(value, &cx, &mut slots) {
                __abi::iree_release_slots(&slots);
                return ::core::result::Result::Err(e);
            }
            let mut i = 0;
            while i < IREE_R {
                // SAFETY: the module checked the buffer's size against the layout; each slot
                // has its kind.
                unsafe { __abi::iree_write_slot(results, IREE_RESULTS.0[i], IREE_RESULT_KINDS[i], slots[i]) };
                i += 1;
            }
            ::core::result::Result::Ok(())
        }

        __abi::place! {
            IREE_FUNCTIONS: static IREE_FUNCTION: __abi::IreeFunction = __abi::IreeFunction {
                name: #name,
                cconv: __abi::iree_text(&IREE_CCONV),
                args_size: IREE_ARGS.1,
                results_size: IREE_RESULTS.1,
                iree_abi: __abi::iree_text(&IREE_ABI),
                at: __abi::IreeLocation { file: ::core::concat!(::core::file!(), "\0"), line: ::core::line!() },
                uses_hal: __abi::iree_any_ref(IREE_ARG_KINDS) || __abi::iree_any_ref(IREE_RESULT_KINDS),
                call: iree_call,
            };
        }

        // What tools read from the file: the name and calling convention.
        const IREE_RECORD_LEN: usize = __abi::iree_function_record_len(#name, &IREE_CCONV);
        __abi::place! {
            iree_record: static IREE_RECORD: [u8; IREE_RECORD_LEN] = __abi::iree_function_record_bytes::<IREE_RECORD_LEN>(#name, &IREE_CCONV);
        }
    }
}
