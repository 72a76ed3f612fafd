//! The global function registry: tvm-ffi's under a host, an embedded one otherwise. A
//! global carries its docs and metadata (`TVMFFIFunctionSetGlobalFromMethodInfo`), which
//! `ffi.GetGlobalFuncMetadata` returns in both worlds. `#[export_fn(global = "...")]`
//! exports join it when their library loads (or, with no runtime yet chosen, when the
//! library first uses or is given one).

use core::ffi::c_void;
use core::ptr::{self, NonNull};
use std::collections::HashMap;
use std::sync::{Once, OnceLock, RwLock};

use crate::ffi::type_index as ti;
use crate::ffi::type_table::MethodInfo;
use crate::ffi::HostApi;
use crate::ffi::{cell_ptr, ByteArray, ObjectHeader, RawAny, SafeCall};
use crate::runtime::calls::error_slot::{set_raised, take_raised, take_raised_after};
use crate::runtime::calls::export_entry::{Export, EXPORTS};
use crate::runtime::calls::function::Function;
use crate::runtime::process::discovery::{host, tvm_ffi_at_load};
use crate::runtime::process::linked::{linked, sorted_by_name};
use crate::value::error::{Error, Result};
use crate::value::object::{ObjectHandle, ObjectRef};
use crate::value::string::string_any;

/// One entry of the embedded registry.
struct Global {
    function: Function,
    metadata: Box<str>,
}

/// The tvm-ffi global returning a global's metadata JSON (empty when it has none).
pub const GET_METADATA: &str = "ffi.GetGlobalFuncMetadata";

fn registry() -> &'static RwLock<HashMap<String, Global>> {
    static REGISTRY: OnceLock<RwLock<HashMap<String, Global>>> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        let get_metadata = Function::from_closure(|args| {
            let name: String = match args {
                [name] => name.to()?,
                _ => return Err(Error::type_error(format!("{GET_METADATA} takes one name"))),
            };
            let map = registry().read().unwrap_or_else(|e| e.into_inner());
            match map.get(&name) {
                Some(g) => Ok(string_any(g.metadata.to_string())),
                None => Err(Error::runtime_error(format!("Global Function is not found: {name}"))),
            }
        });
        let builtin = Global { function: get_metadata, metadata: Box::from("") };
        RwLock::new(HashMap::from([(GET_METADATA.to_owned(), builtin)]))
    })
}

/// Looks up a function in the global registry (tvm-ffi's when present).
pub fn get_global(name: &str) -> Option<Function> {
    register_linked_globals();
    lookup_in(host(), name)
}

/// Looks `name` up in `api`'s registry (the embedded one for `None`).
fn lookup_in(api: Option<&HostApi>, name: &str) -> Option<Function> {
    let Some(api) = api else {
        return lookup_embedded(name);
    };
    let key = ByteArray::from_slice(name.as_bytes());
    let mut out: *mut c_void = ptr::null_mut();
    // SAFETY: the runtime writes an owned reference or null.
    let rc = unsafe { (api.function_get_global)(&key, &mut out) };
    if rc != 0 {
        drop(take_raised());
        return None;
    }
    let obj = NonNull::new(out.cast::<ObjectHeader>())?;
    // SAFETY: an owned reference to a Function object.
    Function::from_object(unsafe { ObjectRef::from_raw(obj) }).ok()
}

fn lookup_embedded(name: &str) -> Option<Function> {
    registry().read().unwrap_or_else(|e| e.into_inner()).get(name).map(|g| g.function.clone())
}

fn register_embedded(name: &str, function: Function, metadata: &str, allow_override: bool) -> Result<()> {
    let mut map = registry().write().unwrap_or_else(|e| e.into_inner());
    if !allow_override && map.contains_key(name) {
        return Err(Error::key_error(format!("global function `{name}` is already registered")));
    }
    map.insert(name.to_owned(), Global { function, metadata: Box::from(metadata) });
    Ok(())
}

