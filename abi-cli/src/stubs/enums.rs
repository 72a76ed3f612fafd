//! Enum classes for the library's fieldless enums: a value crosses as the name of its
//! variant (a string), so the package defines a `str` enum per enum its signatures and
//! class fields mention (`class Interp(str, enum.Enum)`, whose member `Bicubic` is the
//! string `"cubic"`), its wrappers convert results into members (as named tuples are made,
//! `records.rs`), and arguments take a member or the name itself (`InterpLike`), which the
//! library checks.

use std::collections::{BTreeMap, HashSet};

use abi_core::schema::TypeSchema;
use serde_json::Value;

use super::model::EnumClass;
use super::{class_name, is_python_name, like};
use crate::read::{EnumType, Listing};

/// The enums that get a class.
#[derive(Debug, Default)]
pub struct Enums {
    classes: BTreeMap<EnumType, EnumClass>,
}

impl Enums {
    /// Every enum in the listing's signatures and class fields whose name Python can use
    /// and `taken` does not take, and whose variants' identifiers can name members; two
    /// enums of one name (with other names or variants) get apart, the later (in the
    /// listing's order of enums) `Interp_2`.
    pub fn new(listing: &Listing, taken: impl Fn(&str) -> bool) -> Enums {
        let mut used = HashSet::new();
        let mut classes = BTreeMap::new();
        for e in listing.enums() {
            let Some(members) = member_names(&e.variants) else { continue };
            let Some(name) = class_name(&e.name, &mut used, &taken) else { continue };
            let quoted: Vec<String> = e.names.iter().map(|n| format!("{n:?}")).collect();
            let doc = format!("The names {} crosses as: {}.", e.name, quoted.join(", "));
            let members = members.into_iter().zip(e.names.iter().cloned()).collect();
            classes.insert(e, EnumClass { like: like(&name), name, doc, members });
        }
        Enums { classes }
    }

    /// The class of `t`, when it is an enum with one.
    pub fn class(&self, t: &TypeSchema) -> Option<&EnumClass> {
        let TypeSchema::Enum { name, names, variants } = t else { return None };
        self.classes.get(&EnumType { name: name.clone(), names: names.clone(), variants: variants.clone() })
    }

    /// The classes, by name.
    pub fn iter(&self) -> impl Iterator<Item = &EnumClass> {
        let mut classes: Vec<&EnumClass> = self.classes.values().collect();
        classes.sort_by(|a, b| a.name.cmp(&b.name));
        classes.into_iter()
    }

    /// A parameter's default as its member (`Interp.Nearest`), when the parameter is an enum
    /// with a class (or an `Optional` of one) and the default one of its names.
    pub fn default_member(&self, t: &TypeSchema, value: &Value) -> Option<String> {
        let t = match t {
            TypeSchema::Optional(inner) => inner,
            t => t,
        };
        let class = self.class(t)?;
        let (member, _) = class.members.iter().find(|(_, n)| Some(n.as_str()) == value.as_str())?;
        Some(format!("{}.{member}", class.name))
    }
}

/// What every member has already, which a member of that name would hide: `str`'s methods,
/// and the names `enum` gives members or reserves.
const MEMBER_ATTRIBUTES: &str = "capitalize casefold center count encode endswith expandtabs find format format_map \
     index isalnum isalpha isascii isdecimal isdigit isidentifier islower isnumeric isprintable isspace istitle \
     isupper join ljust lower lstrip maketrans partition removeprefix removesuffix replace rfind rindex rjust \
     rpartition rsplit rstrip split splitlines startswith strip swapcase title translate upper zfill name value mro";

