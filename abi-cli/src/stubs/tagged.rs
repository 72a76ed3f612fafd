//! Classes for the library's enums with data: a value crosses as a tagged tuple (the
//! variant's name, then its fields), so the package defines a base class per enum its
//! signatures and class fields mention (`class Figure(tuple)`) and beneath it a class per
//! variant (`Figure.Circle`), a tuple subclass whose value is that tuple: an instance passes
//! to the library as it is, and the wrappers convert results into instances (as named
//! tuples are made, `records.rs`). Arguments take an instance or a plain tuple
//! (`FigureLike`), which the library checks.

use std::collections::{BTreeMap, HashSet};

use abi_core::schema::{TaggedVariant, TypeSchema};

use super::{class_name, is_python_name, like};
use crate::read::Listing;

/// An enum with data that gets classes.
#[derive(Clone, Debug)]
pub struct TaggedClass {
    /// The base class's name: the enum's, or `Figure_2` for a second enum called `Figure`.
    pub name: String,
    /// The alias of what an argument may be (`FigureLike`).
    pub like: String,
    /// Its docstring (the Rust enum's docs are not published).
    pub doc: String,
    /// Its variants' classes, in declaration order.
    pub variants: Vec<VariantClass>,
}

/// The class of one variant: `Figure.Circle`.
#[derive(Clone, Debug)]
pub struct VariantClass {
    /// Its Python name: the variant's identifier (a keyword followed by `_`).
    pub name: String,
    /// The name it crosses as (the tuple's first item).
    pub tag: String,
    /// Its docstring.
    pub doc: String,
    /// Whether its fields are positional (a tuple variant): its attributes are `_0`, `_1`...
    /// and its constructor takes them by position only.
    pub positional: bool,
    /// Its fields: `(attribute, type)`, in declaration order.
    pub fields: Vec<(String, TypeSchema)>,
}

/// The enums with data that get classes, by their `type_schema`.
#[derive(Debug, Default)]
pub struct Tagged {
    classes: BTreeMap<String, TaggedClass>,
}

impl Tagged {
    /// Every enum with data in the listing's signatures and class fields whose name Python
    /// can use and `taken` does not take, and whose variants and fields can be attributes;
    /// two enums of one name (with other variants) get apart, the later (in the listing's
    /// order of enums with data) `Figure_2`.
    pub fn new(listing: &Listing, taken: impl Fn(&str) -> bool) -> Tagged {
        let mut used = HashSet::new();
        let mut classes = BTreeMap::new();
        for e in listing.data_enums() {
            let Some(variants) = variant_classes(&e.name, &e.variants) else { continue };
            let Some(name) = class_name(&e.name, &mut used, &taken) else { continue };
            let variants: Vec<VariantClass> =
                variants.into_iter().map(|v| VariantClass { doc: variant_doc(&name, &v), ..v }).collect();
            let listed: Vec<String> = variants.iter().map(|v| format!("{name}.{}", v.name)).collect();
            let doc = format!(
                "The enum with data {}: a value is an instance of one of its variants' classes ({}), each a \
                 tuple of the variant's name and its fields, which is what crosses.",
                e.name,
                listed.join(", ")
            );
            let key = TypeSchema::Tagged { name: e.name, variants: e.variants }.to_json();
            classes.insert(key, TaggedClass { like: like(&name), name, doc, variants });
        }
        Tagged { classes }
    }

    /// The classes of `t`, when it is an enum with data with classes.
    pub fn class(&self, t: &TypeSchema) -> Option<&TaggedClass> {
        match t {
            TypeSchema::Tagged { .. } => self.classes.get(&t.to_json()),
            _ => None,
        }
    }

    /// The classes, by name.
    pub fn iter(&self) -> impl Iterator<Item = &TaggedClass> {
        let mut classes: Vec<&TaggedClass> = self.classes.values().collect();
        classes.sort_by(|a, b| a.name.cmp(&b.name));
        classes.into_iter()
    }
}

/// What every instance or the base class has already, which a variant's class or a field
/// of that name would hide: `tuple`'s methods, and `type`'s `mro`.
const ATTRIBUTES: [&str; 3] = ["count", "index", "mro"];

