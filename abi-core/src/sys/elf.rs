//! ELF (Linux, Android, the BSDs): the sections generated statics go in, and `.init_array`
//! for code run at load. The linker's `--gc-sections` keeps them: `#[used]` records, and
//! linkme's sections, which the runtime reads through their `__start_`/`__stop_` bounds.

/// The section of a placed static (`export_record`, `class_record`, `iree_record`: as
/// `abi_shared::*_RECORDS_SECTION`) or of code run at load (`at_load`).
#[doc(hidden)]
#[macro_export]
macro_rules! __abi_section {
    (export_record) => {
        "abi_export_records"
    };
    (class_record) => {
        "abi_class_records"
    };
    (iree_record) => {
        "abi_iree_records"
    };
    (at_load) => {
        ".init_array"
    };
}

/// Nothing more keeps a placed static: its section does.
#[doc(hidden)]
#[macro_export]
macro_rules! __abi_keep {
    ($name:ident) => {};
}
