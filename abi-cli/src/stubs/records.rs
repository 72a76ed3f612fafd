//! Named tuples for the library's structs: a struct result crosses as a tuple of its
//! fields (a `tvm_ffi.Array` in Python), so the package defines a `NamedTuple` per named
//! struct its signatures mention (`Point(x, y)`) and its wrappers convert results into it,
//! through optionals, lists, maps and tuples; as arguments, any tuple (a `Point` too) is
//! accepted, as before. The enum classes of its fieldless enums (`enums.rs`) and the
//! classes of its enums with data (`tagged.rs`) are kept here too: their results are
//! converted the same way.

use std::collections::BTreeMap;

use abi_core::schema::{Metadata, TypeSchema};
use abi_shared::vocab::Kind;

use super::enums::Enums;
use super::tagged::Tagged;
use super::{is_public_name, is_python_name, like, py_str, py_tuple, ClassNames};
use crate::read::Listing;

/// The structs that get a named tuple, by name, with their fields; and the enums that get
/// classes.
#[derive(Debug, Default)]
pub struct Records {
    structs: BTreeMap<String, Vec<(String, TypeSchema)>>,
    enums: Enums,
    tagged: Tagged,
}

impl Records {
    /// Every named struct in the listing's signatures whose name and field names Python
    /// can use and no export or class takes; a name two different structs share gets none.
    pub fn new(listing: &Listing, classes: &ClassNames) -> Records {
        let mut found: BTreeMap<String, Option<Vec<(String, TypeSchema)>>> = BTreeMap::new();
        let mut visit = |meta: &Metadata| {
            let Some(f) = &meta.type_schema else { return };
            for t in f.params.iter().chain([&f.ret]) {
                collect(t, &mut found);
            }
        };
        listing.exports.iter().filter_map(|e| e.metadata.as_ref()).for_each(&mut visit);
        listing.classes.iter().flat_map(|c| &c.methods).for_each(|m| visit(&m.metadata));
        let exports: std::collections::HashSet<&str> = listing.exports.iter().map(|e| e.name.as_str()).collect();
        let class_names: std::collections::HashSet<&str> =
            listing.classes.iter().filter_map(|c| classes.get(&c.key)).collect();
        let taken = |name: &str| exports.contains(name) || class_names.contains(name) || !is_public_name(name);
        // `Point` and `PointLike` both; another struct's name may be `PointLike` too.
        let names: std::collections::HashSet<String> = found.keys().cloned().collect();
        let taken = |name: &str| {
            let like = like(name);
            taken(name) || taken(&like) || names.contains(&like)
        };
        let usable =
            |fields: &[(String, TypeSchema)]| fields.iter().all(|(n, _)| is_python_name(n) && !n.starts_with('_'));
        let structs: BTreeMap<String, Vec<(String, TypeSchema)>> = found
            .into_iter()
            .filter_map(|(name, fields)| Some((name, fields?)))
            .filter(|(name, fields)| !taken(name) && usable(fields))
            .collect();
        // An enum takes no name of an export, a class, a named tuple or its alias.
        let taken = |name: &str| taken(name) || structs.contains_key(name) || structs.keys().any(|s| like(s) == name);
        let enums = Enums::new(listing, taken);
        // An enum with data takes none of those, nor a fieldless enum's class or alias.
        let tagged = Tagged::new(listing, |name| taken(name) || enums.iter().any(|e| e.name == name || e.like == name));
        Records { structs, enums, tagged }
    }

    /// The enum classes.
    pub fn enums(&self) -> &Enums {
        &self.enums
    }

    /// The classes of the enums with data.
    pub fn tagged(&self) -> &Tagged {
        &self.tagged
    }

    /// Whether struct `name` has a named tuple.
    pub fn has(&self, name: &str) -> bool {
        self.structs.contains_key(name)
    }

