//! The vocabulary of types: every kind of value the ABI describes, and each way a kind is
//! spelled, written once. The renderers of published texts, their readers, error messages,
//! `abi diff` and the generated stubs look spellings up here; a test
//! (`abi-shared/tests/spelled_once.rs`) fails when another source file spells one.
//!
//! | kind | `type_schema` key | C++ keys read as it | Python (messages) | stub annotation | IREE record |
//! |---|---|---|---|---|---|
//! | `Any` | `Any` | | `Any` | `Any` | |
//! | `None` | `None` | | `None` | `None` | |
//! | `Bool` | `bool` | | `bool` | `bool` | `i1` |
//! | `Int` | `int` | | `int` | `int` | `i8`...`u64` |
//! | `Float` | `float` | | `float` | `float` | `f16`, `bf16`, `f32`, `f64` |
//! | `Str` | `ffi.String` | `std::string`, `const char*` | `str` | `str` | `str` |
//! | `Bytes` | `ffi.Bytes` | | `bytes` | `bytes` | `bytes` |
//! | `OpaquePtr` | `void*` | | `void*` | `Any` | |
//! | `DataType` | `DataType` | | `DataType` | `tvm_ffi.dtype` | |
//! | `Device` | `Device` | | `Device` | `tvm_ffi.Device` | |
//! | `Shape` | `ffi.Shape` | | `Shape` | `tvm_ffi.Shape` | |
//! | `Tensor` | `ffi.Tensor` | `DLTensor*` | `Tensor` | `tvm_ffi.Tensor` | `ndarray` |
//! | `Error` | `ffi.Error` | | `Error` | `Exception` | |
//! | `Object` | `ffi.Object` | | `Object` | `tvm_ffi.Object` | |
//! | `Function` | `ffi.Function` | `std::function` | `Function` | `Callable[..., Any]` | |
//! | `Callable` | `ffi.Function` | | `Callable[...]` | `Callable[...]` | |
//! | `Optional` | `Optional` | `std::optional` | `Optional[...]` | `Optional[...]` | `optional` |
//! | `Array` | `ffi.Array` | `std::vector` | `list[...]` | `Sequence[...]` | `py_homogeneous_list` |
//! | `Map` | `ffi.Map` | `std::map`, `std::unordered_map` | `dict[...]` | `Mapping[...]` | `py_homogeneous_dict` |
//! | `Tuple` | `Tuple` | `std::tuple` | `tuple[...]` | `tuple[...]` | `stuple` |
//! | `Variant` | `Variant` | `std::variant` | `Union[...]` | `Union[...]` | |
//! | `List` | `ffi.List` | | `tvm_ffi.List[...]` | `Sequence[...]` | (`Array`'s) |
//! | `Dict` | `ffi.Dict` | | `tvm_ffi.Dict[...]` | `Mapping[...]` | (`Map`'s) |
//!
//! `ffi.List` and `ffi.Dict` are the mutable `ffi.Array` and `ffi.Map`: C++ converts each
//! to the other, so they carry the same values, and IREE records write them as the other two; the
//! Python names say `tvm_ffi.List` (Python's own `list` is what an `ffi.Array` reads as).
//! The keys of the built-in object kinds (`ffi.String` ... `ffi.Dict`, `ffi.Object`) are
//! also their object type keys in the type table. The spellings of a kind that takes type
//! arguments (from `Callable` on) are heads, written `head[arguments]`. Object classes are
//! spelled by their own type keys, and integer and float widths (`i64`, `f32`) are not
//! kinds: `type_schema` publishes one `int` and one `float`, the IREE record the width.

/// The IREE record tags that are not kinds of their own (docs/ABI.md section 6).
pub mod iree {
    /// `["sdict", [name, T]...]`: a struct with named fields.
    pub const STRUCT: &str = "sdict";
    /// `["object", key]`: an object class.
    pub const OBJECT: &str = "object";
    /// `["named", name, T]`: a named argument.
    pub const NAMED: &str = "named";
    /// A type IREE records cannot describe.
    pub const UNKNOWN: &str = "unknown";
    /// Every tag above.
    pub const ALL: [&str; 4] = [STRUCT, OBJECT, NAMED, UNKNOWN];
}

/// A kind of value, as `type_schema` distinguishes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// Every value.
    Any,
    /// `None`.
    None,
    /// A boolean.
    Bool,
    /// An integer of any width.
    Int,
    /// A float of any width.
    Float,
    /// A string.
    Str,
    /// A byte string.
    Bytes,
    /// An opaque pointer.
    OpaquePtr,
    /// A `DLDataType`.
    DataType,
    /// A `DLDevice`.
    Device,
    /// A shape object.
    Shape,
    /// A tensor object.
    Tensor,
    /// An error object.
    Error,
    /// Any object.
    Object,
    /// A function object of unknown signature.
    Function,
    /// A function object with a signature.
    Callable,
    /// A value or `None`.
    Optional,
    /// A sequence of one element type.
    Array,
    /// A map from one key type to one value type.
    Map,
    /// A fixed-arity tuple (derived structs are tuples of their fields).
    Tuple,
    /// Any one of its member types.
    Variant,
    /// A mutable sequence of one element type (`ffi.List`).
    List,
    /// A mutable map from one key type to one value type (`ffi.Dict`).
    Dict,
}

/// The C++ key of a borrowed `DLTensor*` parameter (read as a tensor; a tensor object or a
/// bare pointer is passed for it), and its name in messages about a value of index 7.
pub const DL_TENSOR_PTR: &str = "DLTensor*";