/// Registers `f` under `name`; fails when the name is taken and `allow_override` is false.
pub fn register_global(name: &str, f: Function, allow_override: bool) -> Result<()> {
    register_global_with_info(name, f, "", "", allow_override)
}

/// Registers `f` under `name` with its docstring and metadata JSON (what
/// `ffi.GetGlobalFuncMetadata` returns); fails when the name is taken and
/// `allow_override` is false.
pub fn register_global_with_info(
    name: &str,
    f: Function,
    doc: &str,
    metadata: &str,
    allow_override: bool,
) -> Result<()> {
    register_in(host(), name, f, doc, metadata, allow_override)
}

fn register_in(
    host: Option<&HostApi>,
    name: &str,
    f: Function,
    doc: &str,
    metadata: &str,
    allow_override: bool,
) -> Result<()> {
    match host {
        Some(api) => {
            let info = MethodInfo {
                name: ByteArray::from_slice(name.as_bytes()),
                doc: ByteArray::from_slice(doc.as_bytes()),
                metadata: ByteArray::from_slice(metadata.as_bytes()),
                flags: 0,
                method: RawAny::from_ptr(ti::FUNCTION, f.as_object().as_ptr().cast()),
            };
            // SAFETY: a complete record; the runtime copies the texts and takes its own
            // reference to the function.
            let rc = unsafe { (api.function_set_global)(&info, allow_override as i32) };
            if rc == 0 {
                Ok(())
            } else {
                Err(take_raised_after(rc))
            }
        }
        None => register_embedded(name, f, metadata, allow_override),
    }
}

/// Names in the embedded registry (empty under a tvm-ffi host, which has its own listing).
pub fn embedded_global_names() -> Vec<String> {
    if host().is_some() {
        return Vec::new();
    }
    register_linked_globals();
    let mut names: Vec<String> = registry().read().unwrap_or_else(|e| e.into_inner()).keys().cloned().collect();
    names.sort();
    names
}

impl Function {
    /// Looks up a global function (tvm-ffi's registry under a tvm-ffi host).
    pub fn get_global(name: &str) -> Option<Function> {
        get_global(name)
    }

    /// Registers this function globally under `name`.
    pub fn register_global(&self, name: &str, allow_override: bool) -> Result<()> {
        register_global(name, self.clone(), allow_override)
    }
}

/// Registers every `#[export_fn(global = "...")]` export linked into this library, once,
/// in the registry of the runtime it uses; a failure (the name is taken) is printed on
/// stderr, since nothing called for it.
pub fn register_linked_globals() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let api = host();
        // Already registered there while the library loaded.
        let done = LOADED_INTO.get().is_some_and(|&set| api.is_some_and(|a| a.function_set_global as usize == set));
        if !done {
            register_exports(api);
        }
    });
}

/// The tvm-ffi registry (its set-global entry) the global exports joined while loading.
static LOADED_INTO: OnceLock<usize> = OnceLock::new();

/// Registers the linked global exports in `api`'s registry (the embedded one for `None`).
/// A name somebody registered first keeps that registration (another copy of this library,
/// a development build beside an installed one, a host's own function): said in one line
/// on stderr, since nothing called for the registration.
fn register_exports(api: Option<&HostApi>) {
    // By name: the linker's order of the section varies between builds.
    let globals = linked(|| &EXPORTS).iter().filter(|e| e.global().is_some());
    for export in sorted_by_name(globals, |e| e.global().unwrap_or_default()) {
        let name = export.global().unwrap_or_default();
        if let Some(first) = lookup_in(api, name) {
            eprintln!("abi: {}", kept_notice(name, &first, export));
        } else if let Err(e) = register_export(api, export) {
            let message = e.message();
            eprintln!("abi: {}", message.lines().next().unwrap_or_default());
        }
    }
}

