//! The runtime table (docs/ABI.md section 9): the C entry points of the runtime a process
//! uses (a tvm-ffi host's, or the first abi library's embedded one), handed by an opener to
//! every abi library it opens so that errors, the global registry and embedded containers
//! are shared, with no tvm-ffi present and under `RTLD_LOCAL`.

use core::ffi::c_void;
use core::mem::offset_of;

use static_assertions::const_assert_eq;

use crate::ffi::type_table::{MethodInfo, TypeApi};
use crate::ffi::{ByteArray, EnvApi};

/// The entry points of a runtime, with the exact signatures of tvm-ffi's
/// `TVMFFIErrorSetRaised`, `TVMFFIErrorMoveFromRaised`, `TVMFFIFunctionGetGlobal` and
/// `TVMFFIFunctionSetGlobalFromMethodInfo`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct HostApi {
    /// Stores an error (borrowed: the runtime adds its own reference).
    pub error_set_raised: unsafe extern "C" fn(*mut c_void),
    /// Moves the stored error out (an owned reference, or null).
    pub error_move_from_raised: unsafe extern "C" fn(*mut *mut c_void),
    /// Looks up a global function (an owned reference, or null).
    pub function_get_global: unsafe extern "C" fn(*const ByteArray, *mut *mut c_void) -> i32,
    /// Registers a global function with its docs and metadata (the record's `method`).
    pub function_set_global: unsafe extern "C" fn(*const MethodInfo, i32) -> i32,
}

/// What `abi_runtime_attach` receives: a versioned header, the runtime's entry points, the
/// mark that identifies its embedded map objects (null when the runtime is tvm-ffi, whose
/// maps are built and read through its global functions), its type table, and (appended
/// in the same version: a table of [`RUNTIME_TABLE_BASE_SIZE`] bytes from an older opener
/// is still accepted) its environment entry points.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct RuntimeTable {
    /// `abi_shared::RUNTIME_TABLE_VERSION` of the opener.
    pub version: u32,
    /// `size_of::<RuntimeTable>()` of the opener.
    pub size: u32,
    /// The runtime's entry points.
    pub api: HostApi,
    /// The address embedded map objects of this runtime carry; null under tvm-ffi.
    pub map_mark: *const u8,
    /// The runtime's type table.
    pub types: TypeApi,
    /// The runtime's environment: streams, tensor allocator, signals.
    pub env: EnvApi,
}

/// The size of a runtime table from before `env` was appended: the smallest accepted.
pub const RUNTIME_TABLE_BASE_SIZE: usize = offset_of!(RuntimeTable, env);

// SAFETY: function pointers and the address of an immutable static.
unsafe impl Send for RuntimeTable {}
// SAFETY: see above.
unsafe impl Sync for RuntimeTable {}

const_assert_eq!(core::mem::size_of::<HostApi>(), 32);
const_assert_eq!(offset_of!(RuntimeTable, api), 8);
const_assert_eq!(offset_of!(RuntimeTable, map_mark), 40);
const_assert_eq!(offset_of!(RuntimeTable, types), 48);
const_assert_eq!(offset_of!(RuntimeTable, env), 112);
const_assert_eq!(core::mem::size_of::<RuntimeTable>(), 160);

/// `abi_runtime_attach` result: attached.
pub const ATTACH_OK: i32 = 0;
/// `abi_runtime_attach` result: the table's version is not the library's.
pub const ATTACH_VERSION_MISMATCH: i32 = 1;
/// `abi_runtime_attach` result: the library already runs on another runtime (it was
/// attached to a different one, or made a call before being attached).
pub const ATTACH_ALREADY_RUNNING: i32 = 2;
