//! Code run while a library loads (a constructor: `.init_array`, `__mod_init_func` or
//! `.CRT$XCU`, as abi-core's `at_load!` decides for the target) calling one runtime function
//! that never unwinds.

use proc_macro2::TokenStream;
use quote::quote;

/// A constructor calling `call` (a path into `__abi`, the runtime glue).
pub fn constructor(call: TokenStream) -> TokenStream {
    quote!(__abi::at_load!(#call);)
}