/// How one [`Kind`] is spelled.
#[derive(Debug)]
pub struct Spelling {
    /// The kind.
    pub kind: Kind,
    /// Its tvm-ffi `type_schema` key.
    pub key: &'static str,
    /// Other keys C++ writes for the same kind, read as it.
    pub aliases: &'static [&'static str],
    /// Its Python name in error messages, signatures and `abi diff` (a head for kinds
    /// with type arguments).
    pub python: &'static str,
    /// Its annotation in generated Python stubs (a head for kinds with type arguments).
    pub stub: &'static str,
    /// Its name (or list tag) in IREE function-ABI records, when it has one of its own.
    pub iree: Option<&'static str>,
}

const fn spelling(
    kind: Kind,
    key: &'static str,
    aliases: &'static [&'static str],
    python: &'static str,
    stub: &'static str,
    iree: Option<&'static str>,
) -> Spelling {
    Spelling { kind, key, aliases, python, stub, iree }
}

/// Every kind's spellings, in the order of [`Kind`]'s variants.
pub const SPELLINGS: [Spelling; 23] = [
    spelling(Kind::Any, "Any", &[], "Any", "Any", None),
    spelling(Kind::None, "None", &[], "None", "None", None),
    spelling(Kind::Bool, "bool", &[], "bool", "bool", Some("i1")),
    spelling(Kind::Int, "int", &[], "int", "int", None),
    spelling(Kind::Float, "float", &[], "float", "float", None),
    spelling(Kind::Str, "ffi.String", &["std::string", "const char*"], "str", "str", Some("str")),
    spelling(Kind::Bytes, "ffi.Bytes", &[], "bytes", "bytes", Some("bytes")),
    spelling(Kind::OpaquePtr, "void*", &[], "void*", "Any", None),
    spelling(Kind::DataType, "DataType", &[], "DataType", "tvm_ffi.dtype", None),
    spelling(Kind::Device, "Device", &[], "Device", "tvm_ffi.Device", None),
    spelling(Kind::Shape, "ffi.Shape", &[], "Shape", "tvm_ffi.Shape", None),
    spelling(Kind::Tensor, "ffi.Tensor", &[DL_TENSOR_PTR], "Tensor", "tvm_ffi.Tensor", Some("ndarray")),
    spelling(Kind::Error, "ffi.Error", &[], "Error", "Exception", None),
    spelling(Kind::Object, "ffi.Object", &[], "Object", "tvm_ffi.Object", None),
    spelling(Kind::Function, "ffi.Function", &["std::function"], "Function", "Callable[..., Any]", None),
    spelling(Kind::Callable, "ffi.Function", &[], "Callable", "Callable", None),
    spelling(Kind::Optional, "Optional", &["std::optional"], "Optional", "Optional", Some("optional")),
    spelling(Kind::Array, "ffi.Array", &["std::vector"], "list", "Sequence", Some("py_homogeneous_list")),
    spelling(Kind::Map, "ffi.Map", &["std::map", "std::unordered_map"], "dict", "Mapping", Some("py_homogeneous_dict")),
    spelling(Kind::Tuple, "Tuple", &["std::tuple"], "tuple", "tuple", Some("stuple")),
    spelling(Kind::Variant, "Variant", &["std::variant"], "Union", "Union", None),
    spelling(Kind::List, "ffi.List", &[], "tvm_ffi.List", "Sequence", None),
    spelling(Kind::Dict, "ffi.Dict", &[], "tvm_ffi.Dict", "Mapping", None),
];

// The table is indexed by the enum: each row must sit at its kind's position.
const _: () = {
    let mut i = 0;
    while i < SPELLINGS.len() {
        assert!(SPELLINGS[i].kind as usize == i, "SPELLINGS is out of the order of Kind");
        i += 1;
    }
};

impl Kind {
    /// This kind's spellings.
    pub const fn spelling(self) -> &'static Spelling {
        &SPELLINGS[self as usize]
    }

    /// The `type_schema` key.
    pub const fn key(self) -> &'static str {
        self.spelling().key
    }

    /// The Python name in messages (a head for kinds with type arguments).
    pub const fn python(self) -> &'static str {
        self.spelling().python
    }

    /// The stub annotation (a head for kinds with type arguments).
    pub const fn stub(self) -> &'static str {
        self.spelling().stub
    }

    /// The IREE record name or tag, when the kind has one of its own.
    pub const fn iree(self) -> Option<&'static str> {
        self.spelling().iree
    }

    /// The kind an IREE record name or list tag names (`None` for the tags of
    /// [`iree`](mod@iree), numbers and unknown names).
    pub fn from_iree(tag: &str) -> Option<Kind> {
        SPELLINGS.iter().find(|s| s.iree == Some(tag)).map(|s| s.kind)
    }

    /// The kind a `type_schema` key (or a C++ alias) names; `None` for any other key (an
    /// object class). `ffi.Function` reads as [`Kind::Function`]: whether it has a
    /// signature is for its arguments to say.
    pub fn from_key(key: &str) -> Option<Kind> {
        SPELLINGS.iter().find(|s| s.key == key || s.aliases.contains(&key)).map(|s| s.kind)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_and_alias_reads_back_as_its_kind() {
        for s in &SPELLINGS {
            let expected = if s.kind == Kind::Callable { Kind::Function } else { s.kind };
            assert_eq!(Kind::from_key(s.key), Some(expected), "{}", s.key);
            for alias in s.aliases {
                assert_eq!(Kind::from_key(alias), Some(s.kind), "{alias}");
            }
        }
        assert_eq!(Kind::from_key("mylib.Counter"), None);
    }

    #[test]
    fn no_two_kinds_share_a_python_name() {
        for a in &SPELLINGS {
            for b in SPELLINGS.iter().filter(|b| b.kind != a.kind) {
                assert_ne!(a.python, b.python, "{:?} and {:?}", a.kind, b.kind);
            }
        }
    }
}
