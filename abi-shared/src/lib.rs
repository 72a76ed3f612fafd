//! What the code generator (`abi-macros`), the runtime (`abi-core`) and tools must spell
//! the same way, written once: the exported symbol names of docs/ABI.md section 4 and the
//! version of the metadata format. No dependencies, so every side can use it.
//!
//! | symbol | what |
//! |---|---|
//! | `__tvm_ffi_<name>` | the packed shim |
//! | `__tvm_ffi__metadata_<name>` | returns the metadata JSON |
//! | `__tvm_ffi__doc_<name>` | returns the docstring |
//! | `__tvm_ffi__abi_exports_json` | returns `{"<name>": <metadata>, ...}` for every export |
//! | `abi_error_move_from_raised` | hands over the last error when no tvm-ffi runtime is loaded |
//! | `abi_runtime_attach` | makes a library opened by another abi runtime use that runtime |
//! | `abi_export_named_<name>!` | hidden crate-root macro: one export per name per crate |
//!
//! The spellings of types (`type_schema` keys, Python names, stub annotations) are in
//! [`vocab`].

pub mod vocab;

/// Prefix of the packed shim of an export.
pub const SHIM_PREFIX: &str = "__tvm_ffi_";
/// Prefix of the function returning an export's metadata JSON.
pub const METADATA_PREFIX: &str = "__tvm_ffi__metadata_";
/// Prefix of the function returning an export's docstring.
pub const DOC_PREFIX: &str = "__tvm_ffi__doc_";
/// The packed function listing every export of a library built with abi.
pub const EXPORTS_LISTING: &str = "__tvm_ffi__abi_exports_json";
/// The C entry (`void f(void** out)`) that moves out the error a call raised, for callers
/// without a tvm-ffi runtime.
pub const TAKE_ERROR: &str = "abi_error_move_from_raised";
/// The C entry (`int32 f(const RuntimeTable* table, uint32* own_version)`) by which a
/// library opened by another abi runtime adopts that runtime (docs/ABI.md section 9).
pub const RUNTIME_ATTACH: &str = "abi_runtime_attach";
/// Version of the runtime table layout handed over by `abi_runtime_attach`; libraries
/// attach only to the same version and refuse another with a message.
pub const RUNTIME_TABLE_VERSION: u32 = 3;
/// The ELF section holding every export's record, so tools read a library's exports from
/// the file without running it (docs/ABI.md section 4): records follow one another, the
/// linker possibly padding between them with NULs, each being the exported name, NUL, the
/// global registry name (empty for none), NUL, the length of the body as a little-endian
/// `u32`, and the body: the metadata JSON, NUL, the signature text, NUL, the docstring
/// (which may hold NULs), NUL.
pub const EXPORT_RECORDS_SECTION: &str = "abi_export_records";
/// The ELF section holding the reflection records of object types and their methods: one
/// NUL-terminated JSON text per class (`{"record":"class",...}`) and per method
/// (`{"record":"method",...}`), rendered at compile time and concatenated by the linker, so
/// tools read a library's classes from the file without running it (docs/ABI.md section 10).
pub const CLASS_RECORDS_SECTION: &str = "abi_class_records";
/// The ELF section holding the IREE records, so tools read a library's IREE module from
/// the file without running it: one NUL-terminated JSON text per `iree_module!`
/// (`{"record":"iree.module","name":"kit","entry":"iree_vm_dynamic_module_create","abi.version":1}`)
/// and per `#[export_fn(iree)]` function (`{"record":"iree.function","name":"add_i32","cconv":"0ii_i","abi.version":1}`),
/// rendered at compile time and concatenated by the linker.
pub const IREE_RECORDS_SECTION: &str = "abi_iree_records";
// The record sections of each object format. abi-core's `sys` module places records with a
// `macro_rules!`, which cannot name a constant: it spells each name as a literal, one file
// per format, and a test there holds the literals to these constants.
/// [`EXPORT_RECORDS_SECTION`] in a Mach-O library (macOS): `segment,section`, the section
/// name at most 16 bytes.
pub const EXPORT_RECORDS_SECTION_MACHO: &str = "__DATA,__abi_exports";
/// [`CLASS_RECORDS_SECTION`] in a Mach-O library.
pub const CLASS_RECORDS_SECTION_MACHO: &str = "__DATA,__abi_classes";
/// [`IREE_RECORDS_SECTION`] in a Mach-O library.
pub const IREE_RECORDS_SECTION_MACHO: &str = "__DATA,__abi_iree";
/// [`EXPORT_RECORDS_SECTION`] in a PE library (Windows): at most 8 bytes, since lld-link
/// truncates longer section names in an image.
pub const EXPORT_RECORDS_SECTION_PE: &str = ".abiexp";
/// [`CLASS_RECORDS_SECTION`] in a PE library.
pub const CLASS_RECORDS_SECTION_PE: &str = ".abicls";
/// [`IREE_RECORDS_SECTION`] in a PE library.
pub const IREE_RECORDS_SECTION_PE: &str = ".abiiree";
/// Prefix of the hidden crate-root macro that makes a second export of a name an error.
pub const UNIQUENESS_MARKER_PREFIX: &str = "abi_export_named_";

