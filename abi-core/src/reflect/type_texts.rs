//! An export's texts assembled from per-type pieces. Const evaluation of the renderers was
//! most of what checking an export cost, and it is slow: about 2,000 rustc instructions per
//! MIR statement and 10,000 per call, so a copied piece costs over 100,000. Most of an
//! export's texts describe its parameter and result types, and a crate's exports share a
//! few types, so each type's pieces are rendered once per crate, as an associated constant
//! (`FromArg::TEXTS`, `ReturnValue::TEXTS`), and an export's texts are copies of those
//! pieces, its names and fixed punctuation: 7.5 M instructions per export for the
//! benchmark's six shapes, against 18 M to render them from scratch (`cargo check
//! --release` under callgrind). The result is byte for byte what the general renderers
//! write (tested); exports with a default, an expanded struct, a global name, an op's
//! description or a type too long for the room take them.

use super::render::{
    compact_type, fn_has_read_only, fn_metadata_tail, fn_read_only, fn_type_schema_head, type_display,
    type_iree_record, type_schema,
};
use super::writer::Writer;
use super::{FnDesc, TypeDesc};

/// Room for one type's pieces; longer ones leave their exports to the general renderers.
pub const TYPE_TEXTS_ROOM: usize = 240;

/// One type's pieces of an export's texts, in order: its `type_schema` fragment escaped
/// once (it sits in a JSON string), its IREE record, its compact signature code and its
/// Python-style name.
#[derive(Clone, Copy, Debug)]
pub struct TypeTexts {
    buf: [u8; TYPE_TEXTS_ROOM],
    /// Where each piece starts and ends in `buf` (each starts where the one before ends:
    /// both kept, since in const evaluation each step counts).
    starts: [u16; 4],
    ends: [u16; 4],
    /// Whether the pieces fit `buf`, and an export may be assembled from them.
    usable: bool,
}

const SCHEMA: usize = 0;
const IREE: usize = 1;
const COMPACT: usize = 2;
const DISPLAY: usize = 3;

impl TypeTexts {
    /// No pieces: what an `#[abi(expand)]` parameter passes, sending its export to the
    /// general renderers.
    pub const NONE: TypeTexts = TypeTexts { buf: [0; TYPE_TEXTS_ROOM], starts: [0; 4], ends: [0; 4], usable: false };

    /// Renders the pieces of `ty`.
    pub const fn of(ty: &TypeDesc) -> TypeTexts {
        let mut buf = [0u8; TYPE_TEXTS_ROOM];
        let mut w = Writer::new(&mut buf);
        w.push_level();
        type_schema(&mut w, ty);
        w.pop_level();
        let schema = w.len();
        type_iree_record(&mut w, ty);
        let iree = w.len();
        compact_type(&mut w, ty);
        let compact = w.len();
        type_display(&mut w, ty);
        let display = w.len();
        let usable = display <= TYPE_TEXTS_ROOM;
        if !usable {
            return TypeTexts::NONE;
        }
        let ends = [schema as u16, iree as u16, compact as u16, display as u16];
        TypeTexts { buf, starts: [0, ends[0], ends[1], ends[2]], ends, usable }
    }

    const fn len(&self, piece: usize) -> usize {
        (self.ends[piece] - self.starts[piece]) as usize
    }

    const fn write(&self, w: &mut Writer, piece: usize) {
        let start = self.starts[piece] as usize;
        // SAFETY: `starts[k] <= ends[k] <= TYPE_TEXTS_ROOM` (`of` keeps the pieces of a type
        // only when they fit; `NONE`'s are empty), and `self` is not the writer's buffer.
        unsafe { w.put((&self.buf as *const [u8; TYPE_TEXTS_ROOM] as *const u8).add(start), self.len(piece)) }
    }
}

