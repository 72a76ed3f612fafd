//! Global functions: what libraries register in a process's global registry as they load
//! (C++ `TVM_FFI_STATIC_INIT_BLOCK`s, `#[export_fn(global = ...)]`), which no file records.
//! They are read by loading the libraries into this process (libtvm_ffi first, so their
//! registrations land in its registry, and before the first abi call settles the runtime),
//! listing the registry and asking `ffi.GetGlobalFuncMetadata`; the object types their
//! signatures name are read from the type table's reflection.

use std::path::{Path, PathBuf};

use abi_core::schema::{Class, Field, Metadata, Method, TypeSchema};
use abi_core::{Any, Function};

/// One global function.
#[derive(Debug, Clone)]
pub struct Global {
    /// The registry name (`testing.add_one`).
    pub name: String,
    /// Its metadata; `None` when it publishes none, or a signature-less (packed) one.
    pub metadata: Option<Metadata>,
    /// Whether it was registered as packed (its `type_schema` is an untyped function).
    pub packed: bool,
}

/// Where libtvm_ffi's folder is named: the variable the project's scripts set, then
/// `tvm-ffi-config --libdir` (the apache-tvm-ffi wheel's tool) on PATH; `Err` says which
/// was tried.
fn tvm_ffi_libdir() -> Result<PathBuf, String> {
    if let Some(dir) = std::env::var_os("ABI_TVM_FFI_LIBDIR") {
        return Ok(PathBuf::from(dir));
    }
    let out = std::process::Command::new("tvm-ffi-config")
        .arg("--libdir")
        .output()
        .map_err(|_| "ABI_TVM_FFI_LIBDIR is not set and no tvm-ffi-config is on PATH".to_owned())?;
    match String::from_utf8(out.stdout) {
        Ok(dir) if out.status.success() => Ok(PathBuf::from(dir.trim())),
        _ => Err("ABI_TVM_FFI_LIBDIR is not set and `tvm-ffi-config --libdir` failed".to_owned()),
    }
}

/// The file name of libtvm_ffi on this platform.
fn tvm_ffi_file() -> &'static str {
    if cfg!(windows) {
        "tvm_ffi.dll"
    } else if cfg!(target_os = "macos") {
        "libtvm_ffi.dylib"
    } else {
        "libtvm_ffi.so"
    }
}

/// Loads libtvm_ffi and then `libs`, in order, with their symbols global, for the life of
/// the process. Call before any other abi call. Globals are tvm-ffi's registry, so with no
/// libtvm_ffi in the process afterwards (not found, and no library in `libs` brought it)
/// this fails, naming how to point at it, rather than reading abi's embedded registry.
pub fn load(libs: &[PathBuf]) -> Result<(), String> {
    let found = tvm_ffi_libdir();
    let runtime = match &found {
        Ok(dir) => {
            let file = dir.join(tvm_ffi_file());
            if !file.is_file() {
                let named_by = match std::env::var_os("ABI_TVM_FFI_LIBDIR") {
                    Some(_) => "ABI_TVM_FFI_LIBDIR",
                    None => "tvm-ffi-config --libdir",
                };
                return Err(format!("{named_by} names {}, which holds no {}: {HOW}", dir.display(), tvm_ffi_file()));
            }
            Some(file)
        }
        Err(_) => None,
    };
    for path in runtime.iter().map(PathBuf::as_path).chain(libs.iter().map(PathBuf::as_path)) {
        load_one(path)?;
    }
    if let Err(tried) = found {
        if !abi_core::host::tvm_ffi_in_process() {
            return Err(format!("cannot read global functions without libtvm_ffi ({tried}): {HOW}"));
        }
    }
    Ok(())
}

/// How to point the tool at libtvm_ffi.
const HOW: &str = "set ABI_TVM_FFI_LIBDIR to the folder holding it, put the apache-tvm-ffi wheel's \
                   tvm-ffi-config on PATH, or name it with --load";

fn load_one(path: &Path) -> Result<(), String> {
    let file = crate::read::loadable(path);
    #[cfg(unix)]
    // SAFETY: loading a library runs its initialisers, which is the point: they register
    // its globals. The library stays loaded for the life of the process.
    let lib = unsafe {
        use libloading::os::unix::{Library, RTLD_GLOBAL, RTLD_NOW};
        Library::open(Some(&*file), RTLD_NOW | RTLD_GLOBAL)
    };
    #[cfg(not(unix))]
    // SAFETY: as above.
    let lib = unsafe { libloading::Library::new(&*file) };
    let lib = lib.map_err(|e| format!("cannot load {}: {e}", path.display()))?;
    std::mem::forget(lib);
    Ok(())
}

/// Every global whose name starts with `prefix`, sorted by name; an error when there is
/// none.
pub fn read(prefix: &str) -> Result<Vec<Global>, String> {
    let names = if abi_core::host::has_tvm_ffi_runtime() {
        tvm_ffi_names().map_err(|e| format!("listing the global registry: {}", e.message()))?
    } else {
        abi_core::host::embedded_global_names()
    };
    let mut names: Vec<String> = names.into_iter().filter(|n| n.starts_with(prefix)).collect();
    names.sort();
    names.dedup();
    if names.is_empty() {
        let hint = match abi_core::host::has_tvm_ffi_runtime() {
            true => "",
            false => " (no libtvm_ffi was loaded: name it with --load, or put the apache-tvm-ffi wheel's tvm-ffi-config on PATH)",
        };
        return Err(format!("no global functions under `{prefix}` in the loaded libraries{hint}"));
    }
    names.into_iter().map(|name| global(&name)).collect()
}

