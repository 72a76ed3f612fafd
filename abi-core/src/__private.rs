//! Glue for generated code. Not a public API: it may change in any release. Everything the
//! macros emit a path to lives here, so the documented API stays what users write.

pub use crate::convert::call_arg::{ArgSlot, IntoArg};
pub use crate::convert::default_range::{int_default_fits, IntDefault};
pub use crate::convert::enums::{
    default_from_str, enum_any, enum_exact_slot, enum_fast_path, enum_from_arg, enum_json_name, op_scalar_is_enum,
    str_default_names, str_default_suits, StaticStr,
};
pub use crate::convert::export_call::{export, Fallback, Fast, Full, Mode, Outcome, Pass, Passes, Slots};
pub use crate::convert::tagged::tagged_items;
pub use crate::convert::{
    AbiEnum, AbiStruct, AbiType, Expand, FromAny, FromArg, IgnoredArg, IntoAny, ListItem, ReturnValue, SliceElement,
    SliceParam, StructField,
};
pub use crate::ffi::RawAny;
pub use crate::ffi::ResultSink;
pub use crate::link::bound::Bound;
pub use crate::link::exports::{Export, EXPORTS};
pub use crate::link::import::ImportSource;
pub use crate::link::import::{absent, bad_arg, bad_result, Binder};
pub use crate::link::library::Library;
pub use crate::reflect::op::{same_tensor_type as op_same_tensor_type, tensor_rank as op_tensor_rank};
pub use crate::reflect::op_backward::check_backward as op_check_backward;
pub use crate::reflect::render::{
    fn_compact_signature, fn_iree_record, fn_metadata_json, fn_signature_text, fn_type_schema, type_display,
    type_iree_record, type_schema,
};
pub use crate::reflect::type_texts::TypeTexts;
pub use crate::reflect::writer::Writer;
pub use crate::reflect::{
    leaf_count, Access, EnumDesc, ExactSlot, FieldDesc, FnDesc, OpDesc, OpDevice, OpDim, OpOutput, OpRule, ParamDesc,
    StructDesc, TaggedDesc, TypeDesc,
};
pub use crate::runtime::calls::boundary::{ffi_boundary, retry_exact, CallError};
pub use crate::runtime::calls::export_entry::{ExportText, TextOffsets, BODY_LENGTH_BYTES};
pub use crate::runtime::process::attach::own_table as own_runtime_table;
pub use crate::value::any::{Any, AnyView};
pub use crate::value::conv_error::ConvError;
pub use crate::value::conv_error::ReturnError;
pub use crate::value::error::{Error, Result};
// The platform layer's macros (abi-core/src/sys/): where a generated static goes, and code
// run at load.
pub use crate::{__abi_at_load as at_load, __abi_place as place};

pub use crate::convert::errors::{error_of, AbiError, ErrorDesc, ErrorKindDesc};
pub use crate::convert::objects::{get_field, get_shared_field, set_shared_field, FieldGet, SharedField};
pub use crate::runtime::calls::globals::register_globals_at_load;
pub use crate::runtime::object_types::class::{
    register_at_load, registered_layout, ClassSpec, FieldLayout, FieldSpec, MethodSpec, Object, TypeSlot, METHODS,
};
pub use crate::runtime::object_types::class_record::{
    class_record_bytes, class_record_len, error_record_bytes, error_record_len, method_record_bytes, method_record_len,
};
pub use crate::runtime::object_types::obj::{check_init, Obj};

pub use crate::iree::cconv::{
    bad_arg as iree_bad_arg, cconv as iree_cconv, cconv_len as iree_cconv_len, layout as iree_layout,
    read_slot as iree_read_slot, release_slots as iree_release_slots, write_slot as iree_write_slot, IreeArg, IreeKind,
    IreeReturn, IreeScalar, IreeValue, Slot as IreeSlot,
};
pub use crate::iree::hal::HalCall as IreeHalCall;
pub use crate::iree::records::{
    function_record_bytes as iree_function_record_bytes, function_record_len as iree_function_record_len,
};
pub use crate::iree::status::{Failure as IreeFailure, Location as IreeLocation};
pub use crate::iree::vm::{
    Allocator as IreeAllocator, Module as IreeModule, Status as IreeStatus, StringPair as IreeStringPair,
};
pub use crate::iree::{
    any_ref as iree_any_ref, iree_record, iree_record_len, text as iree_text, IreeFunction, IREE_FUNCTIONS,
};

