//! `const fn` renderers: IREE records, tvm-ffi `type_schema`, Python-style display names,
//! the compact raw-ABI signature, and the per-function metadata JSON.

use super::writer::{lit, Writer};
use abi_shared::vocab::{iree, Kind};

use crate::ffi::{code, code_name};

use super::{EnumDesc, FnDesc, OpDim, OpRule, ParamDesc, TypeDesc};

// `"name"`.
const fn quoted(w: &mut Writer, name: &str) {
    w.byte(b'"');
    w.str(name);
    w.byte(b'"');
}

// `["tag",` (the caller writes the rest and the `]`).
const fn open_list(w: &mut Writer, tag: &str) {
    w.byte(b'[');
    quoted(w, tag);
}

// The record name of a kind with one (`abi_shared::vocab`), else `"unknown"`.
const fn iree_name(kind: Kind) -> &'static str {
    match kind.iree() {
        Some(name) => name,
        None => iree::UNKNOWN,
    }
}

/// Writes the IREE function-ABI type record of `ty` (docs/ABI.md section 6), with the
/// names and tags of `abi_shared::vocab`.
pub const fn type_iree_record(w: &mut Writer, ty: &TypeDesc) {
    match ty {
        TypeDesc::None => w.str("null"),
        TypeDesc::Int { bits, signed } => {
            w.str(if *signed { "\"i" } else { "\"u" });
            w.uint(*bits as usize);
            w.byte(b'"');
        }
        TypeDesc::Float { bits: 16, brain: true } => w.str("\"bf16\""),
        TypeDesc::Float { bits, .. } => {
            w.str("\"f");
            w.uint(*bits as usize);
            w.byte(b'"');
        }
        TypeDesc::Tensor { elem, rank, .. } => {
            open_list(w, iree_name(Kind::Tensor));
            w.byte(b',');
            match elem {
                Some(e) => type_iree_record(w, e),
                None => quoted(w, iree::UNKNOWN),
            }
            match rank {
                Some(r) => {
                    w.byte(b',');
                    w.uint(*r as usize);
                    let mut i = 0;
                    while i < *r {
                        w.str(",null");
                        i += 1;
                    }
                }
                None => w.str(",null"),
            }
            w.byte(b']');
        }
        // An `ffi.List` is recorded as the list it holds, an `ffi.Dict` as the map.
        TypeDesc::FfiList(t) => {
            open_list(w, iree_name(Kind::Array));
            w.byte(b',');
            type_iree_record(w, t);
            w.byte(b']');
        }
        TypeDesc::Optional(t) | TypeDesc::List(t) => {
            open_list(w, iree_name(ty.kind().unwrap()));
            w.byte(b',');
            type_iree_record(w, t);
            w.byte(b']');
        }
        TypeDesc::Tuple(items) => {
            open_list(w, iree_name(Kind::Tuple));
            let mut i = 0;
            while i < items.len() {
                w.byte(b',');
                type_iree_record(w, items[i]);
                i += 1;
            }
            w.byte(b']');
        }
        TypeDesc::Map(k, v) | TypeDesc::FfiDict(k, v) => {
            open_list(w, iree_name(Kind::Map));
            w.byte(b',');
            type_iree_record(w, k);
            w.byte(b',');
            type_iree_record(w, v);
            w.byte(b']');
        }
        TypeDesc::Struct(s) => {
            open_list(w, if s.tuple_like { iree_name(Kind::Tuple) } else { iree::STRUCT });
            let mut i = 0;
            while i < s.fields.len() {
                w.byte(b',');
                if s.tuple_like {
                    type_iree_record(w, s.fields[i].ty);
                } else {
                    w.byte(b'[');
                    w.json_string(s.fields[i].name);
                    w.byte(b',');
                    type_iree_record(w, s.fields[i].ty);
                    w.byte(b']');
                }
                i += 1;
            }
            w.byte(b']');
        }
        TypeDesc::Class { key } => {
            open_list(w, iree::OBJECT);
            w.byte(b',');
            w.json_string(key);
            w.byte(b']');
        }
        // Bool, strings and bytes have names; the rest are unknown to IREE.
        leaf => match leaf.kind() {
            Some(kind) => quoted(w, iree_name(kind)),
            None => quoted(w, iree::UNKNOWN),
        },
    }
}

