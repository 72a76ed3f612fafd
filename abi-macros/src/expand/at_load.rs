//! Code run while a library loads: an ELF constructor (a `.init_array` entry, or
//! `__mod_init_func` on Apple targets) calling one runtime function that never unwinds.

use proc_macro2::TokenStream;
use quote::quote;

/// A `static` constructor entry calling `call` (a path into `__abi`, the runtime glue).
pub fn constructor(call: TokenStream) -> TokenStream {
    quote! {
        #[used]
        #[cfg_attr(any(target_os = "linux", target_os = "android", target_os = "freebsd"), unsafe(link_section = ".init_array"))]
        #[cfg_attr(target_vendor = "apple", unsafe(link_section = "__DATA,__mod_init_func"))]
        static AT_LOAD: extern "C" fn() = {
            extern "C" fn at_load() {
                #call;
            }
            at_load
        };
    }
}