/// A plain parameter's description: `param` is its type's `FromArg::PARAM`.
pub const fn plain(name: &'static str, param: (&'static TypeDesc, Option<ExactSlot>, Access)) -> ParamDesc {
    ParamDesc::plain(name, param)
}

/// An `#[abi(expand)]` parameter's description.
pub const fn expanded(name: &'static str, ty: &'static TypeDesc) -> ParamDesc {
    ParamDesc::expanded(name, ty)
}

/// The `handle` parameter of a packed function (ignored by exports).
pub type Handle = *mut core::ffi::c_void;
/// The `args` parameter of a packed function: `n` argument slots.
pub type ArgsPtr = *const RawAny;
/// The `result` parameter of a packed function: where the result is written.
pub type ResultPtr = *mut RawAny;

use crate::ffi::type_index as ti;
use crate::reflect::type_texts::{assemble, assembles};
use crate::value::array::{seq_slice, Array};

/// Room for an export's texts rendered in one pass: most fit; longer ones are rendered
/// again at their length.
pub const RENDER_ROOM: usize = 4096;

/// An export's record ([`Export`]: `name NUL global NUL len body`, the body being the
/// metadata JSON, the signature text quoted in error messages and the docstring, each
/// ending in NUL, and `len` its length as a little-endian `u32`) rendered once at compile
/// time into [`RENDER_ROOM`] bytes, so the length and the bytes come from one rendering
/// (const evaluation of the renderers is most of what an export costs to compile).
#[derive(Debug)]
pub struct RenderedTexts {
    buf: [u8; RENDER_ROOM],
    len: usize,
    at: TextOffsets,
}

/// Writes `f`'s record ([`RenderedTexts`]) into `buf`, its body from its types' pieces
/// when `pieces` are given and [`assembles`] them, else from the general renderers; returns
/// its length and where its texts start. Bytes past the end of `buf` are counted, not
/// written.
const fn write_record(buf: &mut [u8], f: &FnDesc, pieces: Option<(&[TypeTexts], &TypeTexts)>) -> (usize, TextOffsets) {
    let mut w = Writer::new(buf);
    w.name(f.name);
    w.byte(0);
    let global = w.len();
    if let Some(name) = f.global {
        w.name(name);
    }
    w.byte(0);
    let length_at = w.len();
    w.name("\0\0\0\0");
    let metadata = w.len();
    let (signature, doc) = match pieces {
        Some((params, ret)) if assembles(f, params, ret) => assemble(&mut w, f, params, ret),
        _ => write_body(&mut w, f),
    };
    let len = w.len();
    assert!(len <= u32::MAX as usize, "an export's texts are under 4 GiB");
    let body = ((len - metadata) as u32).to_le_bytes();
    let mut i = 0;
    while i < BODY_LENGTH_BYTES && length_at + i < buf.len() {
        buf[length_at + i] = body[i];
        i += 1;
    }
    let at =
        TextOffsets { global: global as u32, metadata: metadata as u32, signature: signature as u32, doc: doc as u32 };
    (len, at)
}

// The body through the general renderers: returns where the signature text and the
// docstring start.
const fn write_body(w: &mut Writer, f: &FnDesc) -> (usize, usize) {
    fn_metadata_json(w, f);
    w.byte(0);
    let signature = w.len();
    fn_signature_text(w, f);
    w.byte(0);
    let doc = w.len();
    w.str(f.doc);
    w.byte(0);
    (signature, doc)
}

/// Renders `f`'s record once (see [`RenderedTexts`]); `params` and `ret` are its parameter
/// and result types' pieces (`FromArg::TEXTS`, `ReturnValue::TEXTS`), which it copies
/// when it can (`reflect::type_texts::assemble`).
pub const fn render_export_texts(f: &FnDesc, params: &[TypeTexts], ret: &TypeTexts) -> RenderedTexts {
    let mut buf = [0u8; RENDER_ROOM];
    let (len, at) = write_record(&mut buf, f, Some((params, ret)));
    RenderedTexts { buf, len, at }
}

impl RenderedTexts {
    /// Length of the record.
    pub const fn len(&self) -> usize {
        self.len
    }

    /// Where its texts start.
    pub const fn offsets(&self) -> TextOffsets {
        self.at
    }