/// The variants' classes (their docs left to [`variant_doc`]): each named by its
/// identifier, a Python keyword followed by `_` (`None_`); a named variant's fields by
/// their names, a tuple variant's `_0`, `_1`... `None` when a variant or a field cannot be
/// an attribute: not an identifier, a leading `_` (the package's own names), one hiding an
/// attribute of tuples or of the class, two alike, or a field named like a variant (its
/// property would hide the variant's class on instances).
fn variant_classes(enum_name: &str, variants: &[TaggedVariant]) -> Option<Vec<VariantClass>> {
    let usable = |name: &str| !name.starts_with('_') && !ATTRIBUTES.contains(&name);
    let mut classes: Vec<VariantClass> = Vec::with_capacity(variants.len());
    for v in variants {
        let name = if is_python_name(&v.ident) {
            v.ident.clone()
        } else if abi_shared::is_c_identifier(&v.ident) {
            format!("{}_", v.ident)
        } else {
            return None;
        };
        if !usable(&name) || name == enum_name || classes.iter().any(|c| c.name == name) {
            return None;
        }
        let positional = v.tuple_like();
        let fields: Vec<(String, TypeSchema)> = if positional {
            v.fields.iter().enumerate().map(|(i, (_, t))| (format!("_{i}"), t.clone())).collect()
        } else {
            v.fields.clone()
        };
        if !positional && !fields.iter().all(|(f, _)| is_python_name(f) && usable(f)) {
            return None;
        }
        classes.push(VariantClass { name, tag: v.name.clone(), doc: String::new(), positional, fields });
    }
    let names: HashSet<&str> = classes.iter().map(|c| c.name.as_str()).collect();
    let field_hides_a_variant = classes.iter().flat_map(|c| &c.fields).any(|(f, _)| names.contains(f.as_str()));
    (!field_hides_a_variant).then_some(classes)
}

