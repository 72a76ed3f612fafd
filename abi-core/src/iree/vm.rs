//! The IREE VM dynamic-module interface as plain data: the structs `iree-run-module` and
//! `iree-benchmark-module` exchange with a module they load (IREE 3.13, the pinned and
//! tested version; docs/IREE-DYNAMIC-MODULE.md). Nothing here links IREE: the host hands
//! everything over through these structs.

use core::ffi::c_void;
use core::sync::atomic::AtomicI32;

/// `iree_status_t`: 0 is OK; the low 5 bits are the code, the rest an optional pointer to a
/// message block (see `status`).
pub type Status = usize;

/// `iree_string_view_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct StringView {
    /// The bytes (not NUL-terminated).
    pub data: *const u8,
    /// Their count.
    pub size: usize,
}

impl StringView {
    /// A view of a static text.
    pub const fn of(s: &'static str) -> StringView {
        StringView { data: s.as_ptr(), size: s.len() }
    }

    /// The viewed bytes; empty for a null view.
    ///
    /// # Safety
    /// `data` points to `size` readable bytes that outlive `'a`, or is null.
    pub unsafe fn bytes<'a>(&self) -> &'a [u8] {
        if self.data.is_null() || self.size == 0 {
            return &[];
        }
        // SAFETY: the caller's contract.
        unsafe { core::slice::from_raw_parts(self.data, self.size) }
    }
}

/// `iree_string_pair_t`: a module parameter (`lib.so@entry?key=value`) or an attribute.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct StringPair {
    /// The key.
    pub key: StringView,
    /// The value.
    pub value: StringView,
}

/// `iree_byte_span_t`: an argument or result buffer.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ByteSpan {
    /// The bytes.
    pub data: *mut u8,
    /// Their count.
    pub data_length: usize,
}

/// `iree_allocator_t` (received, never used: the module allocates with Rust's allocator).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Allocator {
    /// The allocator's state.
    pub self_: *mut c_void,
    /// Its control entry.
    pub ctl: *const c_void,
}

/// `iree_vm_function_linkage_t` values.
pub mod linkage {
    /// A function the module imports from another module.
    pub const IMPORT: u32 = 1;
    /// An exported function.
    pub const EXPORT: u32 = 2;
    /// An exported function the host may do without (`__init`, `__deinit`).
    pub const EXPORT_OPTIONAL: u32 = 4;
}

/// `iree_vm_function_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Function {
    /// The module that owns it.
    pub module: *mut Module,
    /// Its linkage.
    pub linkage: u16,
    /// Its index among the module's exports.
    pub ordinal: u16,
}

/// `iree_vm_module_dependency_t`: a module this one needs loaded before it.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Dependency {
    /// The module's name (`hal`).
    pub name: StringView,
    /// The oldest version that serves.
    pub minimum_version: u32,
    /// [`DEPENDENCY_REQUIRED`] or optional.
    pub flags: u32,
}

/// `IREE_VM_MODULE_DEPENDENCY_FLAG_REQUIRED`.
pub const DEPENDENCY_REQUIRED: u32 = 1;

/// `iree_vm_module_dependency_callback_t`.
pub type DependencyCallback = unsafe extern "C" fn(user_data: *mut c_void, dependency: *const Dependency) -> Status;

/// `iree_vm_function_signature_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct FunctionSignature {
    /// The calling convention string (`0ii_i`).
    pub calling_convention: StringView,
}

/// `iree_vm_module_signature_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ModuleSignature {
    /// The module's version.
    pub version: u32,
    /// Module attributes.
    pub attr_count: usize,
    /// Imported functions.
    pub import_function_count: usize,
    /// Exported functions.
    pub export_function_count: usize,
    /// Internal functions.
    pub internal_function_count: usize,
}

/// `iree_vm_function_call_t`, passed by value to `begin_call`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct FunctionCall {
    /// The function called.
    pub function: Function,
    /// The argument buffer (laid out by the calling convention).
    pub arguments: ByteSpan,
    /// The result buffer (zeroed by the caller).
    pub results: ByteSpan,
}

