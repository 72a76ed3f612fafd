//! The platform layer: everything that differs between operating systems and object
//! formats, behind one interface, one file per system (as std's and mio's `sys` modules).
//! The rest of the runtime and the code the macros generate never test the target.
//!
//! | concern | interface | files |
//! |---|---|---|
//! | finding a loaded tvm_ffi | [`TVM_FFI_LIBRARY`], [`process_library`], [`loaded_library`] | `unix.rs` (`apple.rs`), `windows.rs` |
//! | keeping this library loaded | [`pin_module_containing`] | `unix.rs`, `windows.rs` |
//! | IREE status blocks | [`status_block_alloc`], [`status_block_free`] | `unix.rs`, `windows.rs` |
//! | where generated statics go, code run at load | `place!`, `at_load!` (in `__private`) | `place.rs`; the sections in `elf.rs`, `macho.rs`, `coff.rs` |
//!
//! Generated code writes `__abi::place! { exports: static EXPORT: T = value; }` or
//! `__abi::at_load!(call)`; the macro defined for the target being built decides the
//! section (and, on PE, what keeps it from the linker's garbage collection).

#[cfg(target_vendor = "apple")]
mod apple;
#[cfg(unix)]
mod unix;
#[cfg(windows)]
mod windows;

#[cfg(unix)]
pub use unix::{
    loaded_library, module_path_containing, pin_module_containing, process_library, status_block_alloc,
    status_block_free, TVM_FFI_LIBRARY,
};
#[cfg(windows)]
pub use windows::{
    loaded_library, module_path_containing, pin_module_containing, process_library, status_block_alloc,
    status_block_free, TVM_FFI_LIBRARY,
};

#[cfg(not(any(unix, windows)))]
compile_error!("abi-core supports unix (Linux, macOS, the BSDs) and Windows targets");

// `place.rs` defines `__abi_place!` and `__abi_at_load!` once; one of the three format
// files names their sections (`__abi_section!`) for the target, and says what else keeps a
// placed static (`__abi_keep!`).
#[cfg(windows)]
mod coff;
#[cfg(not(any(target_vendor = "apple", windows)))]
mod elf;
#[cfg(target_vendor = "apple")]
mod macho;
mod place;

#[cfg(test)]
mod tests {
    /// A library the process has loaded is found by its file name, as a loaded tvm_ffi is
    /// (`libtvm_ffi.so`, `libtvm_ffi.dylib`, `tvm_ffi.dll`), and its symbols resolve; tvm_ffi,
    /// which this test does not load, is not found.
    #[test]
    #[cfg(any(windows, target_vendor = "apple", all(target_os = "linux", target_env = "gnu")))]
    #[cfg_attr(miri, ignore = "Miri cannot look up loaded libraries")]
    fn a_loaded_library_is_found_by_its_file_name() {
        #[cfg(windows)]
        let (name, symbol) = ("kernel32.dll", &b"GetCurrentProcessId\0"[..]);
        #[cfg(target_vendor = "apple")]
        let (name, symbol) = ("libSystem.B.dylib", &b"getpid\0"[..]);
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        let (name, symbol) = ("libc.so.6", &b"getpid\0"[..]);
        let lib = super::loaded_library(name).unwrap_or_else(|| panic!("{name}, loaded, was not found"));
        // SAFETY: looking a symbol up runs no code; it is not called.
        let found = unsafe { lib.get::<unsafe extern "C" fn() -> u32>(symbol) };
        assert!(found.is_ok(), "{name} has no {}", String::from_utf8_lossy(&symbol[..symbol.len() - 1]));
        assert!(super::loaded_library(super::TVM_FFI_LIBRARY).is_none());
    }

    /// The section names each format's macro spells as literals are abi-shared's, which
    /// tools read.
    #[test]
    fn record_sections_are_spelled_as_abi_shared_says() {
        // The first string literal after the `(kind) =>` arm of the file's `__abi_section!`.
        let spelled = |source: &str, kind: &str, section: &str, attrs: &str| {
            let arm = format!("({kind}) =>");
            let after = &source[source.find(&arm).unwrap_or_else(|| panic!("no {arm} arm")) + arm.len()..];
            let literal = after.split('"').nth(1).expect("a string literal");
            assert_eq!(literal, format!("{section}{attrs}"), "the section of {kind}");
        };
        let elf = include_str!("elf.rs");
        spelled(elf, "export_record", abi_shared::EXPORT_RECORDS_SECTION, "");
        spelled(elf, "class_record", abi_shared::CLASS_RECORDS_SECTION, "");
        spelled(elf, "iree_record", abi_shared::IREE_RECORDS_SECTION, "");
        let macho = include_str!("macho.rs");
        let kept = ",regular,no_dead_strip";
        spelled(macho, "export_record", abi_shared::EXPORT_RECORDS_SECTION_MACHO, kept);
        spelled(macho, "class_record", abi_shared::CLASS_RECORDS_SECTION_MACHO, kept);
        spelled(macho, "iree_record", abi_shared::IREE_RECORDS_SECTION_MACHO, kept);
        let coff = include_str!("coff.rs");
        spelled(coff, "export_record", abi_shared::EXPORT_RECORDS_SECTION_PE, "");
        spelled(coff, "class_record", abi_shared::CLASS_RECORDS_SECTION_PE, "");
        spelled(coff, "iree_record", abi_shared::IREE_RECORDS_SECTION_PE, "");
        for name in [
            abi_shared::EXPORT_RECORDS_SECTION_PE,
            abi_shared::CLASS_RECORDS_SECTION_PE,
            abi_shared::IREE_RECORDS_SECTION_PE,
        ] {
            assert!(name.len() <= 8, "{name}: lld-link truncates PE section names past 8 bytes");
        }
        for name in [
            abi_shared::EXPORT_RECORDS_SECTION_MACHO,
            abi_shared::CLASS_RECORDS_SECTION_MACHO,
            abi_shared::IREE_RECORDS_SECTION_MACHO,
        ] {
            let (segment, section) = name.split_once(',').expect("segment,section");
            assert!(segment.len() <= 16 && section.len() <= 16, "{name}: Mach-O names are at most 16 bytes");
        }
    }
}
