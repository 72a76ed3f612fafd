//! The Rust type of a type in the model, as a generated declaration spells it: widths
//! where the metadata has them, kinds otherwise (`int` is `i64`, `float` `f64`); strings
//! and bytes borrowed as parameters and owned as results; tensors as `Tensor` objects;
//! object classes by the typed handle written for them; an abi library's structs and enums
//! by the Rust types written for them. A type with no Rust spelling here is `abi_core::Any`
//! (checked per call), with the reason noted.

use std::collections::{BTreeMap, BTreeSet};

use abi_core::schema::{FloatWidth, IntWidth, TaggedVariant, TypeSchema};

use super::names::{ident, Role};

/// Where a type appears.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// A parameter of an import: borrowed where a borrow packs without allocating.
    Param,
    /// A result, or inside a container or callback: owned.
    Owned,
}

/// One field of a derived struct or of a variant of an enum with data: its key in the
/// metadata and its Rust type (owned).
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    /// The key the library publishes (`"0"`, `"1"`... for a tuple variant's fields).
    pub key: String,
    /// Its Rust type.
    pub rust: String,
}

/// A derived struct or an enum with data, its field types mapped when it is first named
/// (so that the types inside it are named, and written, too), with the notes of what
/// became `Any` in it.
#[derive(Clone, Debug, PartialEq)]
pub struct Fields<T> {
    /// The struct's fields, or the enum's variants.
    pub items: Vec<T>,
    /// Why a field became `Any`, one line each.
    pub notes: Vec<String>,
}

impl<T> Default for Fields<T> {
    fn default() -> Self {
        Fields { items: Vec::new(), notes: Vec::new() }
    }
}

/// One variant of an enum with data, as written.
#[derive(Clone, Debug, PartialEq)]
pub struct Variant {
    /// The name it crosses as.
    pub name: String,
    /// Its Rust identifier in the library.
    pub ident: String,
    /// Whether its fields are positional (`Polygon(Vec<(f64, f64)>, String)`).
    pub tuple_like: bool,
    /// Its fields, in order.
    pub fields: Vec<Field>,
}

/// The types one output names, collected while mapping: object classes (by key), derived
/// structs and enums (by name), with the notes of what became `Any`.
#[derive(Default)]
pub struct Types {
    /// Object class key -> the handle's Rust name.
    pub handles: BTreeMap<String, String>,
    /// Struct Rust name -> its fields.
    pub structs: BTreeMap<String, Fields<Field>>,
    /// Fieldless enum Rust name -> its names and its variants' identifiers.
    pub enums: BTreeMap<String, (Vec<String>, Vec<String>)>,
    /// Enum with data Rust name -> its variants.
    pub tagged: BTreeMap<String, Fields<Variant>>,
    /// Why a type became `Any`, one line each, for the current item.
    pub notes: Vec<String>,
    /// Struct name in the metadata -> its Rust name.
    struct_names: BTreeMap<String, String>,
    /// Enum name and names in the metadata -> its Rust name (two enums of one name with
    /// other names are two types).
    enum_names: BTreeMap<(String, Vec<String>), String>,
    /// Enum with data in the metadata (its name and variants) -> its Rust name (two enums of
    /// one name with other variants, or other fields, are two types).
    tagged_names: Vec<((String, Vec<TaggedVariant>), String)>,
    /// Type names the module defines otherwise (its import sets) or uses unqualified (the
    /// prelude's): no handle or struct may take one.
    pub reserved: BTreeSet<String>,
}

/// Prelude types the generated code names unqualified (`Option<i64>`, `Vec<Point>`).
const PRELUDE: &[&str] = &["Option", "Vec", "String", "Box", "Result", "Self"];

const ANY: &str = "abi_core::Any";

/// The types [`Types::rust`] writes that have no `PartialEq` (object handles).
const NOT_COMPARABLE: &[&str] = &[
    ANY,
    "abi_core::Reflected",
    "abi_core::Function",
    "abi_core::TypedFunction",
    "abi_core::Tensor",
    "abi_core::Error",
    "abi_core::Map",
    "abi_core::Shape",
];