// The fixed text between the pieces, as the general renderers write it (the tests compare
// whole texts, so a change to the format shows here).
const META_PARAMS: &str = r#"],\"params\":["#;
const META_NAMES: &str = r#"]}}","arg_names":["#;
const META_IREE: &str = r#"],"iree.abi":{"a":["#;
const IREE_NAMED_FIRST: &str = r#"["named",""#;
const IREE_NAMED_NEXT: &str = r#",["named",""#;
const IREE_NAMED_TYPE: &str = r#"","#;
const META_RESULT: &str = r#"],"r":["#;
const META_SIGNATURE: &str = r#"],"v":1},"signature":"I"#;

/// Fixed text that spells vocabulary, rendered by the general renderers' own functions
/// (once per crate that renders).
struct Fixed {
    buf: [u8; 96],
    len: usize,
}

impl Fixed {
    const fn write(&self, w: &mut Writer) {
        w.copy_range(&self.buf, 0, self.len);
    }
}

// `{"type_schema":"` and the function `type_schema` up to its result's schema.
const META_HEAD: Fixed = {
    let mut buf = [0; 96];
    let mut w = Writer::new(&mut buf);
    w.str("{\"type_schema\":\"");
    w.push_level();
    fn_type_schema_head(&mut w);
    let len = w.len();
    assert!(len <= 96);
    Fixed { buf, len }
};

// The closing quote of the compact signature, the format version and the NUL.
const META_TAIL: Fixed = {
    let mut buf = [0; 96];
    let mut w = Writer::new(&mut buf);
    w.byte(b'"');
    fn_metadata_tail(&mut w);
    w.byte(0);
    let len = w.len();
    assert!(len <= 96);
    Fixed { buf, len }
};

/// Whether `f`'s texts can be assembled from `params` and `ret` (its parameter and result
/// types' pieces, in order).
pub const fn assembles(f: &FnDesc, params: &[TypeTexts], ret: &TypeTexts) -> bool {
    if f.global.is_some()
        || f.op.is_some()
        || f.release_gil.is_some()
        || f.error.is_some()
        || !ret.usable
        || params.len() != f.params.len()
    {
        return false;
    }
    let mut i = 0;
    while i < params.len() {
        let p = &f.params[i];
        if p.expand || p.default.is_some() || !params[i].usable {
            return false;
        }
        i += 1;
    }
    true
}