// `"a","b"`.
const fn json_list(w: &mut Writer, items: &[&str]) {
    let mut i = 0;
    while i < items.len() {
        if i > 0 {
            w.byte(b',');
        }
        w.json_string(items[i]);
        i += 1;
    }
}

const fn schema_leaf(w: &mut Writer, key: &str) {
    w.lit(lit!("{\"type\":\""));
    w.name(key);
    w.lit(lit!("\"}"));
}

const fn schema_args(w: &mut Writer, key: &str, args: &[&TypeDesc]) {
    w.lit(lit!("{\"type\":\""));
    w.name(key);
    w.lit(lit!("\",\"args\":["));
    let mut i = 0;
    while i < args.len() {
        if i > 0 {
            w.byte(b',');
        }
        type_schema(w, args[i]);
        i += 1;
    }
    w.name("]}");
}

/// Writes the tvm-ffi `type_schema` fragment of `ty`, as the C++ `TypeTraits` write it,
/// with the keys of `abi_shared::vocab`.
pub const fn type_schema(w: &mut Writer, ty: &TypeDesc) {
    match ty {
        TypeDesc::Callable { params, ret } => {
            w.lit(lit!("{\"type\":\""));
            w.name(Kind::Callable.key());
            w.lit(lit!("\",\"args\":["));
            type_schema(w, ret);
            let mut i = 0;
            while i < params.len() {
                w.byte(b',');
                type_schema(w, params[i]);
                i += 1;
            }
            w.name("]}");
        }
        TypeDesc::Class { key } => schema_leaf(w, key),
        TypeDesc::Tensor { elem, rank, cast } => {
            w.lit(lit!("{\"type\":\""));
            w.name(Kind::Tensor.key());
            w.byte(b'"');
            if let Some(dtype) = match elem {
                Some(e) => e.dtype(),
                None => None,
            } {
                w.lit(lit!(",\""));
                w.name(abi_shared::TENSOR_DTYPE_KEY);
                w.lit(lit!("\":\""));
                w.name(code_name(dtype.code));
                if dtype.code != code::BOOL {
                    w.uint(dtype.bits as usize);
                }
                w.byte(b'"');
            }
            if let Some(rank) = rank {
                w.lit(lit!(",\""));
                w.name(abi_shared::TENSOR_NDIM_KEY);
                w.lit(lit!("\":"));
                w.uint(*rank as usize);
            }
            if *cast {
                w.lit(lit!(",\""));
                w.name(abi_shared::TENSOR_CAST_KEY);
                w.lit(lit!("\":\""));
                w.name(abi_shared::TENSOR_CAST_SAME_KIND);
                w.byte(b'"');
            }
            w.byte(b'}');
        }
        TypeDesc::Optional(t) => schema_args(w, Kind::Optional.key(), &[*t]),
        TypeDesc::List(t) => schema_args(w, Kind::Array.key(), &[*t]),
        TypeDesc::Tuple(items) => schema_args(w, Kind::Tuple.key(), items),
        TypeDesc::Map(k, v) => schema_args(w, Kind::Map.key(), &[*k, *v]),
        TypeDesc::FfiList(t) => schema_args(w, Kind::List.key(), &[*t]),
        TypeDesc::Variant(items) => schema_args(w, Kind::Variant.key(), items),
        TypeDesc::FfiDict(k, v) => schema_args(w, Kind::Dict.key(), &[*k, *v]),
        TypeDesc::Struct(s) => {
            w.lit(lit!("{\"type\":\""));
            w.name(Kind::Tuple.key());
            w.lit(lit!("\",\"args\":["));
            let mut i = 0;
            while i < s.fields.len() {
                if i > 0 {
                    w.byte(b',');
                }
                type_schema(w, s.fields[i].ty);
                i += 1;
            }
            w.byte(b']');
            // A named struct says its name and field names (tvm-ffi skips the keys).
            if !s.tuple_like {
                w.lit(lit!(",\""));
                w.name(abi_shared::STRUCT_NAME_KEY);
                w.lit(lit!("\":"));
                w.json_string(s.name);
                w.lit(lit!(",\""));
                w.name(abi_shared::STRUCT_FIELDS_KEY);
                w.lit(lit!("\":["));
                let mut i = 0;
                while i < s.fields.len() {
                    if i > 0 {
                        w.byte(b',');
                    }
                    w.json_string(s.fields[i].name);
                    i += 1;
                }
                w.byte(b']');
            }
            w.byte(b'}');
        }
        // A fieldless enum is the string it crosses as, with its name and names (tvm-ffi
        // skips the keys).
        TypeDesc::Enum(e) => {
            w.lit(lit!("{\"type\":\""));
            w.name(Kind::Str.key());
            w.lit(lit!("\",\""));
            enum_keys(w, e);
            w.byte(b'}');
        }
        // An enum with data is the `Variant` of its variants' tuples (each its name, a
        // string, then its fields), with its names and field names (tvm-ffi skips the keys).
        TypeDesc::Tagged(t) => {
            w.lit(lit!("{\"type\":\""));
            w.name(Kind::Variant.key());
            w.lit(lit!("\",\"args\":["));
            let mut i = 0;
            while i < t.variants.len() {
                if i > 0 {
                    w.byte(b',');
                }
                w.lit(lit!("{\"type\":\""));
                w.name(Kind::Tuple.key());
                w.lit(lit!("\",\"args\":["));
                schema_leaf(w, Kind::Str.key());
                let fields = t.variants[i].fields;
                let mut j = 0;
                while j < fields.len() {
                    w.byte(b',');
                    type_schema(w, fields[j].ty);
                    j += 1;
                }
                w.lit(lit!("]}"));
                i += 1;
            }
            w.lit(lit!("],\""));
            enum_keys(w, &t.tags);
            w.lit(lit!(",\""));
            w.name(abi_shared::TAGGED_FIELDS_KEY);
            w.lit(lit!("\":["));
            let mut i = 0;
            while i < t.variants.len() {
                if i > 0 {
                    w.byte(b',');
                }
                w.byte(b'[');
                let fields = t.variants[i].fields;
                let mut j = 0;
                while j < fields.len() {
                    if j > 0 {
                        w.byte(b',');
                    }
                    w.json_string(fields[j].name);
                    j += 1;
                }
                w.byte(b']');
                i += 1;
            }
            w.lit(lit!("]}"));
        }
        // The remaining kinds take no type arguments (widths, dtype and rank are not
        // published in `type_schema`).
        leaf => {
            if let Some(kind) = leaf.kind() {
                schema_leaf(w, kind.key());
            }
        }
    }
}

