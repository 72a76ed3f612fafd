//! Mach-O (macOS and Apple's other systems): the sections generated statics go in
//! (`segment,section`, the section name at most 16 bytes), and `__mod_init_func` for code
//! run at load. The linker's `-dead_strip` keeps what `no_dead_strip` marks, as linkme marks
//! its own sections.

/// Places a generated static: `place! { KIND: static NAME: TYPE = VALUE; }`, `KIND` being
/// `export_record`, `class_record` or `iree_record` (the sections tools read, spelled as
/// `abi_shared::*_RECORDS_SECTION_MACHO`), or the name of one of abi-core's distributed
/// slices (`EXPORTS`, `METHODS`, `IREE_FUNCTIONS`), whose element it becomes: linkme's own
/// macro spells the slice's section for the target.
#[doc(hidden)]
#[macro_export]
macro_rules! __abi_place {
    (export_record: $item:item) => {
        #[used]
        #[unsafe(link_section = "__DATA,__abi_exports,regular,no_dead_strip")]
        $item
    };
    (class_record: $item:item) => {
        #[used]
        #[unsafe(link_section = "__DATA,__abi_classes,regular,no_dead_strip")]
        $item
    };
    (iree_record: $item:item) => {
        #[used]
        #[unsafe(link_section = "__DATA,__abi_iree,regular,no_dead_strip")]
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
        #[unsafe(link_section = "__DATA,__mod_init_func,mod_init_funcs")]
        static AT_LOAD: extern "C" fn() = {
            extern "C" fn at_load() {
                $call;
            }
            at_load
        };
    };
}