    /// The names, for `__all__`: each named tuple's, enum class's and enum with data's base
    /// class's, and its argument alias's.
    pub fn names(&self) -> impl Iterator<Item = String> + '_ {
        let structs = self.structs.keys().flat_map(|name| [name.clone(), like(name)]);
        let enums = self.enums.iter().flat_map(|e| [e.name.clone(), e.like.clone()]);
        structs.chain(enums).chain(self.tagged.iter().flat_map(|e| [e.name.clone(), e.like.clone()]))
    }

    /// The annotation of a struct argument: its alias (`PointLike`).
    pub fn argument(&self, name: &str) -> Option<String> {
        self.has(name).then(|| like(name))
    }

    /// Each struct with a named tuple, by name, with its fields.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &[(String, TypeSchema)])> {
        self.structs.iter().map(|(name, fields)| (name.as_str(), fields.as_slice()))
    }

    /// The name of a function converting a value of type `t` as `tvm_ffi` returns it into
    /// what the stubs promise (named tuples for structs, tuples for tuples, members for
    /// enums' names, variants' classes for enums with data, through optionals, lists and
    /// maps' keys and values), defining it in `helpers`; `None` when the value is that
    /// already.
    pub fn converter(&self, t: &TypeSchema, helpers: &mut Helpers) -> Option<String> {
        let key = t.to_json();
        if let Some(name) = helpers.names.get(&key) {
            return Some(name.clone());
        }
        // Items are read with one `ffi.ArrayGetItem` call each: iterating a tvm_ffi.Array
        // from Python costs several calls per item.
        let body = match t {
            TypeSchema::Tuple(_) | TypeSchema::Struct { .. } => {
                let items: Vec<String> = t
                    .args()
                    .iter()
                    .enumerate()
                    .map(|(i, it)| match self.converter(it, helpers) {
                        Some(f) => format!("{f}(_item(v, {i}))"),
                        None => format!("_item(v, {i})"),
                    })
                    .collect();
                Converter::Returns(match t {
                    TypeSchema::Struct { name: Some(name), .. } if self.has(name) => {
                        format!("{name}({})", items.join(", "))
                    }
                    _ if items.is_empty() => "()".to_owned(),
                    _ => format!("({},)", items.join(", ")),
                })
            }
            TypeSchema::Optional(inner) => {
                let f = self.converter(inner, helpers)?;
                Converter::Returns(format!("None if v is None else {f}(v)"))
            }
            TypeSchema::Array(inner) => {
                let f = self.converter(inner, helpers)?;
                Converter::Returns(format!("[{f}(_item(v, i)) for i in range(_size(v))]"))
            }
            TypeSchema::Map(key, value) => {
                let applied = |f: Option<String>, x: &str| f.map_or_else(|| x.to_owned(), |f| format!("{f}({x})"));
                let (k, x) = (self.converter(key, helpers), self.converter(value, helpers));
                if k.is_none() && x.is_none() {
                    return None;
                }
                Converter::Returns(format!("{{{}: {} for k, x in v.items()}}", applied(k, "k"), applied(x, "x")))
            }
            TypeSchema::Enum { .. } => Converter::Returns(format!("{}(v)", self.enums.class(t)?.name)),
            // `_tagged_converter(Figure, {"Polygon": (_as_0, None)})`: the converters of the
            // fields of each variant with one to convert (a list of plain items too, which
            // a variant holds as a `list`, as a wrapper returns it), made when the module
            // runs from converters defined before it.
            TypeSchema::Tagged { variants, .. } => {
                let class = self.tagged.class(t)?;
                let mut converted = Vec::new();
                for (variant, tag) in variants.iter().zip(class.variants.iter().map(|c| &c.tag)) {
                    let fields: Vec<Option<String>> =
                        variant.fields.iter().map(|(_, f)| result_converter(self, f, helpers)).collect();
                    if fields.iter().any(Option::is_some) {
                        let fields: Vec<String> =
                            fields.into_iter().map(|f| f.unwrap_or_else(|| Kind::None.python().to_owned())).collect();
                        converted.push(format!("{}: {}", py_str(tag), py_tuple(&fields)));
                    }
                }
                Converter::Made(format!("{TAGGED_CONVERTER}({}, {{{}}})", class.name, converted.join(", ")))
            }
            _ => return None,
        };
        let name = format!("_as_{}", helpers.names.len());
        helpers.defs.push((name.clone(), body));
        helpers.names.insert(key, name.clone());
        Some(name)
    }
}