// `abi.enum":"Name","abi.names":[...],"abi.variants":[...]`: an enum's keys, after an
// opening quote.
const fn enum_keys(w: &mut Writer, e: &EnumDesc) {
    w.name(abi_shared::ENUM_NAME_KEY);
    w.lit(lit!("\":"));
    w.json_string(e.name);
    w.lit(lit!(",\""));
    w.name(abi_shared::ENUM_NAMES_KEY);
    w.lit(lit!("\":["));
    json_list(w, e.names);
    w.lit(lit!("],\""));
    w.name(abi_shared::ENUM_VARIANTS_KEY);
    w.lit(lit!("\":["));
    json_list(w, e.variants);
    w.byte(b']');
}

// `head[a, b]`.
const fn display_list(w: &mut Writer, head: &str, items: &[&TypeDesc]) {
    w.str(head);
    w.byte(b'[');
    let mut i = 0;
    while i < items.len() {
        if i > 0 {
            w.str(", ");
        }
        type_display(w, items[i]);
        i += 1;
    }
    w.byte(b']');
}

/// Writes the Python-style name of `ty` used in error messages (`int`, `list[str]`...),
/// with the names of `abi_shared::vocab`.
pub const fn type_display(w: &mut Writer, ty: &TypeDesc) {
    if let Some(name) = ty.simple_display() {
        w.str(name);
        return;
    }
    match ty {
        TypeDesc::Callable { params, ret } => {
            w.str(Kind::Callable.python());
            w.byte(b'[');
            display_list(w, "", params);
            w.str(", ");
            type_display(w, ret);
            w.byte(b']');
        }
        TypeDesc::Tensor { elem: Some(e), rank, .. } => {
            w.str(Kind::Tensor.python());
            w.byte(b'[');
            match e {
                TypeDesc::Bool => w.str(Kind::Bool.python()),
                _ => type_iree_name(w, e),
            }
            if let Some(rank) = rank {
                w.str(", ");
                w.uint(*rank as usize);
            }
            w.byte(b']');
        }
        TypeDesc::Optional(t) => display_list(w, Kind::Optional.python(), &[*t]),
        TypeDesc::List(t) => display_list(w, Kind::Array.python(), &[*t]),
        TypeDesc::Tuple(items) => display_list(w, Kind::Tuple.python(), items),
        TypeDesc::Map(k, v) => display_list(w, Kind::Map.python(), &[*k, *v]),
        TypeDesc::FfiList(t) => display_list(w, Kind::List.python(), &[*t]),
        TypeDesc::Variant(items) => display_list(w, Kind::Variant.python(), items),
        TypeDesc::FfiDict(k, v) => display_list(w, Kind::Dict.python(), &[*k, *v]),
        // A tuple struct crosses, and is published, as the tuple of its fields: no name.
        TypeDesc::Struct(s) => {
            w.str(Kind::Tuple.python());
            w.byte(b'[');
            let mut i = 0;
            while i < s.fields.len() {
                if i > 0 {
                    w.str(", ");
                }
                type_display(w, s.fields[i].ty);
                i += 1;
            }
            w.byte(b']');
        }
        _ => w.str("?"),
    }
}