/// The `apache-tvm-ffi` releases a library built with abi works with, the oldest and the
/// newest of which the test command runs the interop suites against: the requirement
/// `abi wheel` writes into every wheel's METADATA (`Requires-Dist`) and `abi init-python`
/// names in the `pyproject.toml` it writes.
pub const TVM_FFI_REQUIREMENT: &str = "apache-tvm-ffi>=0.1.8.post2,<0.2";

/// The version `TVMFFIGetVersion` reports in the oldest release of [`TVM_FFI_REQUIREMENT`]
/// (0.1.8.post2 reports 0.1.8; a release's C version is not its package version:
/// 0.1.15.post2 reports 0.1.16): a library refuses a libtvm_ffi reporting less.
pub const TVM_FFI_ABI_LOWEST: [u32; 3] = [0, 1, 8];

/// The first `TVMFFIGetVersion` above [`TVM_FFI_REQUIREMENT`]: a library refuses a
/// libtvm_ffi reporting this or more.
pub const TVM_FFI_ABI_BELOW: [u32; 3] = [0, 2, 0];

/// The key of the format version in every metadata object and class record this project
/// writes.
pub const VERSION_KEY: &str = "abi.version";

/// The reflected name of an object type's constructor (`#[abi(init)]`): the static method
/// `tvm_ffi.register_object` classes call from `__init__`.
pub const FFI_INIT: &str = "__ffi_init__";

/// The keys of the class records in [`CLASS_RECORDS_SECTION`], spelled once for the writer
/// (abi-core's `runtime::object_types::class_record`) and the reader (`abi_core::schema::parse_class_records`).
pub mod class_record {
    /// What a record describes: [`CLASS`], [`METHOD`] or [`ERROR`].
    pub const RECORD: &str = "record";
    /// The `record` of a class.
    pub const CLASS: &str = "class";
    /// The `record` of a method; also, in a method record, the key naming its class.
    pub const METHOD: &str = "method";
    /// A class's type key.
    pub const TYPE_KEY: &str = "type_key";
    /// A class's parent type key.
    pub const PARENT: &str = "parent";
    /// Docs of a class, field or method.
    pub const DOC: &str = "doc";
    /// A class's reflected fields, in declaration order.
    pub const FIELDS: &str = "fields";
    /// The name of a field or method.
    pub const NAME: &str = "name";
    /// A field's `type_schema` (a JSON text).
    pub const TYPE_SCHEMA: &str = "type_schema";
    /// Whether hosts may assign a field.
    pub const WRITABLE: &str = "writable";
    /// Whether a method is static (no receiver).
    pub const STATIC: &str = "static";
    /// A method's metadata object (as its export would publish it).
    pub const METADATA: &str = "metadata";
    /// The `record` of a derived error type (`#[derive(AbiError)]`).
    pub const ERROR: &str = "error";
    /// An error type's kinds, one per variant in declaration order.
    pub const KINDS: &str = "kinds";
    /// A kind's variant (its Rust identifier).
    pub const VARIANT: &str = "variant";
    /// A kind's text, as errors carry it.
    pub const KIND: &str = "kind";
    /// The builtin kind a kind's Python class also subclasses.
    pub const BASE: &str = "base";
}