/// `The variant Figure.Circle: the tuple ("Circle", r).`
fn variant_doc(class: &str, v: &VariantClass) -> String {
    let tag = serde_json::Value::String(v.tag.clone()).to_string();
    let items: Vec<&str> = [tag.as_str()].into_iter().chain(v.fields.iter().map(|(f, _)| f.as_str())).collect();
    let tuple = match items.as_slice() {
        [one] => format!("({one},)"),
        many => format!("({})", many.join(", ")),
    };
    format!("The variant {class}.{}: the tuple {tuple}.", v.name)
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::read::{Export, Source};
    use abi_core::schema::Metadata;
    use abi_shared::vocab::Kind;

    /// `Figure`: `Circle { r: f64 }`, `Polygon(Vec<(f64, f64)>, String)`, `Empty`; named
    /// `name`.
    pub fn figure(name: &str) -> TypeSchema {
        let pair = TypeSchema::Tuple(vec![TypeSchema::Float(None); 2]);
        let fields = |f: &[(&str, TypeSchema)]| f.iter().map(|(n, t)| ((*n).to_owned(), t.clone())).collect();
        TypeSchema::Tagged {
            name: name.into(),
            variants: vec![
                TaggedVariant {
                    name: "Circle".into(),
                    ident: "Circle".into(),
                    fields: fields(&[("r", TypeSchema::Float(None))]),
                },
                TaggedVariant {
                    name: "Polygon".into(),
                    ident: "Polygon".into(),
                    fields: fields(&[("0", TypeSchema::Array(Box::new(pair))), ("1", TypeSchema::Str)]),
                },
                TaggedVariant { name: "Empty".into(), ident: "Empty".into(), fields: Vec::new() },
            ],
        }
    }

    /// A listing of `exports`: `(name, the type of its one parameter and of its result)`.
    pub fn listing(exports: &[(&str, [TypeSchema; 2])]) -> Listing {
        let exports = exports
            .iter()
            .map(|(name, [param, ret])| {
                let parse = |t: &TypeSchema| serde_json::from_str::<serde_json::Value>(&t.to_json()).unwrap();
                let schema = serde_json::json!({"type": Kind::Callable.key(), "named_args": {
                    "return": [parse(ret)], "params": [parse(param)],
                }});
                let metadata = serde_json::json!({
                    "type_schema": schema.to_string(), "arg_names": ["x"], "abi.version": abi_shared::METADATA_VERSION,
                });
                Export {
                    name: (*name).into(),
                    metadata: Some(Metadata::parse(&metadata.to_string()).unwrap()),
                    doc: None,
                }
            })
            .collect();
        Listing {
            path: "libx.so".into(),
            source: Source::Data,
            exports,
            classes: Vec::new(),
            errors: Vec::new(),
            iree: Default::default(),
        }
    }

    #[test]
    fn enums_of_one_name_get_classes_apart_and_taken_names_none() {
        let other = TypeSchema::Tagged { name: "Figure".into(), variants: vec![variant("Dot", "Dot", &[])] };
        let hidden = TypeSchema::Tagged { name: "Hidden".into(), variants: vec![variant("count", "count", &[])] };
        let listing = listing(&[
            ("f", [figure("Figure"), other.clone()]),
            ("g", [figure("g"), hidden.clone()]),
            ("Figure_2Like", [figure("Figure"), figure("Figure")]),
        ]);
        let tagged = Tagged::new(&listing, |name| listing.exports.iter().any(|e| e.name == name));
        let names: Vec<(&str, &str)> = tagged.iter().map(|c| (c.name.as_str(), c.like.as_str())).collect();
        // Two enums called `Figure` (by their variants), `Figure_2Like` taken by an export;
        // `g` taken by an export, `Hidden` with a variant that would hide `tuple.count`.
        assert_eq!(names, [("Figure", "FigureLike"), ("Figure_3", "Figure_3Like")]);
        let class = tagged.class(&figure("Figure")).unwrap();
        assert!(class.doc.contains("(Figure.Circle, Figure.Polygon, Figure.Empty)"), "{}", class.doc);
        let docs: Vec<&str> = class.variants.iter().map(|v| v.doc.as_str()).collect();
        assert_eq!(
            docs,
            [
                r#"The variant Figure.Circle: the tuple ("Circle", r)."#,
                r#"The variant Figure.Polygon: the tuple ("Polygon", _0, _1)."#,
                r#"The variant Figure.Empty: the tuple ("Empty",)."#,
            ]
        );
        assert_eq!(tagged.class(&other).map(|c| c.name.as_str()), Some("Figure_3"));
        assert!(tagged.class(&figure("g")).is_none() && tagged.class(&hidden).is_none());
        assert!(tagged.class(&TypeSchema::Str).is_none());
    }

    fn variant(name: &str, ident: &str, fields: &[&str]) -> TaggedVariant {
        TaggedVariant {
            name: name.into(),
            ident: ident.into(),
            fields: fields.iter().map(|f| ((*f).to_owned(), TypeSchema::Float(None))).collect(),
        }
    }

    #[test]
    fn variants_are_classes_by_identifier_and_fields_attributes() {
        let classes = variant_classes(
            "Figure",
            &[
                variant("circle", "Circle", &["r"]),
                variant("poly", "Polygon", &["0", "1"]),
                // A Python keyword: the class is `None_`.
                variant("none", Kind::None.python(), &[]),
            ],
        )
        .unwrap();
        let summary: Vec<(&str, &str, bool, Vec<&str>)> = classes
            .iter()
            .map(|c| {
                (c.name.as_str(), c.tag.as_str(), c.positional, c.fields.iter().map(|(f, _)| f.as_str()).collect())
            })
            .collect();
        assert_eq!(
            summary,
            [
                ("Circle", "circle", false, vec!["r"]),
                ("Polygon", "poly", true, vec!["_0", "_1"]),
                ("None_", "none", false, vec![]),
            ]
        );
        assert_eq!(variant_doc("Figure", &classes[1]), r#"The variant Figure.Polygon: the tuple ("poly", _0, _1)."#);
        assert_eq!(variant_doc("Figure", &classes[2]), r#"The variant Figure.None_: the tuple ("none",)."#);
    }

    #[test]
    fn variants_or_fields_that_cannot_be_attributes_give_no_classes() {
        let unusable: [&[TaggedVariant]; 7] = [
            &[variant("a", "_Hidden", &[])],
            &[variant("a", "count", &[])],
            &[variant("a", "A", &["index"])],
            &[variant("a", "A", &["_x"])],
            &[variant("a", "A", &["lambda"])],
            &[variant("a", "A", &["B"]), variant("b", "B", &[])],
            &[variant("a", "Figure", &[])],
        ];
        for variants in unusable {
            assert!(variant_classes("Figure", variants).is_none(), "{variants:?}");
        }
    }
}
