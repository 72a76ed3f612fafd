//! The global function registry: tvm-ffi's under a host, an embedded one otherwise.

use core::ffi::c_void;
use core::ptr::{self, NonNull};
use std::collections::HashMap;
use std::sync::{OnceLock, RwLock};

use crate::ffi::{ByteArray, ObjectHeader};
use crate::runtime::error_slot::{set_raised, take_raised, take_raised_after};
use crate::runtime::function::Function;
use crate::runtime::host::host;
use crate::value::error::{Error, Result};
use crate::value::object::{ObjectHandle, ObjectRef};

fn registry() -> &'static RwLock<HashMap<String, Function>> {
    static REGISTRY: OnceLock<RwLock<HashMap<String, Function>>> = OnceLock::new();
    REGISTRY.get_or_init(Default::default)
}

/// Looks up a function in the global registry (tvm-ffi's when present).
pub fn get_global(name: &str) -> Option<Function> {
    match host() {
        Some(api) => {
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
        None => lookup_embedded(name),
    }
}

fn lookup_embedded(name: &str) -> Option<Function> {
    registry().read().unwrap_or_else(|e| e.into_inner()).get(name).cloned()
}

fn register_embedded(name: &str, f: Function, allow_override: bool) -> Result<()> {
    let mut map = registry().write().unwrap_or_else(|e| e.into_inner());
    if !allow_override && map.contains_key(name) {
        return Err(Error::key_error(format!("global function `{name}` is already registered")));
    }
    map.insert(name.to_owned(), f);
    Ok(())
}

/// Registers `f` under `name`; fails when the name is taken and `allow_override` is false.
pub fn register_global(name: &str, f: Function, allow_override: bool) -> Result<()> {
    match host() {
        Some(api) => {
            let key = ByteArray::from_slice(name.as_bytes());
            // SAFETY: the runtime borrows the function and adds its own reference.
            let rc = unsafe { (api.function_set_global)(&key, f.as_object().as_ptr().cast(), allow_override as i32) };
            if rc == 0 {
                Ok(())
            } else {
                Err(take_raised_after(rc))
            }
        }
        None => register_embedded(name, f, allow_override),
    }
}

/// Names in the embedded registry (empty under a tvm-ffi host, which has its own listing).
pub fn embedded_global_names() -> Vec<String> {
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

/// The embedded registry's `TVMFFIFunctionSetGlobal`, in the runtime table.
///
/// # Safety
/// `name` points to a byte array valid for the call; `f` is a live Function object.
pub(crate) unsafe extern "C" fn embedded_function_set_global(
    name: *const ByteArray,
    f: *mut c_void,
    allow_override: i32,
) -> i32 {
    // SAFETY: forwarded from the caller.
    let name = unsafe { (*name).as_slice() };
    let Some(obj) = NonNull::new(f.cast::<ObjectHeader>()) else {
        embedded_error_set_raised_value("the global function is a null pointer");
        return -1;
    };
    // SAFETY: a live object; we take our own reference.
    let Ok(f) = Function::from_object(unsafe { ObjectRef::from_borrowed(obj) }) else {
        embedded_error_set_raised_value("a global function must be a Function object");
        return -1;
    };
    let result = match core::str::from_utf8(name) {
        Ok(name) => register_embedded(name, f, allow_override != 0),
        Err(_) => Err(Error::value_error("a global function name must be UTF-8")),
    };
    match result {
        Ok(()) => 0,
        Err(e) => {
            set_raised(e);
            -1
        }
    }
}

#[cold]
fn embedded_error_set_raised_value(msg: &str) {
    set_raised(Error::value_error(msg));
}
