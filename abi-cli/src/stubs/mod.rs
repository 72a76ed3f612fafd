//! `abi stubs`: a Python package for a library: `__init__.py` loads the library file placed
//! next to it through `tvm_ffi.load_module` and exposes its exports as module attributes;
//! `__init__.pyi` gives them typed signatures with parameter names and docstrings; and
//! `py.typed` tells type checkers to read them. Both files are rendered from one model of
//! the package (`model.rs`).

mod build;
mod enums;
mod errors;
mod literal;
mod model;
mod op_stubs;
mod ops;
mod records;
mod runtime;
mod signature;
mod stub;
mod tagged;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

use abi_core::schema::Class;
use abi_shared::vocab::Kind;

use crate::read::Listing;
use literal::{py_str, py_triple};
pub use runtime::EDITABLE_FILE;

/// The package's files, by name inside the package folder: `__init__.py`, `__init__.pyi`
/// and `py.typed`; `_abi_ops.py` when the library has ops, `_abi_door.py` when it has plain
/// functions the Python door may serve.
pub fn files(listing: &Listing, package: &str) -> Result<Vec<(&'static str, String)>, String> {
    check_package_name(package)?;
    let lib_name = listing.path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let model = build::package(listing, package, &lib_name);
    let mut files = vec![
        ("__init__.py", runtime::init_py(&model)),
        ("__init__.pyi", stub::init_pyi(&model)),
        ("py.typed", String::new()),
    ];
    if model.has_ops {
        files.push((ops::SUPPORT_FILE, ops::SUPPORT.to_owned()));
    }
    if !runtime::door_names(&model).is_empty() {
        files.push((runtime::DOOR_FILE, runtime::DOOR_SUPPORT.to_owned()));
    }
    Ok(files)
}

/// Whether the library has ops, so its package has the `torch` and `jax` namespaces (and
/// needs the extras of the same names).
pub fn has_ops(listing: &Listing) -> bool {
    ops::any(listing)
}

use abi_shared::is_python_identifier as is_python_name;

/// Refuses a package name Python cannot import.
pub fn check_package_name(package: &str) -> Result<(), String> {
    if !is_python_name(package) {
        return Err(format!("`{package}` is not a Python package name"));
    }
    Ok(())
}

/// Writes the package into `out/package`; returns the files written.
pub fn write(listing: &Listing, package: &str, out: &Path) -> Result<Vec<PathBuf>, String> {
    let files = files(listing, package)?;
    let dir = out.join(package);
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    write_files(&dir, files)
}

/// Writes each `(name, text)` into `dir`; returns the paths written.
pub fn write_files(
    dir: &Path,
    files: impl IntoIterator<Item = (&'static str, String)>,
) -> Result<Vec<PathBuf>, String> {
    let mut written = Vec::new();
    for (name, text) in files {
        let path = dir.join(name);
        std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        written.push(path);
    }
    Ok(written)
}

/// Exports the package makes attributes: those Python can name, except private names
/// (a leading `_`, where the package keeps its own helpers), the two modules it imports,
/// ops' JAX-order entry points (which only the ops call) and, in a package with ops, its
/// `torch` and `jax` namespaces; the rest stay reachable as `_lib["name"]`.
fn exposed(listing: &Listing) -> impl Iterator<Item = &crate::read::Export> {
    let jax_entries = ops::jax_entries(listing);
    let namespaces = ops::any(listing);
    listing.exports.iter().filter(move |e| {
        is_public_name(&e.name)
            && !jax_entries.contains(&e.name.as_str())
            && !(namespaces && matches!(e.name.as_str(), "torch" | "jax"))
    })
}

/// The alias of what an argument of the named tuple or class `name` may be (`PointLike`).
fn like(name: &str) -> String {
    format!("{name}Like")
}

/// The Python name of a class for Rust type `rust`: its own name, else `Name_2`, `Name_3`...
/// (two types of one name with other contents), never one in `used` or that `taken` takes,
/// nor one whose alias (`NameLike`) it takes; `None` when `taken` takes the name itself or
/// its alias. The name returned is added to `used`.
fn class_name(rust: &str, used: &mut HashSet<String>, taken: impl Fn(&str) -> bool) -> Option<String> {
    if taken(rust) || taken(&like(rust)) {
        return None;
    }
    let mut name = rust.to_owned();
    for n in 2.. {
        if !used.contains(&name) && !taken(&name) && !taken(&like(&name)) {
            break;
        }
        name = format!("{rust}_{n}");
    }
    used.insert(name.clone());
    Some(name)
}

/// A name the package may define at module level for the library (an export, a class, a
/// named tuple) without clashing with its own.
fn is_public_name(name: &str) -> bool {
    is_python_name(name) && !name.starts_with('_') && !matches!(name, "Path" | "tvm_ffi")
}

/// The Python class name of each declared type key: the key's last part (`Counter` for
/// `mylib.Counter`), or the whole key as an identifier ([`whole_key_name`]) when that part
/// is taken (by an export, another class or a keyword) or is not an identifier.
struct ClassNames(BTreeMap<String, String>);

impl ClassNames {
    fn new(listing: &Listing) -> ClassNames {
        // Sets, not scans: a file may declare tens of thousands of classes.
        let short = |key: &str| key.rsplit('.').next().unwrap_or(key).to_owned();
        let exports: HashSet<&str> = listing.exports.iter().map(|e| e.name.as_str()).collect();
        let mut keys_of: HashMap<String, BTreeSet<&str>> = HashMap::new();
        for c in &listing.classes {
            keys_of.entry(short(&c.key)).or_default().insert(&c.key);
        }
        let mut names = BTreeMap::new();
        // An export's name is taken too: a class keyed `make_counter` beside the export
        // `make_counter` would be shadowed by its `def`.
        let mut used: HashSet<String> = exports.iter().map(|&e| e.to_owned()).collect();
        let mut suffixes: HashMap<String, usize> = HashMap::new();
        for class in &listing.classes {
            let name = short(&class.key);
            let taken = exports.contains(name.as_str()) || keys_of[&name].len() > 1 || !is_public_name(&name);
            let mut name = if taken { whole_key_name(&class.key) } else { name };
            // Two keys a file spells alike once made names (`a-b`, `a_b`) stay apart: the
            // later ones get `_2`, `_3`.
            if used.contains(&name) {
                let base = name.clone();
                let tried = suffixes.entry(base.clone()).or_insert(1);
                while used.contains(&name) {
                    *tried += 1;
                    name = format!("{base}_{tried}");
                }
            }
            used.insert(name.clone());
            names.insert(class.key.clone(), name);
        }
        ClassNames(names)
    }

    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).map(String::as_str)
    }

    /// The base class Python code names for `class`.
    fn base(&self, class: &Class) -> String {
        self.get(&class.parent).unwrap_or(Kind::Object.stub()).to_owned()
    }
}

