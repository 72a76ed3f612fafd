//! One runtime per process (docs/ABI.md section 9): the table this library's runtime hands
//! to the abi libraries it opens, and the entry by which an opened library adopts its
//! opener's runtime before any call, so that errors, the global registry and embedded maps
//! are shared even with no tvm-ffi in the process and under `RTLD_LOCAL`.

use core::mem::size_of;

use crate::ffi::{HostApi, RuntimeTable, ATTACH_OK, ATTACH_VERSION_MISMATCH, RUNTIME_TABLE_BASE_SIZE};
use crate::runtime::calls::error_slot::{embedded_error_move_from_raised, embedded_error_set_raised};
use crate::runtime::calls::globals::{
    embedded_function_get_global, embedded_function_set_global, register_linked_globals,
};
use crate::runtime::object_types::type_registry::EMBEDDED_TYPE_API;
use crate::runtime::process::discovery::{attach, services, Services};

/// The runtime table of the runtime this library uses: its opener's when attached,
/// tvm-ffi's when present, else its own embedded runtime's.
pub fn own_table() -> RuntimeTable {
    match *services() {
        Services::Attached(table) | Services::TvmFfi(table) => table,
        Services::Embedded => RuntimeTable {
            version: abi_shared::RUNTIME_TABLE_VERSION,
            size: size_of::<RuntimeTable>() as u32,
            api: HostApi {
                error_set_raised: embedded_error_set_raised,
                error_move_from_raised: embedded_error_move_from_raised,
                function_get_global: embedded_function_get_global,
                function_set_global: embedded_function_set_global,
            },
            map_mark: crate::runtime::process::discovery::embedded_map_mark().unwrap_or(core::ptr::null()),
            types: EMBEDDED_TYPE_API,
            env: crate::runtime::process::environment::API,
        },
    }
}

/// C entry: adopt the runtime described by `table` (see [`attach`]); writes this library's
/// table version to `own_version` when non-null, so an opener can say what disagrees.
///
/// # Safety
/// `table` is null or points to a runtime table whose entry points stay valid for the life
/// of the process; `own_version` is null or writable.
#[no_mangle]
pub unsafe extern "C" fn abi_runtime_attach(table: *const RuntimeTable, own_version: *mut u32) -> i32 {
    if !own_version.is_null() {
        // SAFETY: checked non-null; writable by the caller's guarantee.
        unsafe { *own_version = abi_shared::RUNTIME_TABLE_VERSION };
    }
    if table.is_null() {
        return ATTACH_VERSION_MISMATCH;
    }
    // The header is read before trusting the rest of the layout.
    // SAFETY: a non-null table is readable for at least its 8-byte header.
    let (version, size) = unsafe { ((*table).version, (*table).size) };
    if version != abi_shared::RUNTIME_TABLE_VERSION || (size as usize) < RUNTIME_TABLE_BASE_SIZE {
        return ATTACH_VERSION_MISMATCH;
    }
    // An opener built before the environment entries were appended hands a shorter table:
    // copy what it has; its libraries then keep their own environment (not shared).
    let mut adopted = core::mem::MaybeUninit::<RuntimeTable>::uninit();
    let len = (size as usize).min(size_of::<RuntimeTable>());
    // SAFETY: the header says the table is `size` bytes of this version's layout (a prefix
    // of at least every field before `env` when shorter); `env` is written first, then
    // overwritten by the opener's when it has one, so every field is initialised.
    let adopted = unsafe {
        (&raw mut (*adopted.as_mut_ptr()).env).write(crate::runtime::process::environment::API);
        core::ptr::copy_nonoverlapping(table.cast::<u8>(), adopted.as_mut_ptr().cast::<u8>(), len);
        adopted.assume_init()
    };
    let rc = attach(&adopted);
    if rc == ATTACH_OK {
        // The opener's registry is now ours: global exports join it before any call.
        register_linked_globals();
    }
    rc
}
