//! A class's or method's reflection record, placed in the section tools read
//! (`abi_shared::CLASS_RECORDS_SECTION`): bytes rendered at compile time, kept by the linker.

use proc_macro2::TokenStream;
use quote::quote;

/// A `static` record of `len` bytes (a const expression) filled by `bytes` (a const
/// expression that may name `LEN`), inside its own block so several fit in one scope.
pub fn record(len: TokenStream, bytes: TokenStream) -> TokenStream {
    let section = abi_shared::CLASS_RECORDS_SECTION;
    quote! {
        const _: () = {
            const LEN: usize = #len;
            #[used]
            #[cfg_attr(any(target_os = "linux", target_os = "android", target_os = "freebsd"), unsafe(link_section = #section))]
            static RECORD: [u8; LEN] = #bytes;
        };
    }
}
