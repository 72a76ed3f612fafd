//! ELF (Linux, Android, the BSDs): the sections generated statics go in, and `.init_array`
//! for code run at load. The linker's `--gc-sections` keeps them: `#[used]` records, and
//! linkme's sections, which the runtime reads through their `__start_`/`__stop_` bounds.

/// Places a generated static: `place! { KIND: static NAME: TYPE = VALUE; }`, `KIND` being
/// `export_record`, `class_record` or `iree_record` (the sections tools read, spelled as
/// `abi_shared::*_RECORDS_SECTION`), or the name of one of abi-core's distributed slices
/// (`EXPORTS`, `METHODS`, `IREE_FUNCTIONS`), whose element it becomes: linkme's own macro
/// spells the slice's section for the target.
#[doc(hidden)]
#[macro_export]
macro_rules! __abi_place {
    (export_record: $item:item) => {
        #[unsafe(link_section = "abi_export_records")]
        $item
    };
    (class_record: $item:item) => {
        #[used]
        #[unsafe(link_section = "abi_class_records")]
        $item
    };
    (iree_record: $item:item) => {
        #[used]
        #[unsafe(link_section = "abi_iree_records")]
        $item
    };
    ($slice:ident: $item:item) => {
        $crate::__private::$slice! { #![linkme_macro = $crate::__private::$slice] $item }
    };
}

/// Runs `call` (an expression that never unwinds) while the library or program loads.
#[doc(hidden)]
#[macro_export]
macro_rules! __abi_at_load {
    ($call:expr) => {
        #[used]
        #[unsafe(link_section = ".init_array")]
        static AT_LOAD: extern "C" fn() = {
            extern "C" fn at_load() {
                $call;
            }
            at_load
        };
    };
}