/// The names in tvm-ffi's registry, through `ffi.FunctionListGlobalNamesFunctor` (a
/// functor: `-1` gives the count, `i` the `i`-th name).
fn tvm_ffi_names() -> abi_core::Result<Vec<String>> {
    let functor = Function::get_global("ffi.FunctionListGlobalNamesFunctor")
        .ok_or_else(|| abi_core::Error::runtime_error("the runtime cannot list its globals"))?;
    let names: Function = functor.call_packed(&[])?.to()?;
    let arg = |i: i64| Any::from_value(i);
    let count: i64 = names.call_packed(&[arg(-1)?.view()])?.to()?;
    (0..count).map(|i| names.call_packed(&[arg(i)?.view()])?.to()).collect()
}

fn global(name: &str) -> Result<Global, String> {
    let text = abi_core::host::global_metadata(name)
        .map_err(|e| format!("`{name}`: reading its metadata failed: {}", e.message()))?;
    let (metadata, packed) = match text {
        None => (None, false),
        Some(text) => {
            read_metadata(&text).map_err(|e| format!("`{name}` publishes metadata this build cannot read: {e}"))?
        }
    };
    Ok(Global { name: name.to_owned(), metadata, packed })
}

/// Reads a global's metadata; a `type_schema` that is an untyped function (a function C++
/// registered as packed) reads as none, and says so.
pub fn read_metadata(text: &str) -> Result<(Option<Metadata>, bool), String> {
    let mut value: serde_json::Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let packed = value
        .get("type_schema")
        .and_then(serde_json::Value::as_str)
        .and_then(|t| TypeSchema::parse(t).ok())
        .is_some_and(|t| t == TypeSchema::Function(None));
    if packed {
        if let Some(map) = value.as_object_mut() {
            map.remove("type_schema");
        }
    }
    let meta = Metadata::from_value(&value).map_err(|e| e.message().to_owned())?;
    Ok((meta.type_schema.is_some().then_some(meta), packed))
}

/// The object class `key` as the type table reflects it (fields with their types, methods
/// with their signatures); `None` when no type of that key is registered.
pub fn reflect_class(key: &str) -> Option<Class> {
    let api = abi_core::host::type_api();
    let bytes = abi_core::ffi::ByteArray::from_slice(key.as_bytes());
    let mut index = 0i32;
    // SAFETY: a valid byte array and out pointer; a miss returns non-zero with an error set.
    if unsafe { (api.key_to_index)(&bytes, &mut index) } != 0 {
        let _ = abi_core::host::take_raised();
        return None;
    }
    // SAFETY: the index of a registered key.
    let info = unsafe { (api.get_type_info)(index).as_ref()? };
    let text = |b: &abi_core::ffi::ByteArray| {
        // SAFETY: the registered records' texts live for the process.
        String::from_utf8_lossy(unsafe { b.as_slice() }).into_owned()
    };
    let parent = match info.type_depth {
        // SAFETY: a type info lists `type_depth` ancestors.
        d if d > 0 => unsafe { (*info.type_ancestors.add(d as usize - 1)).as_ref() }.map(|p| text(&p.type_key)),
        _ => None,
    };
    // SAFETY: `num_fields` field records and `num_methods` method records, for the process.
    let (fields, methods) = unsafe { (records(info.fields, info.num_fields), records(info.methods, info.num_methods)) };
    let fields = fields
        .iter()
        .map(|f| {
            let ty = serde_json::from_str::<serde_json::Value>(&text(&f.metadata))
                .ok()
                .and_then(|m| m.get("type_schema").and_then(|t| t.as_str()).and_then(|t| TypeSchema::parse(t).ok()))
                .unwrap_or(TypeSchema::Any);
            let writable = f.flags & abi_core::ffi::type_table::field_flags::WRITABLE != 0;
            Field { name: text(&f.name), ty, writable, doc: text(&f.doc) }
        })
        .collect();
    let methods = methods
        .iter()
        .filter_map(|m| {
            let (metadata, _) = read_metadata(&text(&m.metadata)).ok()?;
            let is_static = m.flags & abi_core::ffi::type_table::field_flags::STATIC_METHOD != 0;
            Some(Method { name: text(&m.name), is_static, doc: text(&m.doc), metadata: metadata? })
        })
        .collect();
    // SAFETY: the type's metadata record, or null.
    let doc = match unsafe { info.metadata.as_ref() } {
        Some(m) => text(&m.doc),
        None => String::new(),
    };
    Some(Class { key: key.to_owned(), parent: parent.unwrap_or_default(), doc, fields, methods })
}

/// # Safety
/// `ptr` points at `n` records valid for the process, or is null.
unsafe fn records<T>(ptr: *const T, n: i32) -> &'static [T] {
    if ptr.is_null() || n <= 0 {
        return &[];
    }
    // SAFETY: guaranteed by the caller.
    unsafe { core::slice::from_raw_parts(ptr, n as usize) }
}