impl TypeDesc {
    /// The Python-style name of a type that has no parameters in it (`int`, `Tensor`, a
    /// named struct's name, as its published `type_schema` names it); `None` for composite
    /// types and tuple structs, which [`type_display`] writes.
    pub const fn simple_display(&self) -> Option<&'static str> {
        match self {
            TypeDesc::Struct(s) if s.tuple_like => None,
            TypeDesc::Struct(s) => Some(s.name),
            TypeDesc::Enum(e) => Some(e.name),
            TypeDesc::Tagged(t) => Some(t.tags.name),
            TypeDesc::Class { key } => Some(key),
            TypeDesc::Callable { .. }
            | TypeDesc::Tensor { elem: Some(_), .. }
            | TypeDesc::Optional(_)
            | TypeDesc::List(_)
            | TypeDesc::Tuple(_)
            | TypeDesc::Map(..)
            | TypeDesc::FfiList(_)
            | TypeDesc::FfiDict(..)
            | TypeDesc::Variant(_) => None,
            leaf => match leaf.kind() {
                Some(kind) => Some(kind.python()),
                None => None,
            },
        }
    }
}

// The unquoted scalar record (`f32`) used inside `Tensor[...]`.
const fn type_iree_name(w: &mut Writer, ty: &TypeDesc) {
    let mut buf = [0u8; 8];
    let mut inner = Writer::new(&mut buf);
    type_iree_record(&mut inner, ty);
    let n = inner.len();
    if n >= 2 && n <= buf.len() && buf[0] == b'"' {
        let mut i = 1;
        while i + 1 < n {
            w.byte(buf[i]);
            i += 1;
        }
    } else {
        w.str("?");
    }
}

/// Raw-function scalar type codes (docs/ABI.md section 7); bool is encoded as i8.
const fn compact_scalar_code(ty: &TypeDesc) -> Option<usize> {
    Some(match ty {
        TypeDesc::Float { bits: 32, .. } => 0,
        TypeDesc::Float { bits: 16, brain: false } => 1,
        TypeDesc::Float { bits: 64, .. } => 2,
        TypeDesc::Float { bits: 16, brain: true } => 3,
        TypeDesc::Bool => 4,
        TypeDesc::Int { bits, signed: true } => 4 + (*bits as usize).trailing_zeros() as usize - 3,
        TypeDesc::Int { bits, signed: false } => 8 + (*bits as usize).trailing_zeros() as usize - 3,
        _ => return None,
    })
}

const fn compact_type_code(w: &mut Writer, code: usize) {
    if code != 0 {
        w.byte(b't');
        w.uint(code);
    }
}

// `<len(p)+1> '!' p`: renders `p` twice, once to count.
const fn length_prefixed_type(w: &mut Writer, tag: u8, ty: &TypeDesc) {
    let mut count = Writer::new(&mut []);
    compact_body(&mut count, ty);
    w.byte(tag);
    w.uint(count.len() + 1);
    w.byte(b'!');
    compact_body(w, ty);
}

const fn compact_body(w: &mut Writer, ty: &TypeDesc) {
    match ty {
        TypeDesc::Tensor { elem: Some(e), rank, .. } => {
            if let Some(code) = compact_scalar_code(e) {
                compact_type_code(w, code);
            }
            if let Some(r) = rank {
                let mut i = 0;
                while i < *r {
                    w.str("d-1");
                    i += 1;
                }
            }
        }
        _ => {
            if let Some(code) = compact_scalar_code(ty) {
                compact_type_code(w, code);
            }
        }
    }
}

