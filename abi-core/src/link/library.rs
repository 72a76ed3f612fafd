//! Shared libraries on disk that export packed functions (ours, or any tvm-ffi library),
//! opened with `libloading`. A library stays loaded for the life of the process: objects
//! it created (errors, strings, tensors) carry deleters that live in its code and may
//! outlive every handle, as tvm-ffi hosts also assume.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use crate::ffi::{RuntimeTable, SafeCall, ATTACH_ALREADY_RUNNING, ATTACH_OK, ATTACH_VERSION_MISMATCH};
use crate::link::bound::{Bound, TakeError};
use crate::runtime::process::attach::own_table;
use crate::runtime::process::discovery::{has_tvm_ffi_runtime, tvm_ffi_in_process};
use crate::schema::{parse_listing, Metadata};
use crate::value::any::Any;
use crate::value::error::{Error, Result};

#[derive(Debug)]
struct Inner {
    lib: libloading::Library,
    path: PathBuf,
    take_error: Option<TakeError>,
}

/// Every library opened in this process, kept so none is ever unloaded.
fn loaded() -> &'static Mutex<Vec<Library>> {
    static LOADED: OnceLock<Mutex<Vec<Library>>> = OnceLock::new();
    LOADED.get_or_init(Default::default)
}

/// An opened library. Cheap to clone.
#[derive(Clone)]
pub struct Library(Arc<Inner>);

impl Library {
    /// Opens the library at `path`. `path` is handed to the dynamic loader as given: a
    /// bare file name (`"libx.so"`, no `/`) is looked up in the loader's search path
    /// (`LD_LIBRARY_PATH`, the rpath, the system folders; on Windows the DLL search
    /// order), not in the current folder; name a file there `"./libx.so"`. A library built with abi adopts this process's runtime
    /// before any call (docs/ABI.md section 9), so errors, globals and embedded containers
    /// are shared with it; one that cannot (another table version, or it already runs its
    /// own runtime) is refused with the reason.
    pub fn open(path: impl AsRef<Path>) -> Result<Library> {
        let path = path.as_ref();
        // SAFETY: loading runs the library's initialisers; the caller chose to trust it.
        let lib = unsafe { libloading::Library::new(path) }
            .map_err(|e| Error::new("OSError", format!("cannot open {}: {e}", path.display())))?;
        // SAFETY: the symbol, when present, has the documented signature.
        let attach = unsafe { lib.get::<AttachEntry>(abi_shared::RUNTIME_ATTACH.as_bytes()).ok().map(|s| *s) };
        if let Some(attach) = attach {
            share_runtime(attach, path)?;
        }
        // SAFETY: the symbol, when present, has the documented signature.
        let take_error = unsafe { lib.get::<TakeError>(abi_shared::TAKE_ERROR.as_bytes()).ok().map(|s| *s) };
        let library = Library(Arc::new(Inner { lib, path: path.to_owned(), take_error }));
        // Never unload (see the module docs): the process-wide list holds every library.
        loaded().lock().unwrap_or_else(|e| e.into_inner()).push(library.clone());
        Ok(library)
    }

    /// The path it was opened from.
    pub fn path(&self) -> &Path {
        &self.0.path
    }

    fn packed(&self, symbol: &str) -> Option<SafeCall> {
        let mut name = symbol.as_bytes().to_vec();
        name.push(0);
        // SAFETY: every `__tvm_ffi_*` symbol has the packed signature; the library is never
        // unloaded, so the pointer stays valid.
        unsafe { self.0.lib.get::<SafeCall>(&name).ok().map(|s| *s) }
    }

    /// The exported function `name` (symbol `__tvm_ffi_<name>`), if present.
    pub fn get(&self, name: &str) -> Option<Bound> {
        let f = self.packed(&abi_shared::shim(name))?;
        Some(Bound::from_library_symbol(f, self.0.take_error, self.0.clone()))
    }

    fn call_text(&self, symbol: &str) -> Option<Result<String>> {
        let f = self.packed(symbol)?;
        let bound = Bound::from_library_symbol(f, self.0.take_error, self.0.clone());
        Some(bound.call_raw(&[]).and_then(|v: Any| v.to::<String>()))
    }

    /// The metadata JSON of `name` (`__tvm_ffi__metadata_<name>`), if published.
    pub fn metadata(&self, name: &str) -> Option<Result<String>> {
        self.call_text(&abi_shared::metadata(name))
    }

    /// The docstring of `name` (`__tvm_ffi__doc_<name>`), if published.
    pub fn doc(&self, name: &str) -> Option<Result<String>> {
        self.call_text(&abi_shared::doc(name))
    }

    /// `{"<name>": <metadata>, ...}` for every export of a library built with abi.
    pub fn exports_json(&self) -> Result<String> {
        self.call_text(abi_shared::EXPORTS_LISTING)
            .unwrap_or_else(|| Err(Error::attribute_error(format!("{} was not built with abi", self.path().display()))))
    }

    /// The metadata of every export of a library built with abi, by name.
    pub fn export_metadata(&self) -> Result<BTreeMap<String, Metadata>> {
        parse_listing(&self.exports_json()?).map_err(|e| Error::value_error(e.message()))
    }
}

impl core::fmt::Debug for Library {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Library({})", self.0.path.display())
    }
}

/// `abi_runtime_attach`.
type AttachEntry = unsafe extern "C" fn(*const RuntimeTable, *mut u32) -> i32;

/// Hands this process's runtime to a library just opened, or says why it cannot take it.
fn share_runtime(attach: AttachEntry, path: &Path) -> Result<()> {
    let table = own_table();
    let mut theirs = 0u32;
    // SAFETY: the documented entry; our table's entry points live as long as the process.
    let rc = unsafe { attach(&table, &mut theirs) };
    let why = match rc {
        ATTACH_OK => return Ok(()),
        ATTACH_VERSION_MISMATCH => format!(
            "it speaks runtime table version {theirs} and this process version {}: build both with the same \
             abi release",
            table.version
        ),
        ATTACH_ALREADY_RUNNING if !has_tvm_ffi_runtime() && tvm_ffi_in_process() => {
            "it registered its object types with the tvm-ffi runtime loaded into this process after this \
             process's first abi call had settled on abi's embedded runtime (a library with object types \
             registers them as it loads when tvm-ffi is present): load libtvm_ffi before the first abi call"
                .to_owned()
        }
        ATTACH_ALREADY_RUNNING => "it already runs on another runtime (it was called before being opened here, \
                                   or another runtime opened it first)"
            .to_owned(),
        other => format!("its attach entry returned {other}"),
    };
    Err(Error::runtime_error(format!("cannot share this process's runtime with {}: {why}", path.display())))
}