impl Types {
    /// The Rust spelling of `t` on `side`.
    pub fn rust(&mut self, t: &TypeSchema, side: Side) -> String {
        use TypeSchema as T;
        let owned = Side::Owned;
        match t {
            T::Any => ANY.to_owned(),
            T::None => "()".to_owned(),
            T::Bool => "bool".to_owned(),
            T::Int(w) => int(*w),
            T::Float(w) => float(*w),
            T::Str if side == Side::Param => "&str".to_owned(),
            T::Str => "String".to_owned(),
            T::Bytes if side == Side::Param => "&[u8]".to_owned(),
            T::Bytes => "Vec<u8>".to_owned(),
            T::OpaquePtr => "*mut core::ffi::c_void".to_owned(),
            T::DataType => "abi_core::DataType".to_owned(),
            T::Device => "abi_core::Device".to_owned(),
            T::Shape => "abi_core::Shape".to_owned(),
            // A Tensor object both ways: C++ `ffi.Tensor` parameters refuse a bare `DLTensor*`
            // (what a `TensorView` passes); `DLTensor*` ones take either.
            T::Tensor(_) => "abi_core::Tensor".to_owned(),
            T::Error => "abi_core::Error".to_owned(),
            T::Object => "abi_core::Reflected".to_owned(),
            T::Function(None) => "abi_core::Function".to_owned(),
            T::Function(Some(f)) => {
                let params: Vec<String> = f.params.iter().map(|p| self.rust(p, owned)).collect();
                let ret = match &f.ret {
                    T::None => String::new(),
                    r => format!(" -> {}", self.rust(r, owned)),
                };
                format!("abi_core::TypedFunction<fn({}){ret}>", params.join(", "))
            }
            T::Optional(inner) => format!("Option<{}>", self.rust(inner, side)),
            T::Array(e) => format!("Vec<{}>", self.rust(e, owned)),
            T::List(e) => format!("abi_core::List<{}>", self.rust(e, owned)),
            // An untyped map is the Map handle, which takes a Map or a Dict of anything.
            T::Map(k, v) | T::Dict(k, v) if **k == T::Any && **v == T::Any => "abi_core::Map".to_owned(),
            T::Map(k, v) | T::Dict(k, v) => {
                let key = self.rust(k, owned);
                if !hashable(&key) && !self.enums.contains_key(&key) {
                    return self.any(t, "its keys have no hashable Rust type");
                }
                let head = if matches!(t, T::Dict(..)) { "abi_core::Dict" } else { "std::collections::HashMap" };
                format!("{head}<{key}, {}>", self.rust(v, owned))
            }
            T::Tuple(items) if items.len() > 12 => self.any(t, "Rust tuples convert up to 12 items"),
            T::Tuple(items) => {
                let items: Vec<String> = items.iter().map(|i| self.rust(i, owned)).collect();
                match items.len() {
                    1 => format!("({},)", items[0]),
                    _ => format!("({})", items.join(", ")),
                }
            }
            T::Struct { name: Some(name), fields } => {
                if let Some(rust) = self.struct_names.get(name) {
                    return rust.clone();
                }
                let rust = self.fresh(ident(name, Role::Type));
                self.struct_names.insert(name.clone(), rust.clone());
                // Named (and so taken) before its fields are mapped: a field's struct gets
                // another name.
                self.structs.insert(rust.clone(), Fields::default());
                let mapped = self.mapped(|types| {
                    fields.iter().map(|(key, t)| Field { key: key.clone(), rust: types.rust(t, owned) }).collect()
                });
                self.structs.insert(rust.clone(), mapped);
                rust
            }
            T::Tagged { name, variants } => {
                let key = (name.clone(), variants.clone());
                if let Some((_, rust)) = self.tagged_names.iter().find(|(k, _)| *k == key) {
                    return rust.clone();
                }
                let rust = self.fresh(ident(name, Role::Type));
                self.tagged_names.push((key, rust.clone()));
                self.tagged.insert(rust.clone(), Fields::default());
                let mapped = self.mapped(|types| {
                    variants
                        .iter()
                        .map(|v| Variant {
                            name: v.name.clone(),
                            ident: v.ident.clone(),
                            tuple_like: v.tuple_like(),
                            fields: v
                                .fields
                                .iter()
                                .map(|(key, t)| Field { key: key.clone(), rust: types.rust(t, owned) })
                                .collect(),
                        })
                        .collect()
                });
                self.tagged.insert(rust.clone(), mapped);
                rust
            }
            T::Enum { name, names, variants } => {
                let key = (name.clone(), names.clone());
                if let Some(rust) = self.enum_names.get(&key) {
                    return rust.clone();
                }
                let rust = self.fresh(ident(name, Role::Type));
                self.enum_names.insert(key, rust.clone());
                self.enums.insert(rust.clone(), (names.clone(), variants.clone()));
                rust
            }
            T::Struct { name: None, fields } => {
                self.rust(&T::Tuple(fields.iter().map(|(_, t)| t.clone()).collect()), side)
            }
            T::Variant(members) if (2..=4).contains(&members.len()) => {
                let members: Vec<String> = members.iter().map(|m| self.rust(m, owned)).collect();
                format!("abi_core::Variant{}<{}>", members.len(), members.join(", "))
            }
            T::Variant(_) => self.any(t, "abi_core's Variant types hold 2 to 4 members"),
            T::Named { key, args } if !args.is_empty() => self.any(t, &format!("`{key}` takes type arguments")),
            T::Named { key, .. } => self.handle(key),
        }
    }