/// Writes the compact code of one type: `S..` scalar, `B..` buffer, `O` object, `U` unknown.
pub(crate) const fn compact_type(w: &mut Writer, ty: &TypeDesc) {
    match ty {
        TypeDesc::Tensor { elem: Some(e), .. } if compact_scalar_code(e).is_some() => length_prefixed_type(w, b'B', ty),
        TypeDesc::Any => w.byte(b'U'),
        TypeDesc::None => {}
        _ if compact_scalar_code(ty).is_some() => length_prefixed_type(w, b'S', ty),
        _ => w.byte(b'O'),
    }
}

/// How [`slots`] writes each argument slot.
#[derive(Clone, Copy)]
enum SlotMode {
    IreeNamed,
    Schema,
    Display,
    Compact,
    Name,
}

/// A dotted path of names (`p.x`) kept on the stack during expansion.
struct Path<'a> {
    name: &'static str,
    parent: Option<&'a Path<'a>>,
}

const fn write_path(w: &mut Writer, p: &Path) {
    if let Some(parent) = p.parent {
        write_path(w, parent);
        w.byte(b'.');
    }
    w.str(p.name);
}

const fn slot(w: &mut Writer, path: &Path, ty: &TypeDesc, mode: SlotMode, first: bool) {
    match mode {
        SlotMode::Compact => {}
        SlotMode::Display => {
            if !first {
                w.str(", ");
            }
        }
        _ => {
            if !first {
                w.byte(b',');
            }
        }
    }
    match mode {
        SlotMode::IreeNamed => {
            open_list(w, iree::NAMED);
            w.str(",\"");
            write_path(w, path);
            w.str("\",");
            type_iree_record(w, ty);
            w.byte(b']');
        }
        SlotMode::Schema => type_schema(w, ty),
        SlotMode::Display => {
            write_path(w, path);
            w.str(": ");
            type_display(w, ty);
        }
        SlotMode::Compact => compact_type(w, ty),
        SlotMode::Name => {
            w.byte(b'"');
            write_path(w, path);
            w.byte(b'"');
        }
    }
}

// Visits the leaves of an expanded struct depth-first; returns whether a slot was written.
const fn leaves(w: &mut Writer, path: &Path, ty: &TypeDesc, mode: SlotMode, first: bool) -> bool {
    match ty {
        TypeDesc::Struct(s) => {
            let mut wrote = false;
            let mut i = 0;
            while i < s.fields.len() {
                let f = &s.fields[i];
                let child = Path { name: f.name, parent: Some(path) };
                if leaves(w, &child, f.ty, mode, first && !wrote) {
                    wrote = true;
                }
                i += 1;
            }
            wrote
        }
        _ => {
            slot(w, path, ty, mode, first);
            true
        }
    }
}

const fn slots(w: &mut Writer, params: &[ParamDesc], mode: SlotMode) {
    let mut first = true;
    let mut i = 0;
    while i < params.len() {
        let p = &params[i];
        let path = Path { name: p.name, parent: None };
        if p.expand {
            if leaves(w, &path, p.ty, mode, first) {
                first = false;
            }
        } else {
            slot(w, &path, p.ty, mode, first);
            if let (SlotMode::Display, Some(json)) = (mode, p.default) {
                w.str(" = ");
                python_literal(w, json);
            }
            first = false;
        }
        i += 1;
    }
}

/// Writes a default's JSON text as Python writes the value: `None`, `True`, `False`, and
/// numbers and strings unchanged (JSON's string escapes are Python's).
const fn python_literal(w: &mut Writer, json: &str) {
    w.str(match json.as_bytes() {
        b"null" => "None",
        b"true" => "True",
        b"false" => "False",
        _ => json,
    });
}

/// Writes `name(a: int, b: int) -> int`, the signature quoted in error messages.
pub const fn fn_signature_text(w: &mut Writer, f: &FnDesc) {
    w.str(f.name);
    w.byte(b'(');
    slots(w, f.params, SlotMode::Display);
    w.str(") -> ");
    type_display(w, f.ret);
}

/// Writes the IREE record `{"a":[...],"r":[...],"v":1}` with named arguments.
pub const fn fn_iree_record(w: &mut Writer, f: &FnDesc) {
    iree_record(w, f, false);
}