/// Writes the body of `f`'s record (`Export`: metadata JSON, signature text and docstring,
/// each ending in NUL) from its types' pieces, when [`assembles`]; returns where the
/// signature text and the docstring start.
pub const fn assemble(w: &mut Writer, f: &FnDesc, params: &[TypeTexts], ret: &TypeTexts) -> (usize, usize) {
    let n = params.len();
    META_HEAD.write(w);
    ret.write(w, SCHEMA);
    w.name(META_PARAMS);
    let mut i = 0;
    while i < n {
        if i > 0 {
            w.byte(b',');
        }
        params[i].write(w, SCHEMA);
        i += 1;
    }
    w.name(META_NAMES);
    i = 0;
    while i < n {
        w.name(if i == 0 { "\"" } else { ",\"" });
        w.name(f.params[i].name);
        w.byte(b'"');
        i += 1;
    }
    w.name(META_IREE);
    i = 0;
    let mut compact = 1;
    while i < n {
        w.name(if i == 0 { IREE_NAMED_FIRST } else { IREE_NAMED_NEXT });
        w.name(f.params[i].name);
        w.name(IREE_NAMED_TYPE);
        params[i].write(w, IREE);
        w.byte(b']');
        compact += params[i].len(COMPACT);
        i += 1;
    }
    w.name(META_RESULT);
    if !matches!(f.ret, TypeDesc::None) {
        ret.write(w, IREE);
    }
    w.name(META_SIGNATURE);
    w.uint(compact);
    w.byte(b'!');
    i = 0;
    while i < n {
        params[i].write(w, COMPACT);
        i += 1;
    }
    w.byte(b'R');
    w.uint(ret.len(COMPACT) + 1);
    w.byte(b'!');
    ret.write(w, COMPACT);
    if fn_has_read_only(f) {
        w.byte(b'"');
        fn_read_only(w, f);
        fn_metadata_tail(w);
        w.byte(0);
    } else {
        META_TAIL.write(w);
    }
    let signature = w.len();
    w.name(f.name);
    w.byte(b'(');
    i = 0;
    while i < n {
        if i > 0 {
            w.name(", ");
        }
        w.name(f.params[i].name);
        w.name(": ");
        params[i].write(w, DISPLAY);
        i += 1;
    }
    w.name(") -> ");
    ret.write(w, DISPLAY);
    w.byte(0);
    let doc = w.len();
    w.str(f.doc);
    w.byte(0);
    (signature, doc)
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::{assemble, assembles, TypeTexts};
    use crate::reflect::render::{fn_metadata_json, fn_signature_text};
    use crate::reflect::writer::Writer;
    use crate::reflect::{FieldDesc, FnDesc, ParamDesc, StructDesc, TypeDesc};

    const I64: TypeDesc = TypeDesc::Int { bits: 64, signed: true };
    const F32: TypeDesc = TypeDesc::Float { bits: 32, brain: false };

    fn types() -> Vec<&'static TypeDesc> {
        static POINT: StructDesc = StructDesc {
            name: "Po\"int",
            fields: &[FieldDesc { name: "x", ty: &F32 }, FieldDesc { name: "y\\", ty: &I64 }],
            tuple_like: false,
        };
        static PAIR: StructDesc =
            StructDesc { name: "Pair", fields: &[FieldDesc { name: "0", ty: &I64 }], tuple_like: true };
        static ALL: &[TypeDesc] = &[
            TypeDesc::None,
            TypeDesc::Bool,
            TypeDesc::Int { bits: 8, signed: false },
            TypeDesc::Int { bits: 32, signed: true },
            I64,
            TypeDesc::Float { bits: 16, brain: true },
            TypeDesc::Float { bits: 16, brain: false },
            F32,
            TypeDesc::Float { bits: 64, brain: false },
            TypeDesc::Str,
            TypeDesc::Bytes,
            TypeDesc::Any,
            TypeDesc::OpaquePtr,
            TypeDesc::DataType,
            TypeDesc::Device,
            TypeDesc::Shape,
            TypeDesc::Function,
            TypeDesc::Callable { params: &[&I64, &TypeDesc::Str], ret: &F32 },
            TypeDesc::Error,
            TypeDesc::Object,
            TypeDesc::Tensor { elem: None, rank: None, cast: false },
            TypeDesc::Tensor { elem: Some(&F32), rank: Some(2), cast: false },
            TypeDesc::Tensor { elem: Some(&TypeDesc::Bool), rank: None, cast: false },
            TypeDesc::Optional(&I64),
            TypeDesc::List(&TypeDesc::List(&F32)),
            TypeDesc::Tuple(&[&I64, &TypeDesc::Str]),
            TypeDesc::Map(&TypeDesc::Str, &TypeDesc::Optional(&F32)),
            TypeDesc::Struct(&POINT),
            TypeDesc::Struct(&PAIR),
            TypeDesc::Class { key: "mylib.Counter" },
        ];
        ALL.iter().collect()
    }

    fn general(f: &FnDesc) -> (String, usize, usize) {
        let at = Cell::new((0, 0));
        let text = Writer::render(|w| {
            fn_metadata_json(w, f);
            w.byte(0);
            let signature = w.len();
            fn_signature_text(w, f);
            w.byte(0);
            at.set((signature, w.len()));
            w.str(f.doc);
            w.byte(0);
        });
        (text, at.get().0, at.get().1)
    }

    fn assembled(f: &FnDesc) -> Option<(String, usize, usize)> {
        let params: Vec<TypeTexts> = f.params.iter().map(|p| TypeTexts::of(p.ty)).collect();
        let ret = TypeTexts::of(f.ret);
        if !assembles(f, &params, &ret) {
            return None;
        }
        let at = Cell::new((0, 0));
        let text = Writer::render(|w| at.set(assemble(w, f, &params, &ret)));
        Some((text, at.get().0, at.get().1))
    }

    // Runs `check` on a description of `params` (leaked for its `'static` slice while
    // `check` runs, then freed: the sanitizer run reports leaks).
    fn with_desc<R>(
        params: Vec<ParamDesc>,
        ret: &'static TypeDesc,
        doc: &'static str,
        global: Option<&'static str>,
        check: impl FnOnce(&FnDesc) -> R,
    ) -> R {
        let raw: *mut [ParamDesc] = Box::into_raw(params.into_boxed_slice());
        let out = {
            // SAFETY: `raw` is a live allocation until the `Box::from_raw` below, after
            // this block, where the description and its borrow end.
            let f = FnDesc::new("f_1", unsafe { &*raw }, ret, doc);
            check(&match global {
                Some(name) => f.with_global(name),
                None => f,
            })
        };
        // SAFETY: from `Box::into_raw` above; nothing borrows it any more.
        drop(unsafe { Box::from_raw(raw) });
        out
    }

    #[test]
    fn assembled_texts_are_the_general_renderers_texts() {
        let names = ["a", "b_2", "c"];
        let mut compared = 0;
        for (k, &ret) in types().iter().enumerate() {
            for count in 0..=3 {
                // Every type in every position, with a different neighbour each time.
                for (i, &ty) in types().iter().enumerate() {
                    // Miri (unsafe copies, not formats) checks one combination in 40.
                    if cfg!(miri) && (i + k * 3 + count) % 40 != 0 {
                        continue;
                    }
                    let all = types();
                    let params = (0..count)
                        .map(|j| ParamDesc::new(names[j], if j == 0 { ty } else { all[(i + j * 7 + k) % all.len()] }))
                        .collect();
                    with_desc(params, ret, "Docs with \"quotes\",\n\\ and\0 NUL.", None, |f| {
                        let fast = assembled(f).unwrap_or_else(|| panic!("{f:?} assembles"));
                        assert_eq!(fast, general(f), "{f:?}");
                    });
                    compared += 1;
                }
            }
        }
        assert!(compared > if cfg!(miri) { 80 } else { 3000 });
    }

    #[test]
    fn defaults_expansions_globals_and_long_types_take_the_general_renderers() {
        const FIELD: FieldDesc = FieldDesc { name: "a_rather_long_field_name_to_fill_the_room_quickly", ty: &I64 };
        static LONG: TypeDesc = TypeDesc::Struct(&StructDesc { name: "Long", fields: &[FIELD; 12], tuple_like: false });
        let plain = || ParamDesc::new("a", &I64);
        let cases: [(Vec<ParamDesc>, &'static TypeDesc, Option<&'static str>); 5] = [
            (vec![plain().with_default("3")], &I64, None),
            (vec![ParamDesc::expanded("p", &LONG)], &I64, None),
            (vec![plain()], &I64, Some("mylib.f")),
            (vec![ParamDesc::new("p", &LONG)], &I64, None),
            (vec![plain()], &LONG, None),
        ];
        for (params, ret, global) in cases {
            with_desc(params, ret, "", global, |f| assert!(assembled(f).is_none(), "{f:?}"));
        }
        let one = |f: &FnDesc| assembles(f, &[], &TypeTexts::of(&I64));
        assert!(!with_desc(vec![plain()], &I64, "", None, one), "a piece per parameter");
        assert!(!with_desc(vec![], &I64, "", None, |f| assembles(f, &[], &TypeTexts::NONE)));
    }

    #[test]
    fn ops_take_the_general_renderers() {
        use crate::reflect::{OpDesc, OpDevice};
        static OP: OpDesc = OpDesc {
            inputs: &[],
            scalars: &["a"],
            outputs: &[],
            backward: None,
            jax: None,
            device: OpDevice::Cpu,
            strided: &[],
        };
        with_desc(vec![ParamDesc::new("a", &I64)], &TypeDesc::None, "", None, |f| {
            assert!(assembled(f).is_some(), "the plain export assembles");
            let op = (*f).with_op(&OP);
            assert!(assembled(&op).is_none(), "its op does not");
            assert!(general(&op).0.contains(r#","abi.op":{"inputs":[],"scalars":["a"],"#));
        });
    }
}