/// The members' Python names: each variant's identifier, a Python keyword followed by `_`
/// (`None_`, as PEP 8 spells it); `None` when one is no identifier, starts with `_` (names
/// `enum` reserves or keeps out of its members), hides an attribute of members, or two
/// come out alike.
fn member_names(variants: &[String]) -> Option<Vec<String>> {
    let mut names = Vec::with_capacity(variants.len());
    for v in variants {
        let name = if is_python_name(v) {
            v.clone()
        } else if abi_shared::is_c_identifier(v) {
            format!("{v}_")
        } else {
            return None;
        };
        if name.starts_with('_') || MEMBER_ATTRIBUTES.split_whitespace().any(|a| a == name) || names.contains(&name) {
            return None;
        }
        names.push(name);
    }
    Some(names)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::{Export, Source};
    use abi_core::schema::Metadata;

    /// An enum: `(Rust name, names, variants)`.
    type Enum<'a> = (&'a str, &'a [&'a str], &'a [&'a str]);

    /// A listing of `exports`: `(name, the enums its one parameter and result are)`.
    fn listing(exports: &[(&str, [Enum<'_>; 2])]) -> Listing {
        let exports = exports
            .iter()
            .map(|(name, [param, ret])| {
                let enum_schema = |(name, names, variants): &Enum<'_>| {
                    serde_json::json!({"type": "ffi.String", "abi.enum": name, "abi.names": names, "abi.variants": variants})
                };
                let schema = serde_json::json!({"type": "ffi.Function", "named_args": {
                    "return": [enum_schema(ret)], "params": [enum_schema(param)],
                }});
                let metadata = serde_json::json!({
                    "type_schema": schema.to_string(), "arg_names": ["x"], "abi.version": abi_shared::METADATA_VERSION,
                });
                Export { name: (*name).into(), metadata: Some(Metadata::parse(&metadata.to_string()).unwrap()), doc: None }
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
        let mode = ("Mode", &["fast", "slow"][..], &["Fast", "Slow"][..]);
        let other_mode = ("Mode", &["quick"][..], &["Quick"][..]);
        let renamed = ("Mode", &["fast", "slow"][..], &["Quick", "Slow"][..]);
        let taken = ("g", &["a"][..], &["A"][..]);
        let hidden = ("Hidden", &["x"][..], &["upper"][..]);
        let listing = listing(&[
            ("f", [mode, other_mode]),
            ("g", [renamed, mode]),
            ("h", [taken, hidden]),
            ("Mode_3", [mode, mode]),
        ]);
        let enums = Enums::new(&listing, |name| listing.exports.iter().any(|e| e.name == name));
        let names: Vec<(&str, &str)> = enums.iter().map(|c| (c.name.as_str(), c.like.as_str())).collect();
        // Three enums called `Mode` (by their names and variants), `Mode_3` taken by an
        // export; `g` taken by an export, `Hidden` with a member that would hide `str.upper`.
        assert_eq!(names, [("Mode", "ModeLike"), ("Mode_2", "Mode_2Like"), ("Mode_4", "Mode_4Like")]);
        let schema = |(name, names, variants): Enum<'_>| TypeSchema::Enum {
            name: name.into(),
            names: names.iter().map(|n| (*n).to_owned()).collect(),
            variants: variants.iter().map(|v| (*v).to_owned()).collect(),
        };
        let class = enums.class(&schema(renamed)).unwrap();
        assert_eq!(class.members, [("Quick".to_owned(), "fast".to_owned()), ("Slow".to_owned(), "slow".to_owned())]);
        assert_eq!(class.doc, r#"The names Mode crosses as: "fast", "slow"."#);
        let optional = TypeSchema::Optional(Box::new(schema(renamed)));
        assert_eq!(enums.default_member(&optional, &Value::from("slow")), Some(format!("{}.Slow", class.name)));
        assert_eq!(enums.default_member(&optional, &Value::from("slowest")), None);
        assert!(enums.class(&schema(taken)).is_none() && enums.class(&schema(hidden)).is_none());
    }

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn members_are_the_variants_a_keyword_with_an_underscore() {
        assert_eq!(member_names(&strings(&["Nearest", "None", "True"])), Some(strings(&["Nearest", "None_", "True_"])));
        for unusable in [&["_Hidden"][..], &["upper"], &["value"], &["mro"], &["a-b"], &["None", "None_"]] {
            assert_eq!(member_names(&strings(unusable)), None, "{unusable:?}");
        }
    }
}
