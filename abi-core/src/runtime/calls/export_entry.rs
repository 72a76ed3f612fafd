//! [`Export`]: one `#[export_fn]` function (or object method) as its shim, the call
//! boundary and the export registry see it: its parameters and result type, its packed
//! entry, and its record, the texts rendered at compile time (its name, global name,
//! metadata JSON, signature quoted in error messages and docstring). It sits below Function
//! objects, which the boundary serves: `Export::function` is in `link::exports`.
//!
//! Everything an export keeps at run time is in this one static: what only names or
//! describes it lives in the record, whose bytes need no relocation, so a library pays one
//! pointer for all its texts (issue 29: bytes per export).

use crate::ffi::SafeCall;
use crate::reflect::{FnDesc, OpDesc, ParamDesc, TypeDesc};

/// Which of an export's texts ([`Export::text`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportText {
    /// The exported name.
    Name,
    /// The global registry name, empty when there is none.
    Global,
    /// The metadata JSON.
    Metadata,
    /// The signature quoted in error messages.
    Signature,
    /// The docstring.
    Doc,
}

/// Where an export's texts start in its record (each text ends in NUL, so one ends a byte
/// before the next starts; the global name ends five bytes before the metadata, the body
/// length sitting between), found while rendering them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextOffsets {
    /// The global name's first byte.
    pub global: u32,
    /// The metadata JSON's first byte: the body, whose length precedes it.
    pub metadata: u32,
    /// The signature text's first byte.
    pub signature: u32,
    /// The docstring's first byte.
    pub doc: u32,
}

/// Bytes between the end of the global name's NUL and the metadata JSON: the body length,
/// a little-endian `u32`.
pub const BODY_LENGTH_BYTES: usize = 4;

/// One `#[export_fn]` function linked into this binary.
#[derive(Debug)]
pub struct Export {
    params: &'static [ParamDesc],
    ret: &'static TypeDesc,
    /// The packed shim `__tvm_ffi_<name>`.
    pub safe_call: SafeCall,
    /// The record: `name NUL global NUL len body`, the body (`len` bytes, a little-endian
    /// `u32`) being the metadata JSON returned by `__tvm_ffi__metadata_<name>`, the
    /// signature text and the docstring returned by `__tvm_ffi__doc_<name>`, each ending in
    /// NUL. An export's record is also in the file's `abi_shared::EXPORT_RECORDS_SECTION`.
    texts: &'static [u8],
    at: TextOffsets,
    /// How many leading argument slots a call must pass: fewer than the slot count when
    /// trailing parameters have defaults ([`FnDesc::required_slots`]).
    pub(crate) required_slots: u32,
    /// An op's description (`#[export_fn(op)]`), which the Python door calls ops by.
    op: Option<&'static OpDesc>,
}

#[doc(hidden)]
#[linkme::distributed_slice]
pub static EXPORTS: [Export];

impl Export {
    /// The registry entry of an export described by `desc` whose record is `texts` (for
    /// generated code).
    pub const fn new(desc: &FnDesc, safe_call: SafeCall, texts: &'static [u8], at: TextOffsets) -> Export {
        Export {
            params: desc.params,
            ret: desc.ret,
            safe_call,
            texts,
            at,
            required_slots: desc.required_slots() as u32,
            op: desc.op,
        }
    }

    /// Its description, rebuilt from what the entry keeps (the docstring and an op's
    /// description included; the GIL choice is in the metadata text, `abi.gil`).
    pub fn desc(&self) -> FnDesc {
        let mut desc = FnDesc::new(self.name(), self.params, self.ret, self.doc());
        desc.op = self.op;
        match self.global() {
            Some(global) => desc.with_global(global),
            None => desc,
        }
    }

    /// An op's description (`#[export_fn(op)]`), `None` for any other export.
    pub fn op(&self) -> Option<&'static OpDesc> {
        self.op
    }

    /// Its parameters, in order.
    pub fn params(&self) -> &'static [ParamDesc] {
        self.params
    }

    /// Whether Python callers release the GIL while it runs: as its `abi.gil` says, else
    /// not when every parameter is a number, `bool`, `None`, a string, bytes or a fieldless
    /// enum (or an `Option` of one), and yes otherwise: the rule `Metadata::releases_gil` states, here
    /// on the export's own descriptions (the Python door asks it; parsing the metadata would
    /// link the JSON reader into every library).
    pub fn releases_gil(&self) -> bool {
        let said = |value: &str| {
            let key = abi_shared::GIL_KEY;
            self.metadata_json().contains(&format!("\"{key}\":\"{value}\""))
        };
        if said(abi_shared::GIL_RELEASE) {
            return true;
        }
        if said(abi_shared::GIL_KEEP) {
            return false;
        }
        !self.params.iter().all(|p| short_call_type(p.ty))
    }

    /// The global registry name (`#[export_fn(global = "mylib.add")]`), if any.
    pub fn global(&self) -> Option<&'static str> {
        Some(self.text(ExportText::Global)).filter(|g| !g.is_empty())
    }

    /// The exported name.
    pub fn name(&self) -> &'static str {
        self.text(ExportText::Name)
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

    /// One of the texts (empty if the record is not as [`TextOffsets`] describes).
    pub fn text(&self, which: ExportText) -> &'static str {
        let at = |offset: u32| offset as usize;
        let (global, metadata) = (at(self.at.global), at(self.at.metadata));
        let (signature, doc, end) = (at(self.at.signature), at(self.at.doc), self.texts.len());
        let range = match which {
            ExportText::Name => 0..global.wrapping_sub(1),
            ExportText::Global => global..metadata.wrapping_sub(1 + BODY_LENGTH_BYTES),
            ExportText::Metadata => metadata..signature.wrapping_sub(1),
            ExportText::Signature => signature..doc.wrapping_sub(1),
            ExportText::Doc => doc..end.wrapping_sub(1),
        };
        self.texts.get(range).and_then(|p| core::str::from_utf8(p).ok()).unwrap_or("")
    }
}

/// Whether calls taking only values of `ty` are too short to pay for releasing the GIL:
/// numbers, `bool`, `None`, strings, bytes, and `Option`s of them.
fn short_call_type(ty: &TypeDesc) -> bool {
    match ty {
        TypeDesc::Optional(inner) => short_call_type(inner),
        TypeDesc::Enum(_) => true,
        ty => ty.is_plain(),
    }
}