    /// Whether there are none (never: each text ends in NUL).
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The record's bytes, when it fit the room.
    #[cfg(test)]
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }

    /// The record as `N` (= [`len`](RenderedTexts::len)) bytes: the rendering itself, or a
    /// second rendering when it did not fit the room.
    pub const fn texts<const N: usize>(&self, f: &FnDesc) -> [u8; N] {
        assert!(N == self.len, "texts length changed between passes");
        let mut out = [0u8; N];
        if N > RENDER_ROOM {
            let (len, at) = write_record(&mut out, f, None);
            assert!(len == N && at.signature == self.at.signature, "texts length changed between passes");
            return out;
        }
        let (head, _) = self.buf.split_at(N);
        // SAFETY: `head` and `out` are both `N` bytes and distinct.
        unsafe { core::ptr::copy_nonoverlapping(head.as_ptr(), out.as_mut_ptr(), N) };
        out
    }
}

/// The elements of a struct passed as a tuple: an Array/List of exactly `len` items.
#[inline]
pub fn struct_items<'a>(
    v: &'a AnyView<'a>,
    desc: &'static TypeDesc,
    name: &'static str,
    len: usize,
) -> Result<&'a [AnyView<'a>], ConvError> {
    let ty = v.type_index();
    if (ty != ti::ARRAY && ty != ti::LIST) || v.raw().ptr().is_null() {
        return Err(ConvError::refused(desc, v.raw()));
    }
    // SAFETY: an Array/List object borrowed by the view for 'a.
    let items = unsafe { seq_slice(v.raw().ptr().cast()) };
    if items.len() != len {
        return Err(ConvError::Length { what: name, expected: len, got: items.len() });
    }
    Ok(items)
}

/// Names the field a conversion failure happened in.
#[cold]
pub fn in_field(owner: &'static str, field: &'static str, inner: ConvError) -> ConvError {
    ConvError::Field { owner, field, inner: Box::new(inner) }
}

/// A struct's fields, in declaration order, as one Array object.
pub fn struct_any(fields: Vec<Any>) -> Any {
    Any::from(Array::new(fields))
}

/// Returns one of an export's texts from its metadata or doc function (a new string:
/// hosts ask once per function).
///
/// # Safety
/// `result` is null or writable.
#[inline(always)]
pub unsafe fn return_export_text(export: &'static Export, which: ExportText, result: *mut RawAny) -> i32 {
    // SAFETY: forwarded from the caller.
    unsafe { ffi_boundary(result, || Any::from_value(export.text(which))) }
}

/// The body of an export's `__tvm_ffi__metadata_<name>`: [`return_export_text`] of its
/// metadata JSON. It takes the shim's parameters first, in their order, and cannot unwind
/// (`extern "C"`), so the shim is one jump: no frame, no landing pad, no unwind table entry
/// of its own beyond the plain one.
///
/// # Safety
/// `result` is null or writable.
#[inline(never)]
pub unsafe extern "C" fn return_metadata(
    _: Handle,
    _: ArgsPtr,
    _: i32,
    result: ResultPtr,
    export: &'static Export,
) -> i32 {
    // SAFETY: forwarded from the caller.
    unsafe { return_export_text(export, ExportText::Metadata, result) }
}