/// The package's function making the converter of an enum with data (`__init__.py`).
pub const TAGGED_CONVERTER: &str = "_tagged_converter";

/// A converter's definition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Converter {
    /// `def _as_0(v): return <expression of v>`.
    Returns(String),
    /// `_as_0 = <expression>`: a function made when the module runs, from the converters
    /// defined before it.
    Made(String),
}

/// How a result of type `t` becomes what Python gets: the converter [`Records::converter`]
/// names, else `list` for a list of plain items ([`plain_list`]), else nothing (`tvm_ffi`'s
/// own value).
pub fn result_converter(records: &Records, t: &TypeSchema, helpers: &mut Helpers) -> Option<String> {
    records.converter(t, helpers).or_else(|| plain_list(t).map(|_| PLAIN_LIST.to_owned()))
}

/// The converter of a list of plain items: Python's `list`, which the Python door also
/// makes itself (abi-core `door::results`), so a function returning one may take the door.
pub const PLAIN_LIST: &str = Kind::Array.python();

/// The item type of a list result whose items are numbers, `bool`, strings or bytes: a
/// Python `list` of them (as PyO3 returns a `Vec`), not a `tvm_ffi.Array`.
pub fn plain_list(t: &TypeSchema) -> Option<&TypeSchema> {
    match t {
        TypeSchema::Array(item)
            if matches!(
                **item,
                TypeSchema::Bool | TypeSchema::Int(_) | TypeSchema::Float(_) | TypeSchema::Str | TypeSchema::Bytes
            ) =>
        {
            Some(item)
        }
        _ => None,
    }
}

/// The converter functions a package defines, one per type, named `_as_<n>`.
#[derive(Debug, Default)]
pub struct Helpers {
    names: BTreeMap<String, String>,
    /// Their definitions, in the order made: each after those it calls.
    defs: Vec<(String, Converter)>,
}

impl Helpers {
    /// The definitions, in the order made (each after those it calls).
    pub fn into_defs(self) -> Vec<(String, Converter)> {
        self.defs
    }
}