/// [`fn_iree_record`] of an IREE VM function: a tuple result is several results, one
/// record each (`"r":["f32","i64"]`), as IREE's function ABI lists them.
pub const fn fn_iree_module_record(w: &mut Writer, f: &FnDesc) {
    iree_record(w, f, true);
}

const fn iree_record(w: &mut Writer, f: &FnDesc, tuple_is_results: bool) {
    w.str("{\"a\":[");
    slots(w, f.params, SlotMode::IreeNamed);
    w.str("],\"r\":[");
    match f.ret {
        TypeDesc::None => {}
        TypeDesc::Tuple(items) if tuple_is_results => {
            let mut i = 0;
            while i < items.len() {
                if i > 0 {
                    w.byte(b',');
                }
                type_iree_record(w, items[i]);
                i += 1;
            }
        }
        ret => type_iree_record(w, ret),
    }
    w.str("],\"v\":1}");
}

/// Writes the tvm-ffi function `type_schema` as the official C++ export macro does.
pub const fn fn_type_schema(w: &mut Writer, f: &FnDesc) {
    fn_type_schema_head(w);
    type_schema(w, f.ret);
    w.lit(lit!("],\"params\":["));
    slots(w, f.params, SlotMode::Schema);
    w.name("]}}");
}

/// What [`fn_type_schema`] writes before the result's schema.
pub(crate) const fn fn_type_schema_head(w: &mut Writer) {
    w.lit(lit!("{\"type\":\""));
    w.name(Kind::Callable.key());
    w.lit(lit!("\",\"named_args\":{\"return\":["));
}

/// Writes the compact raw-function signature `I<n>!...R<n>!...` (docs/ABI.md section 7).
pub const fn fn_compact_signature(w: &mut Writer, f: &FnDesc) {
    let mut count = Writer::new(&mut []);
    slots(&mut count, f.params, SlotMode::Compact);
    w.byte(b'I');
    w.uint(count.len() + 1);
    w.byte(b'!');
    slots(w, f.params, SlotMode::Compact);
    let mut count = Writer::new(&mut []);
    compact_type(&mut count, f.ret);
    w.byte(b'R');
    w.uint(count.len() + 1);
    w.byte(b'!');
    compact_type(w, f.ret);
}

/// Writes `,"abi.defaults":{"name":value,...}` when a parameter has a default.
const fn fn_defaults(w: &mut Writer, f: &FnDesc) {
    let mut i = 0;
    let mut first = true;
    while i < f.params.len() {
        if let Some(json) = f.params[i].default {
            if first {
                w.str(",\"");
                w.str(abi_shared::DEFAULTS_KEY);
                w.str("\":{");
                first = false;
            } else {
                w.byte(b',');
            }
            w.json_string(f.params[i].name);
            w.byte(b':');
            w.str(json);
        }
        i += 1;
    }
    if !first {
        w.byte(b'}');
    }
}

/// Whether some parameter of `f` only reads its tensor (`abi.read_only`).
pub(crate) const fn fn_has_read_only(f: &FnDesc) -> bool {
    let mut i = 0;
    while i < f.params.len() {
        if f.params[i].reads_tensor_only() {
            return true;
        }
        i += 1;
    }
    false
}

/// Writes `"abi.read_only":[...]`: the parameters that only read their tensor, when any.
pub(crate) const fn fn_read_only(w: &mut Writer, f: &FnDesc) {
    let mut i = 0;
    let mut first = true;
    while i < f.params.len() {
        if f.params[i].reads_tensor_only() {
            if first {
                w.str(",\"");
                w.str(abi_shared::READ_ONLY_KEY);
                w.str("\":[");
                first = false;
            } else {
                w.byte(b',');
            }
            w.json_string(f.params[i].name);
        }
        i += 1;
    }
    if !first {
        w.byte(b']');
    }
}

/// Writes a JSON list of names.
const fn name_list(w: &mut Writer, names: &[&str]) {
    w.byte(b'[');
    let mut i = 0;
    while i < names.len() {
        if i > 0 {
            w.byte(b',');
        }
        w.json_string(names[i]);
        i += 1;
    }
    w.byte(b']');
}

/// Writes a JSON string or `null`.
const fn name_or_null(w: &mut Writer, name: Option<&str>) {
    match name {
        Some(name) => w.json_string(name),
        None => w.str("null"),
    }
}

