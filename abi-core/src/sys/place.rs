//! Where generated statics go, and code run at load: one definition for every target. The
//! object format's file (`elf.rs`, `macho.rs`, `coff.rs`) names the sections
//! (`__abi_section!`) and says what keeps a placed static through the linker's garbage
//! collection (`__abi_keep!`).

/// Places a generated static: `place! { KIND: static NAME: TYPE = VALUE; }`, `KIND` being
/// `export_record`, `class_record` or `iree_record` (the sections tools read, spelled as
/// `abi_shared::*_RECORDS_SECTION*` for the target's format), or the name of one of
/// abi-core's distributed slices (`EXPORTS`, `METHODS`, `IREE_FUNCTIONS`), whose element it
/// becomes: linkme's own macro spells the slice's section for the target.
#[doc(hidden)]
#[macro_export]
macro_rules! __abi_place {
    // An export's record needs no `#[used]`: its registry entry refers to it.
    (export_record: $($static:tt)*) => { $crate::__abi_place!(@record export_record: $($static)*); };
    (class_record: $($static:tt)*) => { $crate::__abi_place!(@record class_record #[used]: $($static)*); };
    (iree_record: $($static:tt)*) => { $crate::__abi_place!(@record iree_record #[used]: $($static)*); };
    (@record $kind:ident $(#[$used:meta])?: static $name:ident: $ty:ty = $value:expr;) => {
        $(#[$used])?
        #[unsafe(link_section = $crate::__abi_section!($kind))]
        static $name: $ty = $value;
        $crate::__abi_keep! { $name }
    };
    ($slice:ident: static $name:ident: $ty:ty = $value:expr;) => {
        $crate::__private::$slice! { #![linkme_macro = $crate::__private::$slice] static $name: $ty = $value; }
        $crate::__abi_keep! { $name }
    };
}

/// Runs `call` (an expression that never unwinds) while the library or program loads (for
/// a Windows DLL, under the loader lock: `call` loads no library and waits on no thread).
#[doc(hidden)]
#[macro_export]
macro_rules! __abi_at_load {
    ($call:expr) => {
        #[used]
        #[unsafe(link_section = $crate::__abi_section!(at_load))]
        static AT_LOAD: extern "C" fn() = {
            extern "C" fn at_load() {
                $call;
            }
            at_load
        };
    };
}
