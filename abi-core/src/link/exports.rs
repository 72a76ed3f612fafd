//! The exports linked into this binary, collected at link time (no load-time work), and
//! the exported `__tvm_ffi__abi_exports_json` (`mod["_abi_exports_json"]()` from Python)
//! that lets tools list a library's exports from disk.

use core::ffi::c_void;

use crate::ffi::RawAny;
use crate::runtime::calls::boundary::ffi_boundary;
use crate::runtime::calls::function::Function;
use crate::runtime::process::linked::{linked, sorted_by_name};
use crate::value::string::string_any;

pub use crate::runtime::calls::export_entry::{Export, EXPORTS};

impl Export {
    /// A Function object calling the shim.
    pub fn function(&self) -> Function {
        Function::from_safe_call(self.safe_call)
    }
}

/// Every `#[export_fn]` function linked into this binary, sorted by name.
pub fn exports() -> Vec<&'static Export> {
    sorted_by_name(linked(|| &EXPORTS).iter(), |e| e.name())
}

/// Looks up a linked export by its exported name.
pub fn find_export(name: &str) -> Option<&'static Export> {
    linked(|| &EXPORTS).iter().find(|e| e.name() == name)
}

/// JSON object `{"<name>": <metadata>, ...}` of the exports linked into this binary.
pub fn exports_json() -> String {
    let mut out = String::from("{");
    for (i, e) in exports().iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push('"');
        out.push_str(e.name());
        out.push_str("\":");
        out.push_str(e.metadata_json());
    }
    out.push('}');
    out
}

/// C entry (packed convention): returns [`exports_json`] of the library it is called in,
/// so tools can list a library's exports with their metadata without a host.
///
/// # Safety
/// The packed calling convention: `result` is writable.
#[no_mangle]
pub unsafe extern "C" fn __tvm_ffi__abi_exports_json(
    _handle: *mut c_void,
    _args: *const RawAny,
    _n: i32,
    result: *mut RawAny,
) -> i32 {
    // SAFETY: forwarded from the caller.
    unsafe { ffi_boundary(result, || Ok(string_any(exports_json()))) }
}
