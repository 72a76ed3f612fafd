//! Reading a library's exports from disk (ELF, Mach-O or PE, [`crate::formats`]): the
//! metadata and docs abi libraries publish in their export records section, read with the
//! `object` crate so no code of the library runs; libraries that publish them only as
//! functions (C++ tvm-ffi libraries) are loaded and asked, unless the caller forbids it
//! or the library is another platform's.

use std::path::{Path, PathBuf};

use abi_core::schema::{
    parse_export_records, parse_iree_records, ExportRecord, IreeRecords, Metadata, TaggedVariant, TypeSchema,
};
use abi_core::Library;

use crate::classes;
use crate::formats::{self, Records};
use abi_core::schema::{Class, ErrorType};
use object::{Object, ObjectKind};

/// One exported packed function.
#[derive(Debug, Clone)]
pub struct Export {
    /// The exported name (symbol `__tvm_ffi_<name>`).
    pub name: String,
    /// Its published metadata, if any.
    pub metadata: Option<Metadata>,
    /// Its docstring, if any.
    pub doc: Option<String>,
}

/// Where the metadata came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Data symbols in the file: nothing ran.
    Data,
    /// Metadata functions, called after loading the library.
    Loaded,
    /// No metadata published at all.
    None,
}

impl Source {
    /// How reports name it.
    pub fn describe(self) -> &'static str {
        match self {
            Source::Data => "read from the file's data; no library code ran",
            Source::Loaded => "returned by the library's metadata functions (the library was loaded)",
            Source::None => "none published",
        }
    }

    /// The `--json` spelling.
    pub fn key(self) -> &'static str {
        match self {
            Source::Data => "data",
            Source::Loaded => "loaded",
            Source::None => "none",
        }
    }
}

/// A library's exports, sorted by name.
#[derive(Debug)]
pub struct Listing {
    /// The file.
    pub path: PathBuf,
    /// Where the metadata came from.
    pub source: Source,
    /// The exports.
    pub exports: Vec<Export>,
    /// The object classes the library declares, sorted by type key.
    pub classes: Vec<Class>,
    /// The error types the library derives (`#[derive(AbiError)]`), sorted by name.
    pub errors: Vec<ErrorType>,
    /// Its IREE module and functions.
    pub iree: IreeRecords,
}

/// A fieldless enum some signature of a listing names: its Rust name, the names its
/// variants cross as and their Rust identifiers.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct EnumType {
    /// The Rust name.
    pub name: String,
    /// The names, in declaration order.
    pub names: Vec<String>,
    /// The variants' Rust identifiers, in the same order.
    pub variants: Vec<String>,
}

/// An enum with data some signature of a listing names: its Rust name and its variants
/// (the names they cross as, their Rust identifiers, their fields).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataEnumType {
    /// The Rust name.
    pub name: String,
    /// The variants, in declaration order.
    pub variants: Vec<TaggedVariant>,
}

impl Listing {
    /// The fieldless enums the exports' and classes' signatures name, sorted, each once
    /// (two enums of one name with other names are two).
    pub fn enums(&self) -> Vec<EnumType> {
        let mut found = std::collections::BTreeSet::new();
        self.walk_types(&mut |t| {
            if let TypeSchema::Enum { name, names, variants } = t {
                found.insert(EnumType { name: name.clone(), names: names.clone(), variants: variants.clone() });
            }
        });
        found.into_iter().collect()
    }

    /// The enums with data the exports' and classes' signatures name, sorted by name, each
    /// once (two enums of one name with other variants are two).
    pub fn data_enums(&self) -> Vec<DataEnumType> {
        let mut found = std::collections::BTreeMap::new();
        self.walk_types(&mut |t| {
            if let TypeSchema::Tagged { name, variants } = t {
                let found_type = DataEnumType { name: name.clone(), variants: variants.clone() };
                found.entry((name.clone(), t.to_json())).or_insert(found_type);
            }
        });
        found.into_values().collect()
    }

