//! PE/COFF (Windows): the sections generated statics go in (names of at most 8 bytes:
//! lld-link truncates longer ones), and `.CRT$XCU`, the C runtime's initializers, for code
//! run at load.
//!
//! GNU ld's `--gc-sections` (the windows-gnu linker, under rustc's defaults) drops every
//! section no kept section refers to, `#[used]` or not: the elements of a distributed slice
//! and the records, which only the runtime's section bounds or tools reach, would vanish. Its
//! default script keeps the C runtime's initializers (`KEEP (*(SORT(.CRT$XC*)))`), so each
//! placed static gets one: a function that takes the static's address, run at load, which
//! makes the static reachable from a kept section. MSVC's linker and lld-link keep sections
//! outside COMDAT groups anyway; the initializers cost them one empty call each at load.

/// The section of a placed static (`export_record`, `class_record`, `iree_record`: as
/// `abi_shared::*_RECORDS_SECTION_PE`) or of code run at load (`at_load`, the C runtime's
/// initializers; for a DLL they run under the loader lock).
#[doc(hidden)]
#[macro_export]
macro_rules! __abi_section {
    (export_record) => {
        ".abiexp"
    };
    (class_record) => {
        ".abicls"
    };
    (iree_record) => {
        ".abiiree"
    };
    (at_load) => {
        ".CRT$XCU"
    };
}

/// Keeps the static `$name` through GNU ld's garbage collection: a C runtime initializer
/// refers to it.
#[doc(hidden)]
#[macro_export]
macro_rules! __abi_keep {
    ($name:ident) => {
        const _: () = {
            #[used]
            #[unsafe(link_section = $crate::__abi_section!(at_load))]
            static KEEP: extern "C" fn() = {
                extern "C" fn keep() {
                    ::core::hint::black_box(&$name);
                }
                keep
            };
        };
    };
}