/// The class name of a whole type key: `_` for each character an identifier cannot hold
/// (`mylib_Counter`), and `T_` before one that still is no public name (a keyword, a
/// leading digit or `_`): a key comes from the file, which may hold anything.
fn whole_key_name(key: &str) -> String {
    let name: String = key.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
    if is_public_name(&name) {
        name
    } else {
        format!("T_{name}")
    }
}

/// Classes with every parent before its children (the order Python needs): by the
/// number of declared ancestors, then by key. Each depth is found once (a chain of 30,000
/// classes, which a file may declare, took minutes when each step searched the list).
fn parents_first(classes: &[Class]) -> Vec<&Class> {
    let mut index: HashMap<&str, usize> = HashMap::new();
    for (i, c) in classes.iter().enumerate() {
        index.entry(c.key.as_str()).or_insert(i);
    }
    let mut depth: Vec<Option<usize>> = vec![None; classes.len()];
    for start in 0..classes.len() {
        // Up to a class whose depth is known or one without a declared parent; bounded,
        // since a cycle cannot come from Rust types but the records are input.
        let (mut chain, mut at) = (Vec::new(), Some(start));
        while let Some(i) = at.filter(|&i| depth[i].is_none() && chain.len() <= classes.len()) {
            chain.push(i);
            at = index.get(classes[i].parent.as_str()).copied();
        }
        let first = at.and_then(|i| depth[i]).map_or(0, |d| d + 1);
        for (d, &i) in (first..).zip(chain.iter().rev()) {
            depth[i].get_or_insert(d);
        }
    }
    let mut out: Vec<(usize, &Class)> = classes.iter().enumerate().map(|(i, c)| (depth[i].unwrap_or(0), c)).collect();
    out.sort_by_key(|&(d, _)| d);
    out.into_iter().map(|(_, c)| c).collect()
}

/// `"""doc"""` indented by `indent`, or `None` for no docs. Its continuation lines are
/// indented too, which editors remove (`inspect.cleandoc`) to show the docs as written;
/// except in docs holding a tab, which cleaning expands to the next multiple of 8 columns
/// and the indentation would move.
fn docstring(doc: &str, indent: &str) -> Option<String> {
    let continued = if doc.contains('\t') { "" } else { indent };
    (!doc.is_empty()).then(|| format!("{indent}{}\n", py_triple(doc, continued)))
}

fn py_list(names: &[&str]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| py_str(n)).collect();
    format!("[{}]", quoted.join(", "))
}

/// A Python tuple of the expressions `items`: `(x,)` for one.
fn py_tuple(items: &[String]) -> String {
    match items {
        [one] => format!("({one},)"),
        _ => format!("({})", items.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(key: &str, parent: &str) -> Class {
        Class { key: key.into(), parent: parent.into(), doc: String::new(), fields: Vec::new(), methods: Vec::new() }
    }

    #[test]
    fn parents_come_before_children_whatever_their_keys() {
        // The child's key sorts first; a cycle in (hostile) records still terminates.
        let classes = [class("k.Child", "k.Parent"), class("k.Parent", "ffi.Object"), class("k.Grand", "k.Child")];
        let keys: Vec<&str> = parents_first(&classes).iter().map(|c| c.key.as_str()).collect();
        assert_eq!(keys, ["k.Parent", "k.Child", "k.Grand"]);
        let cycle = [class("k.A", "k.B"), class("k.B", "k.A")];
        assert_eq!(parents_first(&cycle).len(), 2);
    }
}
