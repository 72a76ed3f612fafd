//! A class's or method's reflection record, placed in the class records section tools read
//! (`abi_shared::CLASS_RECORDS_SECTION` and its Mach-O and PE spellings, chosen by abi-core's
//! `place!`): bytes rendered at compile time, kept by the linker.

use proc_macro2::TokenStream;
use quote::quote;

/// A `static` record of `len` bytes (a const expression) filled by `bytes` (a const
/// expression that may name `LEN`), inside its own block so several fit in one scope.
pub fn record(len: TokenStream, bytes: TokenStream) -> TokenStream {
    quote! {
        const _: () = {
            const LEN: usize = #len;
            __abi::place! { class_record: static RECORD: [u8; LEN] = #bytes; }
        };
    }
}
