//! Reading a library's exports from disk: the metadata and docs abi libraries publish as
//! data symbols, read with the `object` crate so no code of the library runs; libraries
//! that publish them only as functions (C++ tvm-ffi libraries) are loaded and asked,
//! unless the caller forbids it.

use std::path::{Path, PathBuf};

use abi_core::schema::Metadata;
use abi_core::Library;

use crate::classes;
use abi_core::schema::Class;
use object::{Object, ObjectKind, ObjectSection, ObjectSymbol};

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
}

/// What one export publishes in the file.
#[derive(Default)]
struct Found {
    metadata_data: Option<String>,
    doc_data: Option<String>,
    metadata_fn: bool,
    doc_fn: bool,
}

/// Reads `path`; `allow_load` permits loading a library whose metadata is only reachable
/// by calling it.
pub fn read(path: &Path, allow_load: bool) -> Result<Listing, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let file = object::File::parse(&*bytes).map_err(|e| format!("{} is not a shared library: {e}", path.display()))?;
    if file.kind() != ObjectKind::Dynamic {
        return Err(format!("{} is not a shared library (it is {:?})", path.display(), file.kind()));
    }
    let classes = classes::read(&file).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut found: std::collections::BTreeMap<String, Found> = Default::default();
    for sym in file.dynamic_symbols().filter(|s| s.is_definition()) {
        let Ok(name) = sym.name() else { continue };
        if let Some(export) = name.strip_prefix(abi_shared::METADATA_DATA_PREFIX) {
            let texts = symbol_texts(&file, &sym).map_err(|e| format!("`{export}`: {e}"))?;
            let entry = found.entry(export.to_owned()).or_default();
            let mut texts = texts.into_iter();
            entry.metadata_data = texts.next();
            entry.doc_data = texts.nth(1);
        } else if let Some(export) = name.strip_prefix(abi_shared::METADATA_PREFIX) {
            found.entry(export.to_owned()).or_default().metadata_fn = true;
        } else if let Some(export) = name.strip_prefix(abi_shared::DOC_PREFIX) {
            found.entry(export.to_owned()).or_default().doc_fn = true;
        }
    }
    let shims: Vec<String> = file
        .dynamic_symbols()
        .filter(|s| s.is_definition() && s.kind() == object::SymbolKind::Text)
        .filter_map(|s| s.name().ok()?.strip_prefix(abi_shared::SHIM_PREFIX).map(str::to_owned))
        // `__tvm_ffi__...` symbols are the metadata, docs and listing entries.
        .filter(|n| !n.starts_with('_'))
        .collect();
    if shims.is_empty() {
        return Err(format!(
            "{} exports no packed functions (no `{}<name>` symbols)",
            path.display(),
            abi_shared::SHIM_PREFIX
        ));
    }
    let needs_load = shims.iter().any(|n| {
        found.get(n).is_some_and(|f| (f.metadata_data.is_none() && f.metadata_fn) || (f.doc_data.is_none() && f.doc_fn))
    });
    let library = match (needs_load, allow_load) {
        (true, true) => Some(
            Library::open(path)
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
            text.transpose().map_err(|e| format!("`{name}`: its metadata function failed: {}", e.message()))
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
            .map_err(|e| format!("`{name}` publishes metadata this build cannot read: {e}"))?;
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
    Ok(Listing { path: path.to_owned(), source, exports, classes })
}

/// The texts of a data symbol: its bytes as NUL-terminated UTF-8 texts (the metadata
/// JSON, the signature text, the docstring), the last running to the symbol's final NUL.
fn symbol_texts<'a>(file: &object::File<'a>, sym: &object::Symbol<'a, '_>) -> Result<Vec<String>, String> {
    let (address, size) = (sym.address(), sym.size());
    let section = file
        .sections()
        // Checked sums: a hostile file may give any address and size.
        .find(|s| {
            let (end, section_end) = (address.checked_add(size), s.address().checked_add(s.size()));
            s.address() <= address && matches!((end, section_end), (Some(e), Some(se)) if e <= se)
        })
        .ok_or_else(|| format!("data symbol at {address:#x} lies in no section"))?;
    let data = section.data().map_err(|e| format!("unreadable section: {e}"))?;
    let start = usize::try_from(address - section.address()).map_err(|_| "symbol offset overflows".to_owned())?;
    let bytes = data
        .get(start..start.saturating_add(size as usize))
        .ok_or_else(|| format!("data symbol at {address:#x} ({size} bytes) lies outside its section's file data"))?;
    let Some((0, bytes)) = bytes.split_last() else {
        return Err("a data symbol's text has no terminating NUL".to_owned());
    };
    let utf8 = |b: &[u8]| String::from_utf8(b.to_vec()).map_err(|_| "a data symbol's text is not UTF-8".to_owned());
    // A docstring may hold a NUL: the first two texts end at theirs, the third runs to the end.
    bytes.splitn(3, |&b| b == 0).map(utf8).collect()
}
