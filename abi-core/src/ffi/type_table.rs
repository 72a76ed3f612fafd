//! The type table's C contract (tvm/ffi/c_api.h, docs/ABI.md section 10): the records a
//! runtime keeps per object type (type info, reflected fields, methods, metadata, attribute
//! columns) and the entry points that allocate indices and register reflection, with the
//! exact signatures of tvm-ffi's `TVMFFIType*` functions.

use core::ffi::c_void;
use core::mem::{offset_of, size_of};

use static_assertions::const_assert_eq;

use crate::ffi::{ByteArray, ObjectHeader, RawAny};

/// Reads a field at `field` (object address + offset) into `result` (0, or -1 with an
/// error raised).
pub type FieldGetter = unsafe extern "C" fn(field: *mut c_void, result: *mut RawAny) -> i32;
/// Writes `value` into the field at `field` (0, or -1 with an error raised).
pub type FieldSetter = unsafe extern "C" fn(field: *mut c_void, value: *const RawAny) -> i32;
/// Creates an empty instance of a type (unused by this project: creation goes through
/// `__ffi_init__`).
pub type ObjectCreator = unsafe extern "C" fn(result: *mut *mut ObjectHeader) -> i32;

/// `TVMFFIFieldInfo`: one reflected field.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct FieldInfo {
    /// The field name.
    pub name: ByteArray,
    /// Its docs.
    pub doc: ByteArray,
    /// JSON metadata, e.g. `{"type_schema":"{\"type\":\"int\"}"}`.
    pub metadata: ByteArray,
    /// [`field_flags`] bits.
    pub flags: i64,
    /// Size of the field in bytes.
    pub size: i64,
    /// Alignment of the field.
    pub alignment: i64,
    /// Offset from the start of the object header.
    pub offset: i64,
    /// Reads the field.
    pub getter: Option<FieldGetter>,
    /// Writes the field (a [`FieldSetter`]); null when the field is read-only.
    pub setter: *mut c_void,
    /// Default value or factory (unused: `HasDefault` is never set).
    pub default_value_or_factory: RawAny,
    /// Static type index of the field's type (`Any` = -1 when it is not one index).
    pub field_static_type_index: i32,
}

/// `TVMFFIMethodInfo`: one reflected method.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct MethodInfo {
    /// The method name (`__ffi_init__` for the constructor).
    pub name: ByteArray,
    /// Its docs.
    pub doc: ByteArray,
    /// JSON metadata (`type_schema`, ...).
    pub metadata: ByteArray,
    /// [`field_flags::STATIC_METHOD`] for static methods.
    pub flags: i64,
    /// A Function object (borrowed by the call; the runtime keeps its own reference).
    /// Instance methods take the object first.
    pub method: RawAny,
}

/// `TVMFFITypeMetadata`: extra information of a type.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct TypeMetadata {
    /// The type's docs.
    pub doc: ByteArray,
    /// Creates an empty instance; `None` here.
    pub creator: Option<ObjectCreator>,
    /// Total size of the object (header and payload).
    pub total_size: i32,
    /// Structural equality kind (0: unsupported).
    pub structural_eq_hash_kind: i32,
}

/// `TVMFFITypeInfo`: what a runtime knows about a type.
#[repr(C)]
#[derive(Debug)]
pub struct TypeInfo {
    /// The type index.
    pub type_index: i32,
    /// Number of ancestors (`Object` has depth 0).
    pub type_depth: i32,
    /// The unique type key.
    pub type_key: ByteArray,
    /// `type_ancestors[d]` is the ancestor at depth `d`, for `d < type_depth`.
    pub type_ancestors: *const *const TypeInfo,
    /// Hash of the type key.
    pub type_key_hash: u64,
    /// Number of registered fields.
    pub num_fields: i32,
    /// Number of registered methods.
    pub num_methods: i32,
    /// The fields.
    pub fields: *const FieldInfo,
    /// The methods.
    pub methods: *const MethodInfo,
    /// The metadata, or null.
    pub metadata: *const TypeMetadata,
}