    // Every type the exports' and classes' signatures and the classes' fields name, and
    // every type inside each.
    fn walk_types<'a>(&'a self, visit: &mut impl FnMut(&'a TypeSchema)) {
        let signatures = self
            .exports
            .iter()
            .filter_map(|e| e.metadata.as_ref())
            .chain(self.classes.iter().flat_map(|c| c.methods.iter().map(|m| &m.metadata)));
        for f in signatures.filter_map(|m| m.type_schema.as_ref()) {
            f.params.iter().chain([&f.ret]).for_each(|t| t.walk(visit));
        }
        for field in self.classes.iter().flat_map(|c| &c.fields) {
            field.ty.walk(visit);
        }
    }

    /// The warning a library with `#[export_fn(iree)]` functions and no module earns: IREE
    /// cannot load it, and the macro to add.
    pub fn iree_warning(&self) -> Option<String> {
        if !self.iree.modules.is_empty() || self.iree.functions.is_empty() {
            return None;
        }
        let names: Vec<&str> = self.iree.functions.iter().map(|f| f.name.as_str()).collect();
        Some(format!(
            "{} has IREE functions but no module entry point (#[export_fn(iree)]: {}): IREE cannot load it \
             (\"symbol 'iree_vm_dynamic_module_create' not found in library\"); add `abi_core::iree_module!(\"name\");` \
             to the crate that builds the library",
            self.path.display(),
            names.join(", ")
        ))
    }
}

/// What one export publishes in the file.
#[derive(Default)]
struct Found {
    metadata_data: Option<String>,
    doc_data: Option<String>,
    metadata_fn: bool,
    doc_fn: bool,
}

/// What [`read`] says of a library without packed exports.
pub const NO_PACKED_FUNCTIONS: &str = "exports no packed functions";

/// The path to load `path` from: a bare file name (no folder) that names a file here is
/// that file (`./name`), not a name for the dynamic loader to look up in its search path.
pub fn loadable(path: &Path) -> std::borrow::Cow<'_, Path> {
    let bare = path.parent().is_some_and(|p| p.as_os_str().is_empty());
    if bare && path.is_file() {
        std::borrow::Cow::Owned(Path::new(".").join(path))
    } else {
        std::borrow::Cow::Borrowed(path)
    }
}

/// Reads `path`; `allow_load` permits loading a library whose metadata is only reachable
/// by calling it.
pub fn read(path: &Path, allow_load: bool) -> Result<Listing, String> {
    let cannot = |e: std::io::Error| format!("cannot read {}: {e}", path.display());
    // A device or a pipe has no size to bound the read by (`/dev/zero` never ends).
    if !std::fs::metadata(path).map_err(cannot)?.is_file() {
        return Err(format!("cannot read {}: not a regular file (a library is one)", path.display()));
    }
    let bytes = std::fs::read(path).map_err(cannot)?;
    read_bytes(path, &bytes, allow_load)
}

