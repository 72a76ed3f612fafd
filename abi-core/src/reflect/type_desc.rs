//! The description of every ABI type, kept apart from what reads it so that the value
//! types (which name a [`TypeDesc`] in their errors) depend on it alone.

/// The description of one ABI type.
#[derive(Debug)]
pub enum TypeDesc {
    /// `None` / `()`.
    None,
    /// `bool`.
    Bool,
    /// A sized integer.
    Int {
        /// Width in bits.
        bits: u8,
        /// Signedness.
        signed: bool,
    },
    /// A float: 16 (`f16`), 32, 64 bits, or `bf16`.
    Float {
        /// Width in bits.
        bits: u8,
        /// `bf16` rather than IEEE half.
        brain: bool,
    },
    /// A string.
    Str,
    /// A byte string.
    Bytes,
    /// Any value.
    Any,
    /// An opaque pointer.
    OpaquePtr,
    /// `DLDataType`.
    DataType,
    /// `DLDevice`.
    Device,
    /// A shape object.
    Shape,
    /// An untyped function object.
    Function,
    /// A typed function object.
    Callable {
        /// Parameter types.
        params: &'static [&'static TypeDesc],
        /// Result type.
        ret: &'static TypeDesc,
    },
    /// An Error object.
    Error,
    /// Any object.
    Object,
    /// A tensor with an optional element type and rank.
    Tensor {
        /// Element type; `None` when any dtype is accepted.
        elem: Option<&'static TypeDesc>,
        /// Rank; `None` when unknown.
        rank: Option<u32>,
        /// Also takes the dtypes numpy's `same_kind` casting takes to `elem`, converted
        /// ([`HostTensorAs`](crate::HostTensorAs)).
        cast: bool,
    },
    /// `Option<T>`.
    Optional(&'static TypeDesc),
    /// A list of unknown length (`Vec<T>`, arrays).
    List(&'static TypeDesc),
    /// A fixed-arity tuple.
    Tuple(&'static [&'static TypeDesc]),
    /// A map from keys to values.
    Map(&'static TypeDesc, &'static TypeDesc),
    /// Any one of its members, tried in order ([`Variant2`](crate::Variant2)...).
    Variant(&'static [&'static TypeDesc]),
    /// A mutable `ffi.List` ([`List<T>`](crate::List)).
    FfiList(&'static TypeDesc),
    /// A mutable `ffi.Dict` ([`Dict<K, V>`](crate::Dict)).
    FfiDict(&'static TypeDesc, &'static TypeDesc),
    /// A derived struct.
    Struct(&'static StructDesc),
    /// A derived fieldless enum: crosses as the name of its variant, a string.
    Enum(&'static EnumDesc),
    /// A derived enum whose variants hold fields: crosses as a tagged tuple, the variant's
    /// name then its fields in declaration order.
    Tagged(&'static TaggedDesc),
    /// An object type deriving `abi_core::Object`, named by its unique type key.
    Class {
        /// The type key, e.g. `mylib.Counter`.
        key: &'static str,
    },
}

/// A derived struct: its name and fields in declaration order.
#[derive(Debug)]
pub struct StructDesc {
    /// The Rust name.
    pub name: &'static str,
    /// Fields in declaration order.
    pub fields: &'static [FieldDesc],
    /// A tuple struct (`stuple`) rather than a named one (`sdict`).
    pub tuple_like: bool,
}

/// A derived fieldless enum: its Rust name, and its variants' names (after its case rule
/// and renames) and Rust identifiers, in declaration order.
#[derive(Debug)]
pub struct EnumDesc {
    /// The Rust name.
    pub name: &'static str,
    /// The names the variants cross as, in declaration order.
    pub names: &'static [&'static str],
    /// The variants' Rust identifiers, in the same order (what Python's enum members and
    /// generated Rust enums are called).
    pub variants: &'static [&'static str],
}

/// A derived enum whose variants hold fields: its names as an [`EnumDesc`], and each
/// variant's fields as a [`StructDesc`] named by the variant's Rust identifier, in
/// declaration order. A value crosses as the tuple (an Array) of its variant's name and then
/// that variant's fields: `Shape::Circle { r: 2.0 }` is `("Circle", 2.0)`.
#[derive(Debug)]
pub struct TaggedDesc {
    /// The enum's name, and its variants' names and identifiers.
    pub tags: EnumDesc,
    /// Each variant's fields, in the same order as the names.
    pub variants: &'static [StructDesc],
}

impl EnumDesc {
    /// The position of `name` among [`EnumDesc::names`].
    pub const fn position(&self, name: &str) -> Option<usize> {
        let mut i = 0;
        while i < self.names.len() {
            if str_eq(self.names[i], name) {
                return Some(i);
            }
            i += 1;
        }
        None
    }
}

/// `a == b` in const evaluation.
pub(crate) const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// One field of a [`StructDesc`].
#[derive(Debug)]
pub struct FieldDesc {
    /// The reflected key (the field name or its rename); `"0"`, `"1"`... for tuple structs.
    pub name: &'static str,
    /// The field type.
    pub ty: &'static TypeDesc,
}