    /// Whether the Rust type `rust` (as [`Types::rust`] spelled it) implements `PartialEq`,
    /// so that a struct or an enum holding it may derive it: object handles (`Any`, tensors,
    /// functions, maps, the typed handles) compare by nothing and have none.
    pub fn comparable(&self, rust: &str) -> bool {
        self.comparable_within(rust, &mut Vec::new())
    }

    fn comparable_within<'a>(&'a self, rust: &'a str, seen: &mut Vec<&'a str>) -> bool {
        let paths =
            rust.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':')).filter(|p| !p.is_empty());
        paths.into_iter().all(|path| {
            if NOT_COMPARABLE.contains(&path) || self.handles.values().any(|h| h == path) {
                return false;
            }
            if seen.contains(&path) {
                return true;
            }
            let inner: Vec<&str> = match (self.structs.get(path), self.tagged.get(path)) {
                (Some(s), _) => s.items.iter().map(|f| f.rust.as_str()).collect(),
                (_, Some(t)) => t.items.iter().flat_map(|v| v.fields.iter().map(|f| f.rust.as_str())).collect(),
                _ => return true,
            };
            seen.push(path);
            inner.into_iter().all(|t| self.comparable_within(t, seen))
        })
    }

    /// A Rust name for the kinds of the error type `name`, taken from here on.
    pub fn error_kinds_name(&mut self, name: &str) -> String {
        let rust = self.fresh(ident(name, Role::Type));
        self.reserved.insert(rust.clone());
        rust
    }

    /// The items `map` gives, with the notes it made, apart from the current item's.
    fn mapped<I>(&mut self, map: impl FnOnce(&mut Self) -> Vec<I>) -> Fields<I> {
        let outer = std::mem::take(&mut self.notes);
        let items = map(self);
        Fields { items, notes: std::mem::replace(&mut self.notes, outer) }
    }

    /// `Any`, noting why.
    fn any(&mut self, t: &TypeSchema, why: &str) -> String {
        let note = format!("`{}` is declared `Any` (checked per call): {why}", t.python());
        if !self.notes.contains(&note) {
            self.notes.push(note);
        }
        ANY.to_owned()
    }

    /// The handle of the object class `key`, named once.
    fn handle(&mut self, key: &str) -> String {
        if let Some(name) = self.handles.get(key) {
            return name.clone();
        }
        let name = self.fresh(ident(key, Role::Type));
        self.handles.insert(key.to_owned(), name.clone());
        name
    }

    /// `base`, or `base2`, `base3`... when a handle, a struct, an import set or a prelude
    /// type has that name (rule 6: one scope, one meaning for a name).
    fn fresh(&self, base: String) -> String {
        let taken = |n: &String| {
            self.handles.values().any(|v| v == n)
                || self.structs.contains_key(n)
                || self.enums.contains_key(n)
                || self.tagged.contains_key(n)
                || self.reserved.contains(n)
                || PRELUDE.contains(&n.as_str())
        };
        let mut name = base.clone();
        let mut i = 2;
        while taken(&name) {
            name = format!("{base}{i}");
            i += 1;
        }
        name
    }
}

fn int(w: Option<IntWidth>) -> String {
    match w {
        Some(w) => format!("{}{}", if w.signed { 'i' } else { 'u' }, w.bits),
        None => "i64".to_owned(),
    }
}

fn float(w: Option<FloatWidth>) -> String {
    match w {
        Some(FloatWidth { bits: 16, brain: true }) => "abi_core::half::bf16".to_owned(),
        Some(FloatWidth { bits: 16, .. }) => "abi_core::half::f16".to_owned(),
        Some(FloatWidth { bits: 32, .. }) => "f32".to_owned(),
        _ => "f64".to_owned(),
    }
}

