//! Type-index constants of the TVM FFI ABI (docs/ABI.md section 1) and their display names.

use abi_shared::vocab::Kind;

/// None / null.
pub const NONE: i32 = 0;
/// 64-bit signed integer.
pub const INT: i32 = 1;
/// Boolean stored as an i64 0 or 1.
pub const BOOL: i32 = 2;
/// 64-bit float.
pub const FLOAT: i32 = 3;
/// Opaque pointer.
pub const OPAQUE_PTR: i32 = 4;
/// `DLDataType` stored inline.
pub const DATA_TYPE: i32 = 5;
/// `DLDevice` stored inline.
pub const DEVICE: i32 = 6;
/// Borrowed `DLTensor*`.
pub const DL_TENSOR_PTR: i32 = 7;
/// Borrowed NUL-terminated `char*` (arguments only).
pub const RAW_STR: i32 = 8;
/// Borrowed `TVMFFIByteArray*` (arguments only).
pub const BYTE_ARRAY_PTR: i32 = 9;
/// Pointer to an object slot the callee may move from.
pub const OBJECT_RVALUE_REF: i32 = 10;
/// String of at most 7 bytes stored inline.
pub const SMALL_STR: i32 = 11;
/// Bytes of at most 7 bytes stored inline.
pub const SMALL_BYTES: i32 = 12;
/// Marker used by structural mutation.
pub const UNCHANGED: i32 = 13;
/// First static object index: every index at or above it is a ref-counted object.
pub const OBJECT: i32 = 64;
/// String object.
pub const STR: i32 = 65;
/// Bytes object.
pub const BYTES: i32 = 66;
/// Error object.
pub const ERROR: i32 = 67;
/// Function object.
pub const FUNCTION: i32 = 68;
/// Shape object.
pub const SHAPE: i32 = 69;
/// Tensor object.
pub const TENSOR: i32 = 70;
/// Immutable array object.
pub const ARRAY: i32 = 71;
/// Map object.
pub const MAP: i32 = 72;
/// Module object.
pub const MODULE: i32 = 73;
/// Opaque Python object.
pub const OPAQUE_PY_OBJECT: i32 = 74;
/// Mutable list object.
pub const LIST: i32 = 75;
/// Mutable dict object.
pub const DICT: i32 = 76;
/// Visit interrupt marker object.
pub const VISIT_INTERRUPT: i32 = 77;
/// Arbitrary-precision integer object.
pub const BIG_INT: i32 = 78;
/// First index handed out to runtime-registered object types.
pub const DYN_OBJECT_BEGIN: i32 = 128;

/// Longest string stored inline as [`SMALL_STR`] / [`SMALL_BYTES`].
pub const SMALL_STR_MAX_LEN: usize = 7;

/// Whether `index` denotes a ref-counted object.
#[inline(always)]
pub const fn is_object(index: i32) -> bool {
    index >= OBJECT
}

/// The name a Python user would recognise for a value of type `index`, used in error messages.
pub const fn display_name(index: i32) -> &'static str {
    match index {
        NONE => Kind::None.python(),
        INT => Kind::Int.python(),
        BOOL => Kind::Bool.python(),
        FLOAT => Kind::Float.python(),
        OPAQUE_PTR => Kind::OpaquePtr.python(),
        DATA_TYPE => Kind::DataType.python(),
        DEVICE => Kind::Device.python(),
        DL_TENSOR_PTR => abi_shared::vocab::DL_TENSOR_PTR,
        RAW_STR | SMALL_STR | STR => Kind::Str.python(),
        BYTE_ARRAY_PTR | SMALL_BYTES | BYTES => Kind::Bytes.python(),
        OBJECT_RVALUE_REF => "ObjectRValueRef",
        UNCHANGED => "Unchanged",
        OBJECT => Kind::Object.python(),
        ERROR => Kind::Error.python(),
        FUNCTION => Kind::Function.python(),
        SHAPE => Kind::Shape.python(),
        TENSOR => Kind::Tensor.python(),
        ARRAY => "Array",
        MAP => "Map",
        MODULE => "Module",
        OPAQUE_PY_OBJECT => "OpaquePyObject",
        LIST => "List",
        DICT => "Dict",
        VISIT_INTERRUPT => "VisitInterrupt",
        BIG_INT => "BigInt",
        i if i >= DYN_OBJECT_BEGIN => "object",
        _ => "unknown type",
    }
}