/// Writes `,"abi.op":{...}` for an op (`#[export_fn(op)]`): its inputs, scalars, outputs
/// with their rules, in-place parameters, backward, JAX entry point and device.
pub(crate) const fn fn_op(w: &mut Writer, f: &FnDesc) {
    let Some(op) = f.op else { return };
    w.str(",\"");
    w.str(abi_shared::OP_KEY);
    w.str("\":{\"inputs\":");
    name_list(w, op.inputs);
    w.str(",\"scalars\":");
    name_list(w, op.scalars);
    w.str(",\"outputs\":[");
    let mut i = 0;
    while i < op.outputs.len() {
        if i > 0 {
            w.byte(b',');
        }
        let out = &op.outputs[i];
        w.str("{\"name\":");
        w.json_string(out.name);
        match out.rule {
            OpRule::Like(input) => {
                w.str(",\"like\":");
                w.json_string(input);
            }
            OpRule::Shape(dims) => {
                w.str(",\"shape\":[");
                let mut d = 0;
                while d < dims.len() {
                    if d > 0 {
                        w.byte(b',');
                    }
                    match dims[d] {
                        OpDim::Axis(input, axis) => {
                            w.byte(b'"');
                            w.str(input);
                            w.byte(b'.');
                            w.uint(axis as usize);
                            w.byte(b'"');
                        }
                        OpDim::Scalar(name) => w.json_string(name),
                        OpDim::Const(n) => {
                            if n < 0 {
                                w.byte(b'-');
                            }
                            w.uint(n.unsigned_abs() as usize);
                        }
                    }
                    d += 1;
                }
                w.byte(b']');
            }
            OpRule::InOut => w.str(",\"inout\":true"),
        }
        w.byte(b'}');
        i += 1;
    }
    w.str("],\"inout\":[");
    let mut first = true;
    i = 0;
    while i < op.outputs.len() {
        if matches!(op.outputs[i].rule, OpRule::InOut) {
            if !first {
                w.byte(b',');
            }
            first = false;
            w.json_string(op.outputs[i].name);
        }
        i += 1;
    }
    w.str("],\"backward\":");
    name_or_null(w, op.backward);
    w.str(",\"jax\":");
    name_or_null(w, op.jax);
    w.str(",\"device\":\"");
    w.str(op.device.as_str());
    w.byte(b'"');
    if !op.strided.is_empty() {
        w.str(",\"strided\":");
        name_list(w, op.strided);
    }
    w.byte(b'}');
}

/// Writes the metadata JSON returned by `__tvm_ffi__metadata_<name>`: tvm-ffi's
/// `type_schema` first, then what this project adds, ending with the format version
/// (`abi_shared::METADATA_VERSION`, read back by `link::metadata`).
pub const fn fn_metadata_json(w: &mut Writer, f: &FnDesc) {
    w.str("{\"type_schema\":\"");
    w.push_level();
    fn_type_schema(w, f);
    w.pop_level();
    w.str("\",\"arg_names\":[");
    slots(w, f.params, SlotMode::Name);
    w.str("],\"iree.abi\":");
    fn_iree_record(w, f);
    w.str(",\"signature\":\"");
    fn_compact_signature(w, f);
    w.byte(b'"');
    if let Some(global) = f.global {
        w.str(",\"");
        w.str(abi_shared::GLOBAL_KEY);
        w.str("\":");
        w.json_string(global);
    }
    fn_defaults(w, f);
    fn_read_only(w, f);
    if let Some(release) = f.release_gil {
        w.str(",\"");
        w.str(abi_shared::GIL_KEY);
        w.str("\":\"");
        w.str(if release { abi_shared::GIL_RELEASE } else { abi_shared::GIL_KEEP });
        w.byte(b'"');
    }
    if let Some(error) = f.error {
        w.str(",\"");
        w.str(abi_shared::ERROR_KEY);
        w.str("\":");
        w.json_string(error);
    }
    fn_op(w, f);
    fn_metadata_tail(w);
}

/// What [`fn_metadata_json`] writes last: the format version.
pub(crate) const fn fn_metadata_tail(w: &mut Writer) {
    w.str(",\"");
    w.str(abi_shared::VERSION_KEY);
    w.str("\":");
    w.uint(abi_shared::METADATA_VERSION as usize);
    w.byte(b'}');
}