/// The keys of the IREE records in [`IREE_RECORDS_SECTION`], spelled once for the writer
/// (abi-core's `iree::records`) and the reader (`abi_core::schema::parse_iree_records`).
pub mod iree_record {
    /// What a record describes: [`MODULE`] or [`FUNCTION`].
    pub const RECORD: &str = "record";
    /// The `record` of a module (`iree_module!`).
    pub const MODULE: &str = "iree.module";
    /// The `record` of a function (`#[export_fn(iree)]`).
    pub const FUNCTION: &str = "iree.function";
    /// The module's or function's name.
    pub const NAME: &str = "name";
    /// The module's entry point: the exported C symbol IREE calls to create it.
    pub const ENTRY: &str = "entry";
    /// The function's calling convention (`0ii_i`).
    pub const CCONV: &str = "cconv";
}

/// Version of the metadata JSON this project writes (its `"abi.version"` key). Bump it
/// whenever the written format changes in a way older readers would misread; a key they
/// ignore (readers skip unknown keys) is added without a bump, so they keep reading new
/// libraries. A test pins the format to the version.
pub const METADATA_VERSION: u32 = 1;

/// The metadata key naming an export's global registry name (`"mylib.add"`), present only
/// for `#[export_fn(global = ...)]` exports. Added in format 1 without a bump: readers
/// that predate it ignore it.
pub const GLOBAL_KEY: &str = "abi.global";
/// The metadata key naming the error type an export raises (`Result<T, KernelError>`), whose
/// kinds a derived error type's record in the class records section lists.
pub const ERROR_KEY: &str = "abi.error";

/// The metadata key of an export's parameter defaults (`#[abi(default = ...)]`): a JSON
/// object from parameter name to the default value (a number, bool, string or `null` for
/// `None`), present only when some parameter has one. Readers that predate it ignore it,
/// as they ignore every key they do not know, so the format version is unchanged.
pub const DEFAULTS_KEY: &str = "abi.defaults";

/// The metadata key listing an export's parameters that only read the tensor they take
/// (`HostTensor`, `StridedTensor`, `HostTensorAs`, `DeviceTensor`, and `Option`s of them):
/// a JSON list of names, present only when some parameter is one. Hosts may pass read-only
/// memory (a read-only numpy array) to these and to no other. Readers that predate it
/// ignore it.
pub const READ_ONLY_KEY: &str = "abi.read_only";

/// The metadata key of an export's GIL choice for Python callers
/// (`#[export_fn(gil = "release")]` or `"keep"`): [`GIL_RELEASE`] or [`GIL_KEEP`], present
/// only when the export states one; without it a Python caller keeps the GIL for an
/// export whose parameters are all numbers, `bool`, `str`, `bytes` or `None`, and releases
/// it for every other. Readers that predate it ignore it.
pub const GIL_KEY: &str = "abi.gil";
/// [`GIL_KEY`]'s value for an export that releases the GIL while it runs.
pub const GIL_RELEASE: &str = "release";
/// [`GIL_KEY`]'s value for an export that keeps the GIL while it runs.
pub const GIL_KEEP: &str = "keep";

/// The metadata key of an `#[export_fn(op)]` export's description: an object with its
/// `inputs`, `scalars`, `outputs` (each `{"name":..,"like":..}`, `{"name":..,"shape":[..]}`
/// or `{"name":..,"inout":true}`), `inout`, `backward`, `jax` and `device`, written just
/// before the format version, present only for ops. Readers that predate it ignore it.
pub const OP_KEY: &str = "abi.op";