/// Whether a map key's Rust type is `Eq + Hash`.
fn hashable(rust: &str) -> bool {
    matches!(rust, "String" | "Vec<u8>" | "bool" | "i8" | "i16" | "i32" | "i64" | "u8" | "u16" | "u32" | "u64")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(t: &str) -> TypeSchema {
        TypeSchema::parse(t).unwrap()
    }

    #[test]
    fn kinds_map_to_rust_types_borrowed_in_and_owned_out() {
        let mut types = Types::default();
        let s = parse(r#"{"type":"ffi.String"}"#);
        assert_eq!((types.rust(&s, Side::Param), types.rust(&s, Side::Owned)), ("&str".into(), "String".into()));
        let opt = parse(r#"{"type":"Optional","args":[{"type":"ffi.Bytes"}]}"#);
        assert_eq!(types.rust(&opt, Side::Param), "Option<&[u8]>");
        let list = parse(r#"{"type":"ffi.Array","args":[{"type":"ffi.String"}]}"#);
        assert_eq!(types.rust(&list, Side::Param), "Vec<String>", "owned inside containers");
        let pair = parse(r#"{"type":"testing.TestIntPair"}"#);
        assert_eq!(types.rust(&pair, Side::Param), "TestIntPair");
        assert_eq!(types.handles["testing.TestIntPair"], "TestIntPair");
        assert!(types.notes.is_empty());
    }

    #[test]
    fn what_has_no_rust_type_is_any_with_the_reason() {
        let mut types = Types::default();
        let int = r#"{"type":"int"}"#;
        let five = parse(&format!(r#"{{"type":"Variant","args":[{int},{int},{int},{int},{int}]}}"#));
        assert_eq!(types.rust(&five, Side::Param), "abi_core::Any");
        let float_keys = parse(r#"{"type":"ffi.Map","args":[{"type":"float"},{"type":"int"}]}"#);
        assert_eq!(types.rust(&float_keys, Side::Owned), "abi_core::Any");
        let generic = parse(r#"{"type":"my.Box","args":[{"type":"int"}]}"#);
        assert_eq!(types.rust(&generic, Side::Owned), "abi_core::Any");
        assert_eq!(
            types.notes,
            [
                "`Union[int, int, int, int, int]` is declared `Any` (checked per call): abi_core's Variant types hold 2 to 4 members",
                "`dict[float, int]` is declared `Any` (checked per call): its keys have no hashable Rust type",
                "`my.Box[int]` is declared `Any` (checked per call): `my.Box` takes type arguments",
            ]
        );
    }
}

#[cfg(test)]
mod tagged_tests {
    use super::*;

    fn variant(name: &str, fields: &[(&str, TypeSchema)]) -> TaggedVariant {
        TaggedVariant {
            name: name.to_lowercase(),
            ident: name.to_owned(),
            fields: fields.iter().map(|(k, t)| ((*k).to_owned(), t.clone())).collect(),
        }
    }

    fn tagged(name: &str, variants: Vec<TaggedVariant>) -> TypeSchema {
        TypeSchema::Tagged { name: name.to_owned(), variants }
    }

    /// An enum with data is one Rust type per name and variants: the same one named twice
    /// is one type, another of that name with other variants another; its fields map as a
    /// struct's (owned), and what they name is named with it.
    #[test]
    fn an_enum_with_data_is_one_type_per_name_and_variants_with_its_fields_mapped_owned() {
        let mut types = Types::default();
        let pt = TypeSchema::Struct { name: Some("Pt".into()), fields: vec![("x".into(), TypeSchema::Float(None))] };
        let shape = tagged(
            "Shape",
            vec![
                variant("Circle", &[("r", TypeSchema::Float(None))]),
                variant("At", &[("0", pt), ("1", TypeSchema::Str)]),
                variant("Empty", &[]),
            ],
        );
        assert_eq!(types.rust(&shape, Side::Param), "Shape");
        assert_eq!(types.rust(&TypeSchema::Array(Box::new(shape.clone())), Side::Param), "Vec<Shape>");
        let other = tagged("Shape", vec![variant("Square", &[("side", TypeSchema::Int(None))])]);
        assert_eq!(types.rust(&other, Side::Owned), "Shape2");
        assert_eq!(types.rust(&shape, Side::Owned), "Shape");
        let items = &types.tagged["Shape"].items;
        assert_eq!(items.len(), 3);
        assert_eq!((items[0].name.as_str(), items[0].ident.as_str(), items[0].tuple_like), ("circle", "Circle", false));
        assert_eq!(items[0].fields, [Field { key: "r".into(), rust: "f64".into() }]);
        assert!(items[1].tuple_like);
        let at: Vec<&str> = items[1].fields.iter().map(|f| f.rust.as_str()).collect();
        assert_eq!(at, ["Pt", "String"], "owned: a String, not a &str");
        assert!(items[2].fields.is_empty() && !items[2].tuple_like);
        assert!(types.structs.contains_key("Pt"), "the struct a variant holds is named with it");
        assert_eq!(types.tagged["Shape2"].items[0].fields[0].rust, "i64");
        // A map keyed by one has no hashable Rust type.
        let keyed = TypeSchema::Map(Box::new(shape), Box::new(TypeSchema::Int(None)));
        assert_eq!(types.rust(&keyed, Side::Owned), "abi_core::Any");
    }

    /// What holds an object handle, however deep, has no `PartialEq` to derive.
    #[test]
    fn what_holds_an_object_handle_is_not_comparable() {
        let mut types = Types::default();
        let tensor = TypeSchema::Tensor(Default::default());
        let inner =
            tagged("Inner", vec![variant("T", &[("0", tensor)]), variant("N", &[("0", TypeSchema::Int(None))])]);
        let outer = TypeSchema::Struct {
            name: Some("Outer".into()),
            fields: vec![("i".into(), TypeSchema::Optional(Box::new(inner)))],
        };
        let plain = tagged("Plain", vec![variant("P", &[("0", TypeSchema::Array(Box::new(TypeSchema::Str)))])]);
        let handle = TypeSchema::Named { key: "my.Obj".into(), args: Vec::new() };
        let rust: Vec<String> = [outer, plain, handle].iter().map(|t| types.rust(t, Side::Owned)).collect();
        assert_eq!(rust, ["Outer", "Plain", "Obj"]);
        let comparable: Vec<bool> =
            ["Outer", "Inner", "Vec<Plain>", "Option<Obj>", "(i64, abi_core::Any)", "abi_core::List<String>"]
                .iter()
                .map(|t| types.comparable(t))
                .collect();
        assert_eq!(comparable, [false, false, true, false, false, true]);
    }

    /// A field with no Rust type is `Any`, noted on the enum, not on the declaration that
    /// named the enum first.
    #[test]
    fn a_field_with_no_rust_type_is_any_noted_on_the_enum() {
        let mut types = Types::default();
        let generic = TypeSchema::Named { key: "my.Box".into(), args: vec![TypeSchema::Int(None)] };
        let e = tagged(
            "Holder",
            vec![variant("Boxed", &[("b", generic)]), variant("Plain", &[("n", TypeSchema::Int(None))])],
        );
        assert_eq!(types.rust(&e, Side::Param), "Holder");
        assert!(types.notes.is_empty(), "{:?}", types.notes);
        let holder = &types.tagged["Holder"];
        assert_eq!(holder.items[0].fields[0].rust, "abi_core::Any");
        assert_eq!(holder.notes, ["`my.Box[int]` is declared `Any` (checked per call): `my.Box` takes type arguments"]);
    }
}

#[cfg(test)]
mod naming_tests {
    use super::*;

    /// Rule 6 across kinds: an object handle, a struct, an import set and the prelude
    /// types the module names unqualified never share a name (an object `geo.Pt` and a
    /// struct `Pt` made two `pub struct Pt`; an object keyed `Option` shadowed
    /// `Option<i64>`).
    #[test]
    fn handles_structs_import_sets_and_prelude_types_get_names_apart() {
        let mut types = Types::default();
        types.reserved.insert("Math".to_owned());
        let pt = TypeSchema::Struct { name: Some("Pt".into()), fields: vec![("x".into(), TypeSchema::Float(None))] };
        let named = |key: &str| TypeSchema::Named { key: key.into(), args: Vec::new() };
        assert_eq!(types.rust(&named("geo.Pt"), Side::Param), "Pt");
        assert_eq!(types.rust(&pt, Side::Owned), "Pt2");
        assert_eq!(types.rust(&pt, Side::Param), "Pt2", "the same struct keeps its name");
        assert_eq!(types.rust(&named("Option"), Side::Param), "Option2");
        assert_eq!(types.rust(&named("Math"), Side::Param), "Math2");
        assert_eq!(types.rust(&named("geo.Pt"), Side::Owned), "Pt");
    }
}