/// Records every named struct inside `t` (`None` for a name two field lists share).
fn collect(t: &TypeSchema, found: &mut BTreeMap<String, Option<Vec<(String, TypeSchema)>>>) {
    if let TypeSchema::Struct { name: Some(name), fields } = t {
        match found.get(name) {
            None => {
                found.insert(name.clone(), Some(fields.clone()));
            }
            Some(Some(seen)) if seen != fields => {
                found.insert(name.clone(), None);
            }
            Some(_) => {}
        }
    }
    match t {
        TypeSchema::Function(Some(f)) => f.params.iter().chain([&f.ret]).for_each(|t| collect(t, found)),
        other => other.args().into_iter().for_each(|t| collect(t, found)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(name: &str, fields: &[&str]) -> TypeSchema {
        TypeSchema::Struct {
            name: Some(name.into()),
            fields: fields.iter().map(|f| (f.to_string(), TypeSchema::Float(None))).collect(),
        }
    }

    #[test]
    fn a_name_two_structs_share_gets_no_named_tuple() {
        let mut found = BTreeMap::new();
        collect(&TypeSchema::Array(Box::new(point("P", &["x", "y"]))), &mut found);
        collect(&TypeSchema::Optional(Box::new(point("P", &["x", "y"]))), &mut found);
        collect(&point("Q", &["a"]), &mut found);
        collect(&point("Q", &["b"]), &mut found);
        assert!(found["P"].is_some());
        assert!(found["Q"].is_none());
    }

    #[test]
    fn converters_are_defined_once_per_type_and_only_where_needed() {
        let structs = [("P".to_owned(), vec![("x".to_owned(), TypeSchema::Float(None))])].into();
        let records = Records { structs, ..Records::default() };
        let mut helpers = Helpers::default();
        let list = TypeSchema::Array(Box::new(point("P", &["x"])));
        assert_eq!(records.converter(&list, &mut helpers).as_deref(), Some("_as_1"));
        assert_eq!(records.converter(&list, &mut helpers).as_deref(), Some("_as_1"));
        assert_eq!(records.converter(&TypeSchema::Array(Box::new(TypeSchema::Str)), &mut helpers), None);
        let pair = |a: &str, b: &str| (a.to_owned(), Converter::Returns(b.to_owned()));
        assert_eq!(
            helpers.defs,
            [pair("_as_0", "P(_item(v, 0))"), pair("_as_1", "[_as_0(_item(v, i)) for i in range(_size(v))]")]
        );
        // A struct without a named tuple, and a tuple, become tuples.
        let tuple = TypeSchema::Tuple(vec![TypeSchema::Str, point("Other", &["z"])]);
        let f = records.converter(&tuple, &mut helpers).unwrap();
        assert_eq!(helpers.defs.last(), Some(&pair(&f, "(_item(v, 0), _as_2(_item(v, 1)),)")), "{:?}", helpers.defs);
    }

    #[test]
    fn an_enum_with_data_is_made_by_its_variants_converting_the_fields_that_need_it() {
        use super::super::tagged::tests::{figure, listing};
        let listing =
            listing(&[("f", [figure("Figure"), figure("Figure")]), ("Shape", [figure("Shape"), TypeSchema::Str])]);
        let records = Records { tagged: Tagged::new(&listing, |name| name == "Shape"), ..Records::default() };
        let mut helpers = Helpers::default();
        let optional = TypeSchema::Optional(Box::new(figure("Figure")));
        assert_eq!(records.converter(&optional, &mut helpers).as_deref(), Some("_as_3"));
        let made = |s: &str| Converter::Made(s.to_owned());
        let returns = |s: &str| Converter::Returns(s.to_owned());
        // The polygon's corners are a list of tuples; its label, and the circle's radius,
        // are kept as they are.
        assert_eq!(
            helpers.defs,
            [
                ("_as_0".to_owned(), returns("(_item(v, 0), _item(v, 1),)")),
                ("_as_1".to_owned(), returns("[_as_0(_item(v, i)) for i in range(_size(v))]")),
                ("_as_2".to_owned(), made(r#"_tagged_converter(Figure, {"Polygon": (_as_1, None)})"#)),
                ("_as_3".to_owned(), returns("None if v is None else _as_2(v)")),
            ]
        );
        // A list of plain items is a `list`; an enum with no classes is left as it is.
        let floats = TypeSchema::Tagged {
            name: "Fs".into(),
            variants: vec![abi_core::schema::TaggedVariant {
                name: "fs".into(),
                ident: "Many".into(),
                fields: vec![("xs".into(), TypeSchema::Array(Box::new(TypeSchema::Float(None))))],
            }],
        };
        let listing = super::super::tagged::tests::listing(&[("g", [floats.clone(), TypeSchema::Str])]);
        let records = Records { tagged: Tagged::new(&listing, |_| false), ..Records::default() };
        let f = records.converter(&floats, &mut helpers).unwrap();
        assert_eq!(helpers.defs.last(), Some(&(f, made(r#"_tagged_converter(Fs, {"fs": (list,)})"#))));
        assert_eq!(records.converter(&figure("Shape"), &mut helpers), None);
    }
}
