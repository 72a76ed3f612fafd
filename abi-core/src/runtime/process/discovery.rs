//! Where this library's runtime services (the error slot, the global registry, embedded
//! containers) live, decided once, at the first use: the runtime of the abi library or
//! program that opened this one, if it attached us (docs/ABI.md section 9); else a tvm-ffi
//! runtime in the process, whose C entry points are resolved at run time (the process's
//! global symbols, then the already loaded `libtvm_ffi.so`, `libtvm_ffi.dylib` or
//! `tvm_ffi.dll`, found by the platform layer, docs/ABI.md section 5); else our own embedded
//! runtime. A tvm-ffi runtime loaded after that first use is not adopted.

use core::ffi::c_void;
use std::sync::OnceLock;

use crate::ffi::type_table::TypeApi;
use crate::ffi::{
    EnvApi, HostApi, RawAny, RuntimeTable, SafeCall, ATTACH_ALREADY_RUNNING, ATTACH_OK, ATTACH_VERSION_MISMATCH,
    RUNTIME_TABLE_BASE_SIZE,
};
use crate::runtime::process::tvm_ffi_version;
use crate::sys;

/// Where this library's runtime services live.
#[derive(Clone, Copy, Debug)]
pub enum Services {
    /// Its own embedded runtime: no tvm-ffi in the process, and not attached.
    Embedded,
    /// The tvm-ffi runtime of the process (as a table whose map mark is null).
    TvmFfi(RuntimeTable),
    /// The runtime of the abi library or program that opened this one.
    Attached(RuntimeTable),
}

static SERVICES: OnceLock<Services> = OnceLock::new();

/// The address the embedded map objects of an embedded runtime carry.
static EMBEDDED_MAP_MARK: u8 = 0;

/// This library's runtime services, resolved on first use.
#[inline]
pub fn services() -> &'static Services {
    SERVICES.get_or_init(resolve)
}

/// The services a library registers its object types in while it loads: resolved now when
/// a tvm-ffi runtime is in the process (so hosts such as Python see the types the first
/// time they meet them); `None`, leaving the choice open for an opener's attachment, when
/// there is none.
pub fn services_at_load() -> Option<&'static Services> {
    if let Some(s) = SERVICES.get() {
        return Some(s);
    }
    let table = resolve_tvm_ffi()?;
    Some(SERVICES.get_or_init(|| Services::TvmFfi(table)))
}

/// The tvm-ffi runtime a library loading now registers its global functions in: the one
/// it chose while loading (registering its object types chooses a tvm-ffi runtime in the
/// process, [`services_at_load`], in whichever order the linker ran the constructors), or
/// one in the process while it has not chosen yet, found without choosing it (an abi
/// opener may still attach the library to its own runtime right after the load). `None`
/// without a tvm-ffi runtime, or when the library uses another.
pub fn tvm_ffi_at_load() -> Option<RuntimeTable> {
    match SERVICES.get() {
        Some(Services::TvmFfi(table)) => Some(*table),
        Some(Services::Embedded | Services::Attached(_)) => None,
        None => resolve_tvm_ffi(),
    }
}

/// Whether exported calls run without asking [`first_call`]: once the first found nothing
/// to refuse. One relaxed load.
#[inline(always)]
pub fn calls_accepted() -> bool {
    tvm_ffi_version::accepted()
}

/// An exported call made before [`calls_accepted`]: raises the refusal when the
/// libtvm_ffi in the process reports a version outside the supported range, else runs
/// `call` (the export's shim). The shim's own parameters come first, in their registers,
/// and the C ABI unwinds nowhere, so that the shim reaches this by a jump.
///
/// # Safety
/// The packed calling convention, as for `call`.
#[cold]
#[inline(never)]
pub unsafe extern "C" fn first_call(
    handle: *mut c_void,
    args: *const RawAny,
    n: i32,
    result: *mut RawAny,
    call: SafeCall,
) -> i32 {
    let lookup = || {
        let _ = resolve_tvm_ffi();
    };
    // SAFETY: forwarded from the caller.
    unsafe { tvm_ffi_version::first_call(handle, args, n, result, call, lookup) }
}

/// Whether a tvm-ffi runtime is loaded in the process now, whichever runtime this library
/// chose (it may have chosen before that runtime arrived).
pub fn tvm_ffi_in_process() -> bool {
    resolve_tvm_ffi().is_some()
}

/// The entry points errors and globals go through; `None` for the embedded runtime.
#[inline]
pub fn host() -> Option<&'static HostApi> {
    match services() {
        Services::Embedded => None,
        Services::TvmFfi(table) | Services::Attached(table) => Some(&table.api),
    }
}

/// Whether the runtime this library uses is tvm-ffi (its own, or its opener's).
pub fn has_tvm_ffi_runtime() -> bool {
    embedded_map_mark().is_none()
}

/// The mark of the process runtime's embedded maps; `None` under tvm-ffi, whose maps are
/// built and read through its global functions.
#[inline]
pub fn embedded_map_mark() -> Option<*const u8> {
    match services() {
        Services::Embedded => Some(&EMBEDDED_MAP_MARK),
        Services::TvmFfi(_) => None,
        Services::Attached(table) => (!table.map_mark.is_null()).then_some(table.map_mark),
    }
}