/// The body of an export's `__tvm_ffi__doc_<name>`: [`return_export_text`] of its
/// docstring, called as [`return_metadata`] is.
///
/// # Safety
/// `result` is null or writable.
#[inline(never)]
pub unsafe extern "C" fn return_doc(_: Handle, _: ArgsPtr, _: i32, result: ResultPtr, export: &'static Export) -> i32 {
    // SAFETY: forwarded from the caller.
    unsafe { return_export_text(export, ExportText::Doc, result) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reflect::{ParamDesc, TypeDesc};

    const I64: TypeDesc = TypeDesc::Int { bits: 64, signed: true };
    const PARAMS: &[ParamDesc] = &[ParamDesc::new("a", &I64), ParamDesc::new("b", &I64)];
    const LONG_NAME: &str = match core::str::from_utf8(&[b'x'; 5000]) {
        Ok(s) => s,
        Err(_) => panic!(),
    };

    // `f`'s record written out by hand from the general renderers.
    fn record_of(f: &FnDesc) -> Vec<u8> {
        let body = Writer::render(|w| {
            fn_metadata_json(w, f);
            w.byte(0);
            fn_signature_text(w, f);
            w.byte(0);
            w.str(f.doc);
            w.byte(0);
        });
        let mut out = [f.name.as_bytes(), b"\0", f.global.unwrap_or("").as_bytes(), b"\0"].concat();
        out.extend((body.len() as u32).to_le_bytes());
        out.extend(body.as_bytes());
        out
    }

    fn both(f: &FnDesc) {
        let rendered = render_export_texts(f, &[], &TypeTexts::NONE);
        let record = record_of(f);
        assert_eq!(rendered.len(), record.len());
        if rendered.len() <= RENDER_ROOM {
            assert_eq!(rendered.bytes(), record);
        }
    }

    #[test]
    fn an_export_reads_back_each_of_its_texts() {
        const DESC: FnDesc = FnDesc::new("add", PARAMS, &I64, "Adds.\0Then more.");
        const N: usize = render_export_texts(&DESC, &[], &TypeTexts::NONE).len();
        static TEXTS: [u8; N] = render_export_texts(&DESC, &[], &TypeTexts::NONE).texts::<N>(&DESC);
        unsafe extern "C" fn shim(_: Handle, _: ArgsPtr, _: i32, _: ResultPtr) -> i32 {
            0
        }
        static EXPORT: Export =
            Export::new(&DESC, shim, &TEXTS, render_export_texts(&DESC, &[], &TypeTexts::NONE).offsets());
        assert_eq!(EXPORT.name(), "add");
        assert_eq!(EXPORT.global(), None);
        assert_eq!(EXPORT.metadata_json(), DESC.metadata_json());
        assert_eq!(EXPORT.signature_text(), "add(a: int, b: int) -> int");
        assert_eq!(EXPORT.params().len(), 2);
        assert_eq!(format!("{:?}", EXPORT.desc()), format!("{DESC:?}"));
        // A NUL inside the docstring does not cut it short.
        assert_eq!(EXPORT.doc(), "Adds.\0Then more.");
        let mut out = RawAny::NONE;
        // SAFETY: `out` is writable and holds None.
        assert_eq!(unsafe { return_doc(core::ptr::null_mut(), core::ptr::null(), 0, &mut out, &EXPORT) }, 0);
        // SAFETY: written by the call above.
        let doc = unsafe { Any::from_raw(out) };
        assert_eq!(doc.to::<String>().unwrap(), "Adds.\0Then more.");
    }

    #[test]
    fn a_global_export_reads_back_its_global_name() {
        const DESC: FnDesc = FnDesc::new("add", PARAMS, &I64, "").with_global("mylib.add");
        const N: usize = render_export_texts(&DESC, &[], &TypeTexts::NONE).len();
        static TEXTS: [u8; N] = render_export_texts(&DESC, &[], &TypeTexts::NONE).texts::<N>(&DESC);
        unsafe extern "C" fn shim(_: Handle, _: ArgsPtr, _: i32, _: ResultPtr) -> i32 {
            0
        }
        static EXPORT: Export =
            Export::new(&DESC, shim, &TEXTS, render_export_texts(&DESC, &[], &TypeTexts::NONE).offsets());
        assert_eq!((EXPORT.name(), EXPORT.global(), EXPORT.doc()), ("add", Some("mylib.add"), ""));
        assert_eq!(EXPORT.metadata_json(), DESC.metadata_json());
        assert!(EXPORT.metadata_json().contains(r#""abi.global":"mylib.add""#));
        assert_eq!(format!("{:?}", EXPORT.desc()), format!("{DESC:?}"));
        both(&DESC);
    }

    #[test]
    fn one_rendering_gives_the_texts_of_two_and_long_ones_fall_back() {
        both(&FnDesc::new("add", PARAMS, &I64, "Adds."));
        // Texts longer than the room (a 5,000-byte parameter name): the length is still
        // exact, and `texts` renders again.
        static LONG: FnDesc = FnDesc::new("add", &[ParamDesc::new(LONG_NAME, &I64)], &I64, "");
        both(&LONG);
        const N: usize = render_export_texts(&LONG, &[], &TypeTexts::NONE).len();
        const TEXTS: [u8; N] = render_export_texts(&LONG, &[], &TypeTexts::NONE).texts::<N>(&LONG);
        let mut again = [0u8; N];
        assert_eq!(write_record(&mut again, &LONG, None).0, N);
        assert_eq!(TEXTS, again);
        const { assert!(N > RENDER_ROOM) };
    }
}
