//! Mach-O (macOS and Apple's other systems): the sections generated statics go in
//! (`segment,section`, the section name at most 16 bytes), and `__mod_init_func` for code
//! run at load. The linker's `-dead_strip` keeps what `no_dead_strip` marks, as linkme marks
//! its own sections.

/// The section of a placed static (`export_record`, `class_record`, `iree_record`: as
/// `abi_shared::*_RECORDS_SECTION_MACHO`, kept from `-dead_strip`) or of code run at load
/// (`at_load`).
#[doc(hidden)]
#[macro_export]
macro_rules! __abi_section {
    (export_record) => {
        "__DATA,__abi_exports,regular,no_dead_strip"
    };
    (class_record) => {
        "__DATA,__abi_classes,regular,no_dead_strip"
    };
    (iree_record) => {
        "__DATA,__abi_iree,regular,no_dead_strip"
    };
    (at_load) => {
        "__DATA,__mod_init_func,mod_init_funcs"
    };
}

/// Nothing more keeps a placed static: `no_dead_strip` does.
#[doc(hidden)]
#[macro_export]
macro_rules! __abi_keep {
    ($name:ident) => {};
}
