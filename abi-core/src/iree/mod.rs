//! IREE VM modules from the same functions (`#[export_fn(iree)]` and `iree_module!`): a
//! library that links no IREE code becomes a dynamic module `iree-run-module` loads, whose
//! functions a compiled IREE program imports by name (docs/IREE-DYNAMIC-MODULE.md): the
//! calling convention (`cconv`), the interface structs (`vm`), statuses with messages
//! (`status`), the module itself (`module`), and for tensors the HAL module's functions it
//! imports (`hal`), VM references (`refs`), buffer bytes (`buffer`) and the tensor
//! conversions (`tensors`); and the records tools read from the file (`records`).

pub mod buffer;
pub mod hal;
pub mod refs;
pub mod tensors;
pub mod vm;

/// The old name of [`vm`], kept so code written against it still builds.
#[doc(hidden)]
pub use vm as abi;
pub mod cconv;
pub mod module;
pub mod records;
pub mod status;

use crate::reflect::render::fn_iree_module_record;
use crate::reflect::writer::Writer;
use crate::reflect::FnDesc;

/// One function of the module: an `#[export_fn(iree)]`, collected at link time.
#[derive(Debug)]
pub struct IreeFunction {
    /// The export name (the program imports `<module>.<name>`).
    pub name: &'static str,
    /// The canonical calling convention (`0ii_i`).
    pub cconv: &'static str,
    /// Bytes of the argument buffer.
    pub args_size: usize,
    /// Bytes of the result buffer.
    pub results_size: usize,
    /// The `iree.abi` reflection record (also in the export's metadata).
    pub iree_abi: &'static str,
    /// Where the function is defined (statuses name it).
    pub at: status::Location,
    /// Whether it takes or returns tensors (the module then imports the HAL functions).
    pub uses_hal: bool,
    /// Decodes the arguments, calls, encodes the results.
    ///
    /// # Safety
    /// `args` has `args_size` readable bytes and `results` `results_size` writable ones,
    /// both valid for the call `cx` belongs to.
    pub call:
        unsafe fn(cx: hal::HalCall<'_>, args: *const u8, results: *mut u8) -> core::result::Result<(), status::Failure>,
}

#[doc(hidden)]
#[linkme::distributed_slice]
pub static IREE_FUNCTIONS: [IreeFunction];

/// Length of a function's `iree.abi` record as its IREE module publishes it (a tuple
/// result is several results).
pub const fn iree_record_len(f: &FnDesc) -> usize {
    let mut count = Writer::new(&mut []);
    fn_iree_module_record(&mut count, f);
    count.len()
}

/// A function's `iree.abi` record, rendered at compile time into [`iree_record_len`] bytes.
pub const fn iree_record<const N: usize>(f: &FnDesc) -> [u8; N] {
    let mut buf = [0u8; N];
    let mut w = Writer::new(&mut buf);
    fn_iree_module_record(&mut w, f);
    assert!(w.len() == N, "record length changed between passes");
    buf
}

/// Whether any of `kinds` is a reference (a tensor).
pub const fn any_ref(kinds: &[cconv::IreeKind]) -> bool {
    let mut i = 0;
    while i < kinds.len() {
        if matches!(kinds[i], cconv::IreeKind::Ref) {
            return true;
        }
        i += 1;
    }
    false
}

/// A compile-time text as `&str` (for generated statics).
pub const fn text(bytes: &'static [u8]) -> &'static str {
    match core::str::from_utf8(bytes) {
        Ok(s) => s,
        Err(_) => panic!("a rendered IREE text is not UTF-8"),
    }
}

/// Whether `name` can name a module (a C identifier: programs import `<name>.<function>`).
pub const fn is_module_name(name: &str) -> bool {
    let b = name.as_bytes();
    if b.is_empty() || b[0].is_ascii_digit() {
        return false;
    }
    let mut i = 0;
    while i < b.len() {
        if !(b[i].is_ascii_alphanumeric() || b[i] == b'_') {
            return false;
        }
        i += 1;
    }
    true
}

/// Makes this library an IREE VM dynamic module named `name`: exports the entry point
/// `iree_vm_dynamic_module_create` (or the one given as `entry = "..."`) that
/// `iree-run-module --module=lib.so[@entry]` calls. Every `#[export_fn(iree)]` linked into
/// the library joins the module under its export name.
///
/// ```ignore
/// abi_core::iree_module!("mylib");
/// abi_core::iree_module!("mylib", entry = "create_mylib");
/// ```
///
/// Module parameters (`lib.so@entry?abi.messages=off`): `abi.messages=on|off` (default on)
/// chooses between failure messages inside statuses (the layout of the pinned IREE version)
/// and bare status codes with the message on stderr; other `abi.*` keys are refused. On
/// Windows statuses are always bare codes (IREE would free a message block with its own C
/// runtime, which a Rust library cannot be shown to share).
///
/// The module's name and entry point are also a record in the library's file
/// (`abi_shared::IREE_RECORDS_SECTION`), which `abi inspect` reads without running it; a
/// library with `#[export_fn(iree)]` functions and no module makes `abi inspect` and
/// `abi wheel` warn. A proc-macro cannot see whether another item (or another crate) calls
/// `iree_module!`, so forgetting it compiles: IREE then reports
/// `symbol 'iree_vm_dynamic_module_create' not found in library`.
#[macro_export]
macro_rules! iree_module {
    ($name:literal) => {
        $crate::iree_module!($name, entry = "iree_vm_dynamic_module_create");
    };
    ($name:literal, entry = $entry:literal) => {
        const _: () = {
            ::core::assert!(
                $crate::iree::is_module_name($name),
                "an IREE module name must be a C identifier (programs import `<module>.<function>`)"
            );
            #[unsafe(export_name = $entry)]
            unsafe extern "C" fn create(
                max_version: u32,
                _instance: *mut ::core::ffi::c_void,
                param_count: usize,
                params: *const $crate::iree::vm::StringPair,
                _allocator: $crate::iree::vm::Allocator,
                out: *mut *mut $crate::iree::vm::Module,
            ) -> $crate::iree::vm::Status {
                // SAFETY: the host passes `param_count` pairs and a writable `out`.
                unsafe { $crate::iree::module::create($name, max_version, param_count, params, out) }
            }

            const RECORD_LEN: usize = $crate::iree::records::module_record_len($name, $entry);
            $crate::__abi_place! {
                iree_record: static RECORD: [u8; RECORD_LEN] = $crate::iree::records::module_record_bytes::<RECORD_LEN>($name, $entry);
            }
        };
    };
}