/// The `type_schema` keys a typed tensor adds to `{"type":"ffi.Tensor"}`: its element type
/// (a dtype string, `float32`) and its rank. tvm-ffi's readers ignore keys they do not know.
pub const TENSOR_DTYPE_KEY: &str = "dtype";
/// See [`TENSOR_DTYPE_KEY`].
pub const TENSOR_NDIM_KEY: &str = "ndim";
/// The `type_schema` key of a typed tensor parameter that also takes other dtypes and
/// converts them (`HostTensorAs`); its one value is [`TENSOR_CAST_SAME_KIND`].
pub const TENSOR_CAST_KEY: &str = "cast";
/// The value of [`TENSOR_CAST_KEY`]: the dtypes numpy's `same_kind` casting takes to the
/// element type are accepted.
pub const TENSOR_CAST_SAME_KIND: &str = "same_kind";
/// The key a named struct's `type_schema` (`{"type":"Tuple","args":[...]}`, how it crosses)
/// adds for its Rust name, so Python packages can give results named fields.
pub const STRUCT_NAME_KEY: &str = "abi.struct";
/// The key beside [`STRUCT_NAME_KEY`] listing the struct's field names in order.
pub const STRUCT_FIELDS_KEY: &str = "abi.fields";

/// The key a fieldless enum's `type_schema` (`{"type":"ffi.String"}`, how it crosses) adds
/// for its Rust name, so readers can name it and Python packages can make it an
/// `enum.Enum`.
pub const ENUM_NAME_KEY: &str = "abi.enum";
/// The key beside [`ENUM_NAME_KEY`] listing the names its variants cross as, in order.
pub const ENUM_NAMES_KEY: &str = "abi.names";
/// The key beside [`ENUM_NAME_KEY`] listing its variants' Rust identifiers, in the same
/// order (Python's enum members and generated Rust enums take them).
pub const ENUM_VARIANTS_KEY: &str = "abi.variants";
/// The key an enum with data adds beside [`ENUM_NAME_KEY`], [`ENUM_NAMES_KEY`] and
/// [`ENUM_VARIANTS_KEY`] to its `type_schema` (`{"type":"Variant","args":[...]}`, one
/// `Tuple` per variant: its name, a string, then its fields): each variant's field names,
/// a list per variant in order (`"0"`, `"1"`... for a tuple variant's).
pub const TAGGED_FIELDS_KEY: &str = "abi.variant_fields";

/// The error kinds `tvm_ffi` maps to Python's builtin exceptions of the same name: the
/// bases a derived error kind may name, and the names it may not take.
pub const BUILTIN_ERROR_KINDS: [&str; 8] = [
    "RuntimeError",
    "ValueError",
    "TypeError",
    "AttributeError",
    "KeyError",
    "IndexError",
    "AssertionError",
    "MemoryError",
];

/// The packed shim symbol of export `name`.
pub fn shim(name: &str) -> String {
    format!("{SHIM_PREFIX}{name}")
}

/// The metadata symbol of export `name`.
pub fn metadata(name: &str) -> String {
    format!("{METADATA_PREFIX}{name}")
}

/// The docstring symbol of export `name`.
pub fn doc(name: &str) -> String {
    format!("{DOC_PREFIX}{name}")
}

/// The uniqueness marker of export `name`.
pub fn uniqueness_marker(name: &str) -> String {
    format!("{UNIQUENESS_MARKER_PREFIX}{name}")
}

/// Whether `s` is a C identifier (an exported name becomes part of a C symbol).
pub fn is_c_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

/// Python keywords, which no export, package or keyword argument can be named.
const PYTHON_KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
    "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal",
    "not", "or", "pass", "raise", "return", "try", "while", "with", "yield",
];

/// Whether `s` can name a Python function, package or keyword argument: a C identifier
/// that is no Python keyword, nor `__debug__` (a constant Python refuses to bind: `def
/// f(__debug__)` parses and does not compile). The generated package takes parameters so
/// named as keywords, so renaming one breaks callers (`abi diff`).
pub fn is_python_identifier(s: &str) -> bool {
    is_c_identifier(s) && !PYTHON_KEYWORDS.contains(&s) && s != "__debug__"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symbols_are_spelled_as_the_abi_says() {
        assert_eq!(shim("add"), "__tvm_ffi_add");
        assert_eq!(metadata("add"), "__tvm_ffi__metadata_add");
        assert_eq!(doc("add"), "__tvm_ffi__doc_add");
        assert_eq!(uniqueness_marker("add"), "abi_export_named_add");
    }

    #[test]
    fn c_identifiers() {
        assert!(is_c_identifier("_a1"));
        assert!(!is_c_identifier("1a"));
        assert!(!is_c_identifier("a-b"));
        assert!(!is_c_identifier(""));
    }
}