/// The line said when `name` is already registered as `first`: that it stays, and both
/// libraries, each named by the file its code is in (for a C++ or abi function, the library
/// that registered it; for a Python one, tvm_ffi's extension module).
fn kept_notice(name: &str, first: &Function, export: &'static Export) -> String {
    let obj = first.as_object().as_ptr();
    // SAFETY: a Function object's cell starts with its safe_call.
    let first_code = unsafe { *cell_ptr::<SafeCall>(obj) } as *const c_void;
    let file = |addr| crate::sys::module_path_containing(addr).unwrap_or_else(|| "an unknown file".to_owned());
    format!(
        "global `{name}` is already registered; keeping that registration (its code is in {}); {}'s `{}` \
         stays reachable through its module",
        file(first_code),
        // This function's own address: the export's shim may resolve to another copy's
        // (a library loaded with its symbols global interposes the same names).
        file(kept_notice as *const c_void),
        export.name()
    )
}

fn register_export(api: Option<&HostApi>, export: &'static Export) -> Result<()> {
    let name = export.global().unwrap_or_default();
    let f = Function::from_safe_call(export.safe_call);
    register_in(api, name, f, export.doc(), export.metadata_json(), false)
        .map_err(|e| Error::new(e.kind(), format!("registering global `{name}`: {}", e.message())))
}

/// What a global export's ELF constructor runs: registration in tvm-ffi's registry while
/// the library loads when tvm-ffi is in the process, so hosts find the function by name at
/// once, without choosing the library's runtime (an abi opener may still attach it: its
/// registry then gets the globals too). Never unwinds (it runs before `main` or inside
/// `dlopen`).
pub fn register_globals_at_load() {
    let run = || {
        if let Some(table) = tvm_ffi_at_load() {
            if LOADED_INTO.set(table.api.function_set_global as usize).is_ok() {
                register_exports(Some(&table.api));
            }
        }
    };
    if std::panic::catch_unwind(run).is_err() {
        eprintln!("abi: registering global functions panicked");
    }
}

/// The embedded registry's `TVMFFIFunctionGetGlobal`, in the runtime table handed to the
/// libraries this runtime attaches.
///
/// # Safety
/// `name` points to a byte array valid for the call; `out` is writable.
pub(crate) unsafe extern "C" fn embedded_function_get_global(name: *const ByteArray, out: *mut *mut c_void) -> i32 {
    // SAFETY: forwarded from the caller.
    let name = unsafe { (*name).as_slice() };
    let found = core::str::from_utf8(name).ok().and_then(lookup_embedded);
    // SAFETY: forwarded from the caller; the reference moves to the caller.
    unsafe { *out = found.map_or(ptr::null_mut(), |f| f.into_object().into_raw().as_ptr().cast()) };
    0
}

/// The embedded registry's `TVMFFIFunctionSetGlobalFromMethodInfo`, in the runtime table.
///
/// # Safety
/// `info` points to a complete record whose texts are valid for the call and whose
/// `method` is a live Function object.
pub(crate) unsafe extern "C" fn embedded_function_set_global(info: *const MethodInfo, allow_override: i32) -> i32 {
    // SAFETY: forwarded from the caller.
    let info = unsafe { &*info };
    // SAFETY: forwarded from the caller.
    let (name, metadata) = unsafe { (info.name.as_slice(), info.metadata.as_slice()) };
    let result = (|| {
        let obj = NonNull::new(info.method.ptr().cast::<ObjectHeader>())
            .filter(|_| info.method.type_index == ti::FUNCTION)
            .ok_or_else(|| Error::value_error("a global function must be a Function object"))?;
        // SAFETY: a live object; we take our own reference.
        let f = Function::from_object(unsafe { ObjectRef::from_borrowed(obj) })
            .map_err(|_| Error::value_error("a global function must be a Function object"))?;
        let name =
            core::str::from_utf8(name).map_err(|_| Error::value_error("a global function name must be UTF-8"))?;
        let metadata =
            core::str::from_utf8(metadata).map_err(|_| Error::value_error("global metadata must be UTF-8"))?;
        register_embedded(name, f, metadata, allow_override != 0)
    })();
    match result {
        Ok(()) => 0,
        Err(e) => {
            set_raised(e);
            -1
        }
    }
}