type SelfPtr = *mut c_void;

/// `iree_vm_module_t`: the module's interface; every entry receives `self_`.
#[repr(C)]
#[derive(Debug)]
pub struct Module {
    /// The module's state, passed back to every entry.
    pub self_: SelfPtr,
    /// The host's reference count (starts at 1; the host releases it, then calls `destroy`).
    pub ref_count: AtomicI32,
    /// Frees the module.
    pub destroy: unsafe extern "C" fn(SelfPtr),
    /// The module's name.
    pub name: unsafe extern "C" fn(SelfPtr) -> StringView,
    /// Function counts.
    pub signature: unsafe extern "C" fn(SelfPtr) -> ModuleSignature,
    /// Modules this one needs (`hal` when a function takes or returns tensors).
    pub enumerate_dependencies: unsafe extern "C" fn(SelfPtr, Option<DependencyCallback>, *mut c_void) -> Status,
    /// Module attributes (none).
    pub get_module_attr: unsafe extern "C" fn(SelfPtr, usize, *mut StringPair) -> Status,
    /// Finds a function by name, checking the calling convention the caller expects.
    pub lookup_function:
        unsafe extern "C" fn(SelfPtr, u32, StringView, *const FunctionSignature, *mut Function) -> Status,
    /// A function by ordinal, with its name and signature.
    pub get_function:
        unsafe extern "C" fn(SelfPtr, u32, usize, *mut Function, *mut StringView, *mut FunctionSignature) -> Status,
    /// A function's attributes (`iree.abi`, `abi.cconv`).
    pub get_function_attr: Option<unsafe extern "C" fn(SelfPtr, u32, usize, usize, *mut StringPair) -> Status>,
    /// Source locations (none: NULL).
    pub resolve_source_location: Option<unsafe extern "C" fn()>,
    /// Makes per-context state.
    pub alloc_state: unsafe extern "C" fn(SelfPtr, Allocator, *mut *mut c_void) -> Status,
    /// Frees per-context state.
    pub free_state: unsafe extern "C" fn(SelfPtr, *mut c_void),
    /// Copies per-context state.
    pub fork_state: unsafe extern "C" fn(SelfPtr, *mut c_void, Allocator, *mut *mut c_void) -> Status,
    /// Resolves one of the module's imports (the HAL functions tensors need).
    pub resolve_import:
        unsafe extern "C" fn(SelfPtr, *mut c_void, usize, *const Function, *const FunctionSignature) -> Status,
    /// Lifecycle signals.
    pub notify: unsafe extern "C" fn(SelfPtr, *mut c_void, i32) -> Status,
    /// Runs a call synchronously.
    pub begin_call: unsafe extern "C" fn(SelfPtr, *mut c_void, FunctionCall) -> Status,
    /// Resumes a deferred call (never deferred here).
    pub resume_call: unsafe extern "C" fn(SelfPtr, *mut c_void, ByteSpan) -> Status,
}

// The layout of IREE 3.13 (docs/IREE-DYNAMIC-MODULE.md).
static_assertions::const_assert_eq!(core::mem::size_of::<StringView>(), 16);
static_assertions::const_assert_eq!(core::mem::size_of::<StringPair>(), 32);
static_assertions::const_assert_eq!(core::mem::size_of::<Allocator>(), 16);
static_assertions::const_assert_eq!(core::mem::size_of::<Function>(), 16);
static_assertions::const_assert_eq!(core::mem::size_of::<ModuleSignature>(), 40);
static_assertions::const_assert_eq!(core::mem::size_of::<FunctionCall>(), 48);
static_assertions::const_assert_eq!(core::mem::size_of::<Dependency>(), 24);
static_assertions::const_assert_eq!(core::mem::size_of::<Module>(), 144);
static_assertions::const_assert_eq!(core::mem::offset_of!(Module, ref_count), 8);
static_assertions::const_assert_eq!(core::mem::offset_of!(Module, get_function_attr), 72);
static_assertions::const_assert_eq!(core::mem::offset_of!(Module, begin_call), 128);
