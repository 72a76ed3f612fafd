//! [`Export`]: one `#[export_fn]` function as its shim, the call boundary and the export
//! registry see it: its description, its packed entry, and the texts rendered at compile
//! time (the metadata JSON hosts read, and the signature quoted in error messages). It
//! sits below Function objects, which the boundary serves: `Export::function` is in
//! `link::exports`.

use crate::ffi::SafeCall;
use crate::reflect::FnDesc;
use crate::value::static_str::StaticStr;

/// One `#[export_fn]` function linked into this binary.
#[derive(Debug)]
pub struct Export {
    /// Its signature and docs.
    pub desc: &'static FnDesc,
    /// The packed shim `__tvm_ffi_<name>`.
    pub safe_call: SafeCall,
    /// The metadata JSON returned by `__tvm_ffi__metadata_<name>`, with the signature text
    /// as its trailer.
    pub metadata: &'static StaticStr,
    /// The global registry name (`#[export_fn(global = "mylib.add")]`), if any.
    pub global: Option<&'static str>,
    /// Whether the shim compares its tensor arguments' memory before converting them
    /// ([`FnDesc::checks_overlaps`], computed once at compile time).
    pub checks_overlaps: bool,
    /// How many leading argument slots a call must pass: fewer than the slot count when
    /// trailing parameters have defaults ([`FnDesc::required_slots`]).
    pub required_slots: usize,
}

#[doc(hidden)]
#[linkme::distributed_slice]
pub static EXPORTS: [Export];

impl Export {
    /// The registry entry of an export (for generated code).
    pub const fn new(desc: &'static FnDesc, safe_call: SafeCall, metadata: &'static StaticStr) -> Export {
        Export {
            desc,
            safe_call,
            metadata,
            global: desc.global,
            checks_overlaps: desc.checks_overlaps(),
            required_slots: desc.required_slots(),
        }
    }

    /// The same entry, also registered as the global function `name` when its library
    /// loads.
    pub const fn with_global(self, name: &'static str) -> Export {
        Export { global: Some(name), ..self }
    }

    /// The exported name.
    pub fn name(&self) -> &'static str {
        self.desc.name
    }

    /// The metadata JSON text.
    pub fn metadata_json(&self) -> &'static str {
        core::str::from_utf8(self.metadata.as_bytes()).unwrap_or("{}")
    }

    /// The signature as Python reads it, `add(a: int, b: int) -> int`, rendered at compile
    /// time.
    pub fn signature_text(&self) -> &'static str {
        self.metadata.trailer()
    }
}
