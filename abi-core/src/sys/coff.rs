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

/// Places a generated static: `place! { KIND: static NAME: TYPE = VALUE; }`, `KIND` being
/// `export_record`, `class_record` or `iree_record` (the sections tools read, spelled as
/// `abi_shared::*_RECORDS_SECTION_PE`), or the name of one of abi-core's distributed slices
/// (`EXPORTS`, `METHODS`, `IREE_FUNCTIONS`), whose element it becomes: linkme's own macro
/// spells the slice's section for the target.
#[doc(hidden)]
#[macro_export]
macro_rules! __abi_place {
    (export_record: static $name:ident: $ty:ty = $value:expr;) => {
        #[unsafe(link_section = ".abiexp")]
        static $name: $ty = $value;
        $crate::__abi_keep!($name);
    };
    (class_record: static $name:ident: $ty:ty = $value:expr;) => {
        #[used]
        #[unsafe(link_section = ".abicls")]
        static $name: $ty = $value;
        $crate::__abi_keep!($name);
    };
    (iree_record: static $name:ident: $ty:ty = $value:expr;) => {
        #[used]
        #[unsafe(link_section = ".abiiree")]
        static $name: $ty = $value;
        $crate::__abi_keep!($name);
    };
    ($slice:ident: static $name:ident: $ty:ty = $value:expr;) => {
        $crate::__private::$slice! { #![linkme_macro = $crate::__private::$slice] static $name: $ty = $value; }
        $crate::__abi_keep!($name);
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
            #[unsafe(link_section = ".CRT$XCU")]
            static KEEP: extern "C" fn() = {
                extern "C" fn keep() {
                    ::core::hint::black_box(&$name);
                }
                keep
            };
        };
    };
}

/// Runs `call` (an expression that never unwinds) while the library or program loads (for
/// a DLL, under the loader lock: `call` loads no library and waits on no thread).
#[doc(hidden)]
#[macro_export]
macro_rules! __abi_at_load {
    ($call:expr) => {
        #[used]
        #[unsafe(link_section = ".CRT$XCU")]
        static AT_LOAD: extern "C" fn() = {
            extern "C" fn at_load() {
                $call;
            }
            at_load
        };
    };
}