/// Adopts `table` as this library's runtime. Fails when the version differs, or when the
/// library already runs on another runtime (a call ran before it was attached, or another
/// runtime attached it first); attaching the same runtime again succeeds.
pub fn attach(table: &RuntimeTable) -> i32 {
    if table.version != abi_shared::RUNTIME_TABLE_VERSION || (table.size as usize) < RUNTIME_TABLE_BASE_SIZE {
        return ATTACH_VERSION_MISMATCH;
    }
    let mut adopted = false;
    let current = SERVICES.get_or_init(|| {
        adopted = true;
        Services::Attached(*table)
    });
    if adopted || runs_on(current, table) {
        ATTACH_OK
    } else {
        ATTACH_ALREADY_RUNNING
    }
}

/// Whether `current` already is the runtime `table` describes (the same library opened
/// again, or a library that found the same tvm-ffi runtime by itself).
fn runs_on(current: &Services, table: &RuntimeTable) -> bool {
    match current {
        Services::Embedded => core::ptr::eq(table.map_mark, &EMBEDDED_MAP_MARK),
        Services::TvmFfi(t) | Services::Attached(t) => {
            t.map_mark == table.map_mark && core::ptr::fn_addr_eq(t.api.error_set_raised, table.api.error_set_raised)
        }
    }
}

fn resolve() -> Services {
    resolve_tvm_ffi().map_or(Services::Embedded, Services::TvmFfi)
}

fn resolve_tvm_ffi() -> Option<RuntimeTable> {
    // Miri cannot look symbols up in loaded objects (`dlsym`, `dlopen`): under it the
    // process has no tvm-ffi (scripts/test-miri.sh lists this switch-off).
    if cfg!(miri) {
        return None;
    }
    // SAFETY: looking symbols up runs no code; the signatures are those of tvm-ffi's C API.
    if let Some(api) = sys::process_library().and_then(|lib| unsafe { api_from(&lib) }) {
        return Some(api);
    }
    let lib = sys::loaded_library(sys::TVM_FFI_LIBRARY)?;
    // SAFETY: as above.
    let api = unsafe { api_from(&lib) };
    // The runtime was already loaded by somebody else; keep our handle so it stays.
    core::mem::forget(lib);
    api
}

unsafe fn api_from(lib: &libloading::Library) -> Option<RuntimeTable> {
    // SAFETY: the caller vouches for the signatures; symbols of a loaded library stay valid
    // while it is loaded, and tvm-ffi is never unloaded once a host has loaded it.
    unsafe {
        let api = HostApi {
            error_set_raised: *lib.get(b"TVMFFIErrorSetRaised\0").ok()?,
            error_move_from_raised: *lib.get(b"TVMFFIErrorMoveFromRaised\0").ok()?,
            function_get_global: *lib.get(b"TVMFFIFunctionGetGlobal\0").ok()?,
            function_set_global: *lib.get(b"TVMFFIFunctionSetGlobalFromMethodInfo\0").ok()?,
        };
        let types = TypeApi {
            key_to_index: *lib.get(b"TVMFFITypeKeyToIndex\0").ok()?,
            get_or_alloc_index: *lib.get(b"TVMFFITypeGetOrAllocIndex\0").ok()?,
            register_field: *lib.get(b"TVMFFITypeRegisterField\0").ok()?,
            register_method: *lib.get(b"TVMFFITypeRegisterMethod\0").ok()?,
            register_metadata: *lib.get(b"TVMFFITypeRegisterMetadata\0").ok()?,
            register_attr: *lib.get(b"TVMFFITypeRegisterAttr\0").ok()?,
            get_attr_column: *lib.get(b"TVMFFIGetTypeAttrColumn\0").ok()?,
            get_type_info: *lib.get(b"TVMFFIGetTypeInfo\0").ok()?,
        };
        // A tvm-ffi runtime: one outside the supported range is not adopted
        // (tvm_ffi_version.rs).
        let get_version = lib.get(b"TVMFFIGetVersion\0").ok().map(|s| *s);
        if !tvm_ffi_version::accept(get_version, lib.get(b"TVMFFIErrorSetRaisedFromCStr\0").ok().map(|s| *s)) {
            return None;
        }
        Some(RuntimeTable {
            version: abi_shared::RUNTIME_TABLE_VERSION,
            size: size_of::<RuntimeTable>() as u32,
            api,
            map_mark: core::ptr::null(),
            types,
            env: env_from(lib),
        })
    }
}

/// tvm-ffi's environment entry points, each NULL when this libtvm_ffi lacks it (they came
/// with apache/tvm-ffi PR 131).
unsafe fn env_from(lib: &libloading::Library) -> EnvApi {
    // SAFETY: as `api_from`: tvm-ffi's `c_env_api.h` signatures, a library never unloaded.
    unsafe {
        EnvApi {
            get_stream: lib.get(b"TVMFFIEnvGetStream\0").ok().map(|s| *s),
            set_stream: lib.get(b"TVMFFIEnvSetStream\0").ok().map(|s| *s),
            get_allocator: lib.get(b"TVMFFIEnvGetDLPackManagedTensorAllocator\0").ok().map(|s| *s),
            set_allocator: lib.get(b"TVMFFIEnvSetDLPackManagedTensorAllocator\0").ok().map(|s| *s),
            tensor_alloc: lib.get(b"TVMFFIEnvTensorAlloc\0").ok().map(|s| *s),
            check_signals: lib.get(b"TVMFFIEnvCheckSignals\0").ok().map(|s| *s),
        }
    }
}