/// Reads a library file's `bytes`, which may be damaged or hostile: a listing or an error,
/// never a panic, and nothing allocated beyond what the bytes hold
/// (`abi_core::schema::limits`). `path` names the file in messages, and is what is loaded
/// when `allow_load` permits it and the metadata is only reachable by calling the library.
pub fn read_bytes(path: &Path, bytes: &[u8], allow_load: bool) -> Result<Listing, String> {
    if matches!(object::FileKind::parse(bytes), Ok(object::FileKind::MachOFat32 | object::FileKind::MachOFat64)) {
        return Err(format!(
            "{} is a universal (fat) Mach-O file, which abi does not read: build one architecture \
             (cargo build --target aarch64-apple-darwin) or take one out (lipo -thin arm64)",
            path.display()
        ));
    }
    let file = object::File::parse(bytes).map_err(|e| format!("{} is not a shared library: {e}", path.display()))?;
    if file.kind() != ObjectKind::Dynamic {
        return Err(format!("{} is not a shared library (it is {:?})", path.display(), file.kind()));
    }
    let (classes, errors) = classes::read(&file).map_err(|e| format!("{}: {e}", path.display()))?;
    let iree = iree_records(&file).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut found: std::collections::BTreeMap<String, Found> = Default::default();
    for record in export_records(&file).map_err(|e| format!("{}: {e}", path.display()))? {
        let entry = found.entry(record.name).or_default();
        entry.metadata_data = Some(record.metadata);
        entry.doc_data = Some(record.doc);
    }
    let exported = formats::exported(&file, bytes.len()).map_err(|e| format!("{}: {e}", path.display()))?;
    for sym in &exported {
        if let Some(export) = sym.name.strip_prefix(abi_shared::METADATA_PREFIX) {
            found.entry(export.to_owned()).or_default().metadata_fn = true;
        } else if let Some(export) = sym.name.strip_prefix(abi_shared::DOC_PREFIX) {
            found.entry(export.to_owned()).or_default().doc_fn = true;
        }
    }
    let shims: Vec<String> = exported
        .iter()
        .filter(|s| s.code)
        .filter_map(|s| s.name.strip_prefix(abi_shared::SHIM_PREFIX).map(str::to_owned))
        // `__tvm_ffi__...` symbols are the metadata, docs and listing entries.
        .filter(|n| !n.starts_with('_'))
        .collect();
    if shims.len() > abi_core::schema::limits::RECORDS {
        return Err(format!(
            "{} exports {} packed functions, more than the {} a library's records may describe",
            path.display(),
            shims.len(),
            abi_core::schema::limits::RECORDS
        ));
    }
    if shims.is_empty() {
        return Err(format!(
            "{} {NO_PACKED_FUNCTIONS} (no `{}<name>` symbols)",
            path.display(),
            abi_shared::SHIM_PREFIX
        ));
    }
    let needs_load = shims.iter().any(|n| {
        found.get(n).is_some_and(|f| (f.metadata_data.is_none() && f.metadata_fn) || (f.doc_data.is_none() && f.doc_fn))
    });
    let library = match (needs_load, allow_load) {
        (true, true) if !formats::loadable(&file) => {
            return Err(format!(
                "{} publishes its metadata only as functions, and {} cannot be loaded here to call them",
                path.display(),
                formats::describe(file.format())
            ))
        }
        (true, true) => Some(
            Library::open(loadable(path))
                .map_err(|e| format!("loading {} to read its metadata: {}", path.display(), e.message()))?,
        ),
        (true, false) => {
            return Err(format!(
            "{} publishes its metadata only as functions: reading it means loading the library (run without --no-load)",
            path.display()
        ))
        }
        (false, _) => None,
    };
    let mut exports = Vec::new();
    let mut any_data = false;
    for name in shims {
        let f = found.remove(&name).unwrap_or_default();
        let called = |text: Option<abi_core::Result<String>>| -> Result<Option<String>, String> {
            text.transpose()
                .map_err(|e| format!("{}: `{name}`: its metadata function failed: {}", path.display(), e.message()))
        };
        let metadata_text = match (f.metadata_data, &library) {
            (Some(text), _) => {
                any_data = true;
                Some(text)
            }
            (None, Some(lib)) if f.metadata_fn => called(lib.metadata(&name))?,
            _ => None,
        };
        let doc = match (f.doc_data, &library) {
            (Some(text), _) => Some(text),
            (None, Some(lib)) if f.doc_fn => called(lib.doc(&name))?,
            _ => None,
        };
        let metadata = metadata_text
            .as_deref()
            .map(Metadata::parse)
            .transpose()
            .map_err(|e| format!("{}: `{name}` publishes metadata this build cannot read: {e}", path.display()))?;
        exports.push(Export { name, metadata, doc: doc.filter(|d| !d.is_empty()) });
    }
    exports.sort_by(|a, b| a.name.cmp(&b.name));
    let source = if library.is_some() {
        Source::Loaded
    } else if any_data {
        Source::Data
    } else {
        Source::None
    };
    Ok(Listing { path: path.to_owned(), source, exports, classes, errors, iree })
}

/// The records of the file's export records section (none without one: a C++ tvm-ffi
/// library).
fn export_records(file: &object::File<'_>) -> Result<Vec<ExportRecord>, String> {
    let Some(data) = formats::records(file, Records::Exports)? else { return Ok(Vec::new()) };
    parse_export_records(data).map_err(|e| e.message().to_owned())
}

/// The records of the file's IREE records section (none without one).
fn iree_records(file: &object::File<'_>) -> Result<IreeRecords, String> {
    let Some(data) = formats::records(file, Records::Iree)? else { return Ok(IreeRecords::default()) };
    parse_iree_records(data).map_err(|e| e.message().to_owned())
}
