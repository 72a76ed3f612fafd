//! [`Export`]: one `#[export_fn]` function as its shim, the call boundary and the export
//! registry see it: its description, its packed entry, and the texts rendered at compile
//! time (the metadata JSON hosts read, the signature quoted in error messages, and the
//! docstring). It
//! sits below Function objects, which the boundary serves: `Export::function` is in
//! `link::exports`.

use crate::ffi::SafeCall;
use crate::reflect::FnDesc;

/// Which of an export's texts ([`Export::texts`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportText {
    /// The metadata JSON.
    Metadata,
    /// The signature quoted in error messages.
    Signature,
    /// The docstring.
    Doc,
}

/// Where an export's signature text and docstring start in its texts (each text ends in
/// NUL, so one ends a byte before the next starts), found while rendering them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextOffsets {
    /// The signature text's first byte.
    pub signature: u32,
    /// The docstring's first byte.
    pub doc: u32,
}

/// One `#[export_fn]` function linked into this binary.
#[derive(Debug)]
pub struct Export {
    /// Its signature (without its docs: they are [`Export::doc`]).
    pub desc: &'static FnDesc,
    /// The packed shim `__tvm_ffi_<name>`.
    pub safe_call: SafeCall,
    /// The texts rendered at compile time, each ending in NUL: the metadata JSON returned by
    /// `__tvm_ffi__metadata_<name>`, the signature text quoted in error messages, and the
    /// docstring returned by `__tvm_ffi__doc_<name>` (for exports, also the data symbol
    /// `__tvm_ffi__abi_meta_<name>`).
    pub texts: &'static [u8],
    /// Where the signature text and the docstring start in [`Export::texts`].
    pub at: TextOffsets,
    /// How many leading argument slots a call must pass: fewer than the slot count when
    /// trailing parameters have defaults ([`FnDesc::required_slots`]).
    pub required_slots: u32,
}

#[doc(hidden)]
#[linkme::distributed_slice]
pub static EXPORTS: [Export];

impl Export {
    /// The registry entry of an export (for generated code).
    pub const fn new(desc: &'static FnDesc, safe_call: SafeCall, texts: &'static [u8], at: TextOffsets) -> Export {
        Export { desc, safe_call, texts, at, required_slots: desc.required_slots() as u32 }
    }

    /// The global registry name (`#[export_fn(global = "mylib.add")]`), if any.
    pub fn global(&self) -> Option<&'static str> {
        self.desc.global
    }

    /// The exported name.
    pub fn name(&self) -> &'static str {
        self.desc.name
    }

    /// The metadata JSON text.
    pub fn metadata_json(&self) -> &'static str {
        self.text(ExportText::Metadata)
    }

    /// The signature as Python reads it, `add(a: int, b: int) -> int`, rendered at compile
    /// time.
    pub fn signature_text(&self) -> &'static str {
        self.text(ExportText::Signature)
    }

    /// The docstring (`///` comments), empty when there is none.
    pub fn doc(&self) -> &'static str {
        self.text(ExportText::Doc)
    }

    /// One of the texts (empty if they are not as [`Export::texts`] and [`Export::at`]
    /// describe).
    pub fn text(&self, which: ExportText) -> &'static str {
        let (sig, doc, end) = (self.at.signature as usize, self.at.doc as usize, self.texts.len());
        let range = match which {
            ExportText::Metadata => 0..sig.wrapping_sub(1),
            ExportText::Signature => sig..doc.wrapping_sub(1),
            ExportText::Doc => doc..end.wrapping_sub(1),
        };
        self.texts.get(range).and_then(|p| core::str::from_utf8(p).ok()).unwrap_or("")
    }
}