/// `TVMFFITypeAttrColumn`: one attribute for every type, indexed by `type_index -
/// begin_index`.
#[repr(C)]
#[derive(Debug)]
pub struct TypeAttrColumn {
    /// The values.
    pub data: *const RawAny,
    /// Number of values.
    pub size: i32,
    /// Type index of `data[0]`.
    pub begin_index: i32,
}

/// Flag bits of [`FieldInfo::flags`] and [`MethodInfo::flags`].
pub mod field_flags {
    /// The field has a setter Python may call.
    pub const WRITABLE: i64 = 1 << 0;
    /// A static method (no `self`).
    pub const STATIC_METHOD: i64 = 1 << 2;
    /// The field is not a parameter of the generated `__init__`.
    pub const INIT_OFF: i64 = 1 << 9;
}

/// `TVMFFITypeGetOrAllocIndex` in parent query mode: only look the key up.
pub const QUERY_ONLY_PARENT: i32 = -2;

/// The type-table entry points of a runtime, with the signatures of tvm-ffi's
/// `TVMFFITypeKeyToIndex`, `TVMFFITypeGetOrAllocIndex`, `TVMFFITypeRegisterField`,
/// `TVMFFITypeRegisterMethod`, `TVMFFITypeRegisterMetadata`, `TVMFFITypeRegisterAttr`,
/// `TVMFFIGetTypeAttrColumn` and `TVMFFIGetTypeInfo`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct TypeApi {
    /// Looks a key up (0 and the index, or non-zero with an error raised).
    pub key_to_index: unsafe extern "C" fn(*const ByteArray, *mut i32) -> i32,
    /// Allocates (or returns) the index of a key: key, static index (-1), depth, child
    /// slots, slots can overflow, parent index.
    pub get_or_alloc_index: unsafe extern "C" fn(*const ByteArray, i32, i32, i32, i32, i32) -> i32,
    /// Registers a field.
    pub register_field: unsafe extern "C" fn(i32, *const FieldInfo) -> i32,
    /// Registers a method.
    pub register_method: unsafe extern "C" fn(i32, *const MethodInfo) -> i32,
    /// Registers the metadata (once).
    pub register_metadata: unsafe extern "C" fn(i32, *const TypeMetadata) -> i32,
    /// Registers an attribute value (borrowed; the runtime keeps its own reference).
    pub register_attr: unsafe extern "C" fn(i32, *const ByteArray, *const RawAny) -> i32,
    /// The column of an attribute, or null.
    pub get_attr_column: unsafe extern "C" fn(*const ByteArray) -> *const TypeAttrColumn,
    /// The info of a registered index (the index must be registered).
    pub get_type_info: unsafe extern "C" fn(i32) -> *const TypeInfo,
}

const_assert_eq!(size_of::<FieldInfo>(), 120);
const_assert_eq!(offset_of!(FieldInfo, flags), 48);
const_assert_eq!(offset_of!(FieldInfo, offset), 72);
const_assert_eq!(offset_of!(FieldInfo, getter), 80);
const_assert_eq!(offset_of!(FieldInfo, setter), 88);
const_assert_eq!(offset_of!(FieldInfo, default_value_or_factory), 96);
const_assert_eq!(offset_of!(FieldInfo, field_static_type_index), 112);
const_assert_eq!(size_of::<MethodInfo>(), 72);
const_assert_eq!(offset_of!(MethodInfo, flags), 48);
const_assert_eq!(offset_of!(MethodInfo, method), 56);
const_assert_eq!(size_of::<TypeMetadata>(), 32);
const_assert_eq!(offset_of!(TypeMetadata, creator), 16);
const_assert_eq!(offset_of!(TypeMetadata, total_size), 24);
const_assert_eq!(size_of::<TypeInfo>(), 72);
const_assert_eq!(offset_of!(TypeInfo, type_key), 8);
const_assert_eq!(offset_of!(TypeInfo, type_ancestors), 24);
const_assert_eq!(offset_of!(TypeInfo, type_key_hash), 32);
const_assert_eq!(offset_of!(TypeInfo, num_fields), 40);
const_assert_eq!(offset_of!(TypeInfo, fields), 48);
const_assert_eq!(offset_of!(TypeInfo, metadata), 64);
const_assert_eq!(size_of::<TypeAttrColumn>(), 16);
const_assert_eq!(size_of::<TypeApi>(), 64);
