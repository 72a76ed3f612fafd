//! [`TypeSchema`]: the one model of a type the readers share. Read from a `type_schema`
//! JSON fragment (`{"type":"int"}`, `{"type":"ffi.Array","args":[...]}`, kinds only), with
//! widths, tensor element types and ranks and struct field names added from the `iree.abi`
//! record beside it, or built from a Rust type's [`TypeDesc`] (everything known); printed
//! back as the C++ `TypeTraits` write it. Keys and Python names come from
//! `abi_shared::vocab`.

use abi_shared::vocab::Kind;
use serde_json::{Map, Value};

use super::SchemaError;
use crate::ffi::{code, DataType};
use crate::reflect::{FnDesc, TypeDesc};

/// A type: its kind (a `type_schema` key) and, where its publisher said, the width of a
/// number, the element type and rank of a tensor and the names of a struct's fields.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum TypeSchema {
    /// `Any`: every value.
    #[default]
    Any,
    /// `None`.
    None,
    /// `bool`.
    Bool,
    /// `int`, with its width when known (`type_schema` publishes none).
    Int(Option<IntWidth>),
    /// `float`, with its width when known.
    Float(Option<FloatWidth>),
    /// `ffi.String` (C++ `std::string` and `const char*` read as this too).
    Str,
    /// `ffi.Bytes`.
    Bytes,
    /// `void*`.
    OpaquePtr,
    /// `DataType`.
    DataType,
    /// `Device`.
    Device,
    /// `ffi.Shape`.
    Shape,
    /// `ffi.Tensor`, with its element type and rank when known.
    Tensor(TensorType),
    /// `ffi.Error`.
    Error,
    /// `ffi.Object`: any object.
    Object,
    /// `ffi.Function`: untyped (`None`) or with a signature.
    Function(Option<Box<FnType>>),
    /// `Optional[T]`.
    Optional(Box<TypeSchema>),
    /// `ffi.Array[T]`.
    Array(Box<TypeSchema>),
    /// `ffi.Map[K, V]`.
    Map(Box<TypeSchema>, Box<TypeSchema>),
    /// `ffi.List[T]`: a mutable `ffi.Array` (each converts to the other).
    List(Box<TypeSchema>),
    /// `ffi.Dict[K, V]`: a mutable `ffi.Map` (each converts to the other).
    Dict(Box<TypeSchema>, Box<TypeSchema>),
    /// `Tuple[...]` (a tuple, or a struct whose field names are not known).
    Tuple(Vec<TypeSchema>),
    /// A struct with named fields, in declaration order: published as the `Tuple` of its
    /// field types, with its name and field names (`abi.struct`, `abi.fields`) or with the
    /// field names only (from `iree.abi`).
    Struct {
        /// The Rust name, when published.
        name: Option<String>,
        /// The fields.
        fields: Vec<(String, TypeSchema)>,
    },
    /// A fieldless enum: published as the `ffi.String` it crosses as, with its name and the
    /// names its variants cross as (`abi.enum`, `abi.names`).
    Enum {
        /// The Rust name.
        name: String,
        /// The names, in declaration order.
        names: Vec<String>,
        /// The variants' Rust identifiers, in the same order (`abi.variants`; the names when
        /// not published).
        variants: Vec<String>,
    },
    /// An enum whose variants hold fields: published as the `Variant` of one `Tuple` per
    /// variant (its name, a string, then its fields), with its name, the names, the
    /// variants' Rust identifiers and their field names (`abi.enum`, `abi.names`,
    /// `abi.variants`, `abi.variant_fields`).
    Tagged {
        /// The Rust name.
        name: String,
        /// The variants, in declaration order.
        variants: Vec<TaggedVariant>,
    },
    /// `Variant[...]`: any one of its members.
    Variant(Vec<TypeSchema>),
    /// Any other key: an object class (`mylib.Counter`) or a type this build does not know,
    /// kept with its arguments so it prints back unchanged.
    Named {
        /// The type key.
        key: String,
        /// Its type arguments.
        args: Vec<TypeSchema>,
    },
}

/// One variant of a [`TypeSchema::Tagged`] enum.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaggedVariant {
    /// The name it crosses as (the tuple's first item).
    pub name: String,
    /// Its Rust identifier.
    pub ident: String,
    /// Its fields, in declaration order (`"0"`, `"1"`... for a tuple variant's).
    pub fields: Vec<(String, TypeSchema)>,
}

impl TaggedVariant {
    /// Whether its fields are positional (`Circle(f64)`): named `"0"`, `"1"`...
    pub fn tuple_like(&self) -> bool {
        !self.fields.is_empty() && self.fields.iter().enumerate().all(|(i, (n, _))| *n == i.to_string())
    }
}

/// The width of an integer: 8, 16, 32 or 64 bits, signed or not.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct IntWidth {
    /// Bits.
    pub bits: u8,
    /// Signedness.
    pub signed: bool,
}

/// The width of a float: 16 (IEEE half or bfloat16), 32 or 64 bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FloatWidth {
    /// Bits.
    pub bits: u8,
    /// bfloat16 rather than IEEE half.
    pub brain: bool,
}

/// What is known of a tensor beyond its kind.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TensorType {
    /// The element type (a [`TypeSchema::Int`], [`TypeSchema::Float`] or
    /// [`TypeSchema::Bool`]); `None` when any dtype is accepted or it was not published.
    pub elem: Option<Box<TypeSchema>>,
    /// The rank; `None` when any rank is accepted or it was not published.
    pub rank: Option<u32>,
    /// Whether a parameter of it also takes the dtypes numpy's `same_kind` casting takes to
    /// `elem`, converting them (`HostTensorAs`, `"cast":"same_kind"`).
    pub cast: bool,
}

impl TensorType {
    /// Reads the element type and rank a typed tensor's `type_schema` carries
    /// (`"dtype":"float32","ndim":2`); absent keys leave them unknown.
    fn read(key: &str, map: &Map<String, Value>) -> Result<TensorType, SchemaError> {
        let elem = match map.get(abi_shared::TENSOR_DTYPE_KEY) {
            None => None,
            Some(Value::String(text)) => Some(
                DataType::parse(text)
                    .and_then(TypeSchema::from_dtype)
                    .ok_or_else(|| SchemaError::new(format!("`{key}` has an unknown dtype `{text}`")))?,
            ),
            Some(other) => return Err(SchemaError::new(format!("the dtype of `{key}` is not a string: {other}"))),
        };
        let rank = match map.get(abi_shared::TENSOR_NDIM_KEY) {
            None => None,
            Some(v) => Some(
                v.as_u64()
                    .and_then(|r| u32::try_from(r).ok())
                    .ok_or_else(|| SchemaError::new(format!("the ndim of `{key}` is not a rank: {v}")))?,
            ),
        };
        let cast = match map.get(abi_shared::TENSOR_CAST_KEY) {
            None => false,
            Some(Value::String(text)) if text == abi_shared::TENSOR_CAST_SAME_KIND => true,
            Some(other) => return Err(SchemaError::new(format!("the cast of `{key}` is not \"same_kind\": {other}"))),
        };
        Ok(TensorType { elem: elem.map(Box::new), rank, cast })
    }

    fn write_json(&self, out: &mut String) {
        out.push_str("{\"type\":");
        out.push_str(&Value::String(Kind::Tensor.key().to_owned()).to_string());
        if let Some(dtype) = self.elem.as_ref().and_then(|e| e.dtype()) {
            out.push_str(&format!(",\"{}\":\"{dtype}\"", abi_shared::TENSOR_DTYPE_KEY));
        }
        if let Some(rank) = self.rank {
            out.push_str(&format!(",\"{}\":{rank}", abi_shared::TENSOR_NDIM_KEY));
        }
        if self.cast {
            out.push_str(&format!(",\"{}\":\"{}\"", abi_shared::TENSOR_CAST_KEY, abi_shared::TENSOR_CAST_SAME_KIND));
        }
        out.push('}');
    }

    /// `Tensor`, `Tensor[f32]`, `Tensor[f32, 2]`: as error messages name a typed tensor.
    fn python(&self) -> String {
        let elem = self.elem.as_ref().map(|e| match e.width() {
            Some(w) => w.to_string(),
            None => e.python(),
        });
        match (elem, self.rank) {
            (None, _) => Kind::Tensor.python().to_owned(),
            (Some(e), None) => format!("{}[{e}]", Kind::Tensor.python()),
            (Some(e), Some(r)) => format!("{}[{e}, {r}]", Kind::Tensor.python()),
        }
    }

    /// Whether a tensor of `source` is one of `self`: element types and ranks agree where
    /// both are known, or, when `self` casts, `source`'s element type casts to its.
    pub fn accepts(&self, source: &TensorType) -> bool {
        let agree = |a: Option<&TypeSchema>, b: Option<&TypeSchema>| match (a, b) {
            (Some(a), Some(b)) if self.cast => match (b.dtype(), a.dtype()) {
                (Some(from), Some(to)) => from.casts_same_kind(to),
                _ => a == b,
            },
            (Some(a), Some(b)) => a == b,
            _ => true,
        };
        agree(self.elem.as_deref(), source.elem.as_deref())
            && (self.rank.is_none() || source.rank.is_none() || self.rank == source.rank)
    }

    /// Whether every argument a parameter of `old` took, `self` takes too: `self` names no
    /// element type or rank `old` did not, and converts whatever `old` did. (A tensor
    /// naming none takes any, so `accepts` does not tell this.)
    pub fn takes_all_of(&self, old: &TensorType) -> bool {
        let elem = match (self.elem.as_deref(), old.elem.as_deref()) {
            (None, _) => true,
            (Some(_), None) => false,
            (Some(new), Some(o)) if !self.cast => new == o && !old.cast,
            (Some(new), Some(o)) => match (o.dtype(), new.dtype()) {
                // Every dtype `old` took casts same_kind to `new`'s: the kinds order makes
                // it enough that `old`'s element type does.
                (Some(from), Some(to)) => from.casts_same_kind(to),
                _ => false,
            },
        };
        elem && (self.rank.is_none() || self.rank == old.rank)
    }
}

/// The width of a number, as `iree.abi` spells it (`i64`, `u8`, `f32`, `bf16`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Width {
    /// An integer's.
    Int(IntWidth),
    /// A float's.
    Float(FloatWidth),
}

impl Width {
    /// Reads `i8`...`i64`, `u8`...`u64`, `f16`, `bf16`, `f32`, `f64`.
    pub fn parse(name: &str) -> Option<Width> {
        let bits = |s: &str| s.parse::<u8>().ok().filter(|b| matches!(b, 8 | 16 | 32 | 64));
        if name == "bf16" {
            return Some(Width::Float(FloatWidth { bits: 16, brain: true }));
        }
        let (head, rest) = name.split_at(name.len().min(1));
        Some(match head {
            "i" => Width::Int(IntWidth { bits: bits(rest)?, signed: true }),
            "u" => Width::Int(IntWidth { bits: bits(rest)?, signed: false }),
            "f" => Width::Float(FloatWidth { bits: bits(rest).filter(|&b| b != 8)?, brain: false }),
            _ => return None,
        })
    }

    /// Whether every value of `inner` is a value of `self`; `None` across kinds. `f16` and
    /// `bf16` each hold values the other lacks; `f32` holds both.
    pub fn holds(self, inner: Width) -> Option<bool> {
        match (self, inner) {
            (Width::Int(o), Width::Int(i)) => {
                let range = |w: IntWidth| match w.signed {
                    true => (-(1i128 << (w.bits - 1)), (1i128 << (w.bits - 1)) - 1),
                    false => (0, (1i128 << w.bits) - 1),
                };
                let ((lo, hi), (ilo, ihi)) = (range(o), range(i));
                Some(lo <= ilo && ihi <= hi)
            }
            (Width::Float(o), Width::Float(i)) => Some(o.bits > i.bits || o == i),
            _ => None,
        }
    }
}

impl core::fmt::Display for Width {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Width::Int(w) => write!(f, "{}{}", if w.signed { 'i' } else { 'u' }, w.bits),
            Width::Float(FloatWidth { brain: true, .. }) => f.write_str("bf16"),
            Width::Float(w) => write!(f, "f{}", w.bits),
        }
    }
}

/// A function's signature inside a schema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FnType {
    /// Parameter types, in order.
    pub params: Vec<TypeSchema>,
    /// The result type.
    pub ret: TypeSchema,
    /// How it was (or will be) written.
    pub form: FnForm,
}

/// The two ways a `type_schema` spells a function's signature.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FnForm {
    /// `{"type":"ffi.Function","named_args":{"return":[R],"params":[P...]}}`: what the C++
    /// export macro and this project write for exported functions.
    Named,
    /// `{"type":"ffi.Function","args":[R, P...]}`: the older flat form, still accepted by
    /// C++ and written by this project for typed callbacks.
    Flat,
}

/// The type of a kind that takes no type arguments.
fn leaf(kind: Kind) -> Option<TypeSchema> {
    Some(match kind {
        Kind::Any => TypeSchema::Any,
        Kind::None => TypeSchema::None,
        Kind::Bool => TypeSchema::Bool,
        Kind::Int => TypeSchema::Int(None),
        Kind::Float => TypeSchema::Float(None),
        Kind::Str => TypeSchema::Str,
        Kind::Bytes => TypeSchema::Bytes,
        Kind::OpaquePtr => TypeSchema::OpaquePtr,
        Kind::DataType => TypeSchema::DataType,
        Kind::Device => TypeSchema::Device,
        Kind::Shape => TypeSchema::Shape,
        Kind::Tensor => TypeSchema::Tensor(TensorType::default()),
        Kind::Error => TypeSchema::Error,
        Kind::Object => TypeSchema::Object,
        Kind::Function
        | Kind::Callable
        | Kind::Optional
        | Kind::Array
        | Kind::Map
        | Kind::Tuple
        | Kind::Variant
        | Kind::List
        | Kind::Dict => return None,
    })
}

impl TypeSchema {
    /// Parses a `type_schema` JSON text.
    pub fn parse(text: &str) -> Result<TypeSchema, SchemaError> {
        let value: Value =
            serde_json::from_str(text).map_err(|e| SchemaError::new(format!("malformed type_schema JSON: {e}")))?;
        TypeSchema::from_value(&value)
    }

    /// Reads a parsed `type_schema` object.
    pub fn from_value(value: &Value) -> Result<TypeSchema, SchemaError> {
        let Value::Object(map) = value else {
            return Err(SchemaError::new(format!("a type_schema is a JSON object, not {value}")));
        };
        let key = match map.get("type") {
            Some(Value::String(s)) if !s.is_empty() => s.as_str(),
            _ => return Err(SchemaError::new(format!("a type_schema needs a nonempty \"type\" string: {value}"))),
        };
        let args = match map.get("args") {
            None => Vec::new(),
            Some(Value::Array(items)) => items.iter().map(TypeSchema::from_value).collect::<Result<_, _>>()?,
            Some(other) => return Err(SchemaError::new(format!("\"args\" of `{key}` is not a list: {other}"))),
        };
        let Some(kind) = Kind::from_key(key) else {
            return Ok(TypeSchema::Named { key: key.to_owned(), args });
        };
        let arity = |n: usize| -> Result<(), SchemaError> {
            if args.len() == n {
                Ok(())
            } else {
                Err(SchemaError::new(format!("`{key}` takes {n} type argument(s), found {}", args.len())))
            }
        };
        let mut it = args.iter().cloned().map(Box::new);
        Ok(match kind {
            Kind::Function | Kind::Callable => return function(key, map, args),
            Kind::Optional => {
                arity(1)?;
                TypeSchema::Optional(it.next().unwrap_or_default())
            }
            Kind::Array | Kind::List => {
                let elem = match args.len() {
                    0 => Box::new(TypeSchema::Any),
                    _ => {
                        arity(1)?;
                        it.next().unwrap_or_default()
                    }
                };
                if kind == Kind::List {
                    TypeSchema::List(elem)
                } else {
                    TypeSchema::Array(elem)
                }
            }
            Kind::Map | Kind::Dict => {
                let (k, v) = match args.len() {
                    0 => (Box::new(TypeSchema::Any), Box::new(TypeSchema::Any)),
                    _ => {
                        arity(2)?;
                        (it.next().unwrap_or_default(), it.next().unwrap_or_default())
                    }
                };
                if kind == Kind::Dict {
                    TypeSchema::Dict(k, v)
                } else {
                    TypeSchema::Map(k, v)
                }
            }
            Kind::Tuple => read_struct(key, map, args)?,
            Kind::Str if args.is_empty() => read_enum(key, map)?,
            Kind::Variant => read_tagged(key, map, args)?,
            Kind::Tensor if args.is_empty() => TypeSchema::Tensor(TensorType::read(key, map)?),
            other => match leaf(other) {
                Some(t) if args.is_empty() => t,
                _ => return Err(SchemaError::new(format!("`{key}` takes no type arguments"))),
            },
        })
    }

    /// The kind (`None` for an object class or an unknown key, spelled by its key).
    pub fn kind(&self) -> Option<Kind> {
        Some(match self {
            TypeSchema::Any => Kind::Any,
            TypeSchema::None => Kind::None,
            TypeSchema::Bool => Kind::Bool,
            TypeSchema::Int(_) => Kind::Int,
            TypeSchema::Float(_) => Kind::Float,
            TypeSchema::Str | TypeSchema::Enum { .. } => Kind::Str,
            TypeSchema::Bytes => Kind::Bytes,
            TypeSchema::OpaquePtr => Kind::OpaquePtr,
            TypeSchema::DataType => Kind::DataType,
            TypeSchema::Device => Kind::Device,
            TypeSchema::Shape => Kind::Shape,
            TypeSchema::Tensor(_) => Kind::Tensor,
            TypeSchema::Error => Kind::Error,
            TypeSchema::Object => Kind::Object,
            TypeSchema::Function(None) => Kind::Function,
            TypeSchema::Function(Some(_)) => Kind::Callable,
            TypeSchema::Optional(_) => Kind::Optional,
            TypeSchema::Array(_) => Kind::Array,
            TypeSchema::Map(..) => Kind::Map,
            TypeSchema::List(_) => Kind::List,
            TypeSchema::Dict(..) => Kind::Dict,
            TypeSchema::Tuple(_) | TypeSchema::Struct { .. } => Kind::Tuple,
            TypeSchema::Variant(_) | TypeSchema::Tagged { .. } => Kind::Variant,
            TypeSchema::Named { .. } => return None,
        })
    }

    /// The type arguments, as `type_schema` lists them (a struct's field types; an enum
    /// with data's field types, every variant's in turn).
    pub fn args(&self) -> Vec<&TypeSchema> {
        match self {
            TypeSchema::Optional(t) | TypeSchema::Array(t) | TypeSchema::List(t) => vec![t],
            TypeSchema::Map(k, v) | TypeSchema::Dict(k, v) => vec![k, v],
            TypeSchema::Tuple(items) | TypeSchema::Variant(items) | TypeSchema::Named { args: items, .. } => {
                items.iter().collect()
            }
            TypeSchema::Struct { fields, .. } => fields.iter().map(|(_, t)| t).collect(),
            TypeSchema::Tagged { variants, .. } => {
                variants.iter().flat_map(|v| v.fields.iter().map(|(_, t)| t)).collect()
            }
            _ => Vec::new(),
        }
    }

    /// Calls `f` on this type and on every type inside it, outermost first: type arguments,
    /// struct fields, a typed function's parameters and result.
    pub fn walk<'a>(&'a self, f: &mut impl FnMut(&'a TypeSchema)) {
        f(self);
        if let TypeSchema::Function(Some(sig)) = self {
            sig.params.iter().chain([&sig.ret]).for_each(|t| t.walk(f));
        }
        for t in self.args() {
            t.walk(f);
        }
    }

    /// Whether it is written with a list of type arguments (`Tuple[]` has an empty one).
    fn has_arg_list(&self) -> bool {
        !self.args().is_empty()
            || matches!(self, TypeSchema::Tuple(_) | TypeSchema::Struct { .. } | TypeSchema::Variant(_))
    }

    /// The element type of a tensor of `dtype` (one lane of an integer, float or bool).
    pub fn from_dtype(dtype: DataType) -> Option<TypeSchema> {
        if dtype.lanes != 1 {
            return None;
        }
        let int = |signed| TypeSchema::Int(Some(IntWidth { bits: dtype.bits, signed }));
        Some(match (dtype.code, dtype.bits) {
            (code::INT, 8 | 16 | 32 | 64) => int(true),
            (code::UINT, 8 | 16 | 32 | 64) => int(false),
            (code::FLOAT, 16 | 32 | 64) => TypeSchema::Float(Some(FloatWidth { bits: dtype.bits, brain: false })),
            (code::BFLOAT, 16) => TypeSchema::Float(Some(FloatWidth { bits: 16, brain: true })),
            (code::BOOL, 8) => TypeSchema::Bool,
            _ => return None,
        })
    }

    /// The DLPack data type of a tensor element type with a known width (or `bool`).
    pub fn dtype(&self) -> Option<DataType> {
        Some(match (self, self.width()) {
            (TypeSchema::Bool, _) => DataType::new(code::BOOL, 8),
            (_, Some(Width::Int(w))) => DataType::new(if w.signed { code::INT } else { code::UINT }, w.bits),
            (_, Some(Width::Float(w))) => DataType::new(if w.brain { code::BFLOAT } else { code::FLOAT }, w.bits),
            (_, None) => return None,
        })
    }

    /// The width of a number whose width is known.
    pub fn width(&self) -> Option<Width> {
        match self {
            TypeSchema::Int(w) => w.map(Width::Int),
            TypeSchema::Float(w) => w.map(Width::Float),
            _ => None,
        }
    }

    /// The JSON text, as this project writes it (`{"type":"int"}`).
    pub fn to_json(&self) -> String {
        let mut out = String::new();
        self.write_json(&mut out);
        out
    }

    fn write_json(&self, out: &mut String) {
        let key = match (self, self.kind()) {
            (TypeSchema::Function(Some(f)), _) => return f.write_json(out),
            (TypeSchema::Tagged { name, variants }, _) => return write_tagged(name, variants, out),
            (TypeSchema::Tensor(t), _) => return t.write_json(out),
            (TypeSchema::Named { key, .. }, _) => key.as_str(),
            (_, Some(kind)) => kind.key(),
            (_, None) => unreachable!("only Named has no kind"),
        };
        out.push_str("{\"type\":");
        out.push_str(&Value::String(key.to_owned()).to_string());
        if self.has_arg_list() {
            out.push_str(",\"args\":[");
            for (i, a) in self.args().iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                a.write_json(out);
            }
            out.push(']');
        }
        if let TypeSchema::Enum { name, names, variants } = self {
            let list = |items: &[String]| Value::Array(items.iter().map(|n| Value::String(n.clone())).collect());
            out.push_str(&format!(
                ",\"{}\":{},\"{}\":{},\"{}\":{}",
                abi_shared::ENUM_NAME_KEY,
                Value::String(name.clone()),
                abi_shared::ENUM_NAMES_KEY,
                list(names),
                abi_shared::ENUM_VARIANTS_KEY,
                list(variants)
            ));
        }
        if let TypeSchema::Struct { name: Some(name), fields } = self {
            let names: Vec<Value> = fields.iter().map(|(n, _)| Value::String(n.clone())).collect();
            out.push_str(&format!(
                ",\"{}\":{},\"{}\":{}",
                abi_shared::STRUCT_NAME_KEY,
                Value::String(name.clone()),
                abi_shared::STRUCT_FIELDS_KEY,
                Value::Array(names)
            ));
        }
        out.push('}');
    }

    /// The type as Python annotations spell it (`int`, `Optional[str]`, `list[int]`,
    /// `Callable[[int], int]`, `tuple[float, float]`); object classes by their type key, and
    /// a named struct by its name (`Point`), as error messages and the package name it.
    pub fn python(&self) -> String {
        self.python_as(true)
    }

    /// [`TypeSchema::python`] with each struct spelled as the tuple of its fields' types
    /// (`tuple[float, float]`, how it crosses) and each fieldless enum as the `Literal` of
    /// its names (`Literal["nearest", "cubic"]`), for reports about layouts, where two
    /// versions of one type share its name.
    pub fn python_layout(&self) -> String {
        self.python_as(false)
    }

    fn python_as(&self, struct_names: bool) -> String {
        let list =
            |items: &[&TypeSchema]| items.iter().map(|t| t.python_as(struct_names)).collect::<Vec<_>>().join(", ");
        match (self, self.kind()) {
            (TypeSchema::Function(Some(f)), _) => {
                format!(
                    "{}[[{}], {}]",
                    Kind::Callable.python(),
                    list(&f.params.iter().collect::<Vec<_>>()),
                    f.ret.python_as(struct_names)
                )
            }
            (TypeSchema::Tensor(t), _) => t.python(),
            (TypeSchema::Struct { name: Some(name), .. }, _) if struct_names => name.clone(),
            (TypeSchema::Enum { name, .. } | TypeSchema::Tagged { name, .. }, _) if struct_names => name.clone(),
            (TypeSchema::Enum { names, .. }, _) => {
                let names: Vec<String> = names.iter().map(|n| Value::String(n.clone()).to_string()).collect();
                format!("Literal[{}]", names.join(", "))
            }
            (TypeSchema::Tagged { variants, .. }, _) => {
                let tuples: Vec<String> = variants
                    .iter()
                    .map(|v| {
                        let tag = format!("Literal[{}]", Value::String(v.name.clone()));
                        let fields = v.fields.iter().map(|(_, t)| t.python_as(struct_names));
                        format!(
                            "{}[{}]",
                            Kind::Tuple.python(),
                            [tag].into_iter().chain(fields).collect::<Vec<_>>().join(", ")
                        )
                    })
                    .collect();
                format!("{}[{}]", Kind::Variant.python(), tuples.join(", "))
            }
            (TypeSchema::Named { key, args }, _) if args.is_empty() => key.clone(),
            (TypeSchema::Named { key, .. }, _) => format!("{key}[{}]", list(&self.args())),
            (_, Some(kind)) if self.has_arg_list() => format!("{}[{}]", kind.python(), list(&self.args())),
            (_, Some(kind)) => kind.python().to_owned(),
            (_, None) => unreachable!("only Named has no kind"),
        }
    }
}

/// An `ffi.String`, or the fieldless enum it is when `abi.enum` and `abi.names` name it and
/// its variants' names (distinct strings), with `abi.variants` their Rust identifiers.
fn read_enum(key: &str, map: &Map<String, Value>) -> Result<TypeSchema, SchemaError> {
    let (name, names) = match (map.get(abi_shared::ENUM_NAME_KEY), map.get(abi_shared::ENUM_NAMES_KEY)) {
        (None, None) => return Ok(TypeSchema::Str),
        (Some(Value::String(name)), Some(names)) => (name, names),
        _ => {
            return Err(SchemaError::new(format!(
                "`{key}` names an enum with a string `{}` and a list `{}`, or neither",
                abi_shared::ENUM_NAME_KEY,
                abi_shared::ENUM_NAMES_KEY
            )))
        }
    };
    let strings = |v: &Value| string_list(v).filter(|items| distinct(items));
    let names = strings(names)
        .ok_or_else(|| SchemaError::new(format!("enum `{name}` lists names that are not distinct strings")))?;
    let variants = match map.get(abi_shared::ENUM_VARIANTS_KEY) {
        None => names.clone(),
        Some(v) => strings(v).filter(|v| v.len() == names.len()).ok_or_else(|| {
            SchemaError::new(format!("enum `{name}` lists variants that are not one distinct string per name"))
        })?,
    };
    Ok(TypeSchema::Enum { name: name.clone(), names, variants })
}

/// A JSON list of strings.
fn string_list(v: &Value) -> Option<Vec<String>> {
    v.as_array()?.iter().map(|n| n.as_str().map(str::to_owned)).collect()
}

/// Whether no two of `items` are equal.
fn distinct(items: &[String]) -> bool {
    (1..items.len()).all(|i| !items[..i].contains(&items[i]))
}

/// A `Variant`, or the enum with data it is when `abi.enum` names it: one `Tuple` member
/// per variant whose first item is a string, with `abi.names`, `abi.variants` and
/// `abi.variant_fields` (one list of field names per variant, one per remaining item).
fn read_tagged(key: &str, map: &Map<String, Value>, args: Vec<TypeSchema>) -> Result<TypeSchema, SchemaError> {
    let Some(name) = map.get(abi_shared::ENUM_NAME_KEY) else {
        return Ok(TypeSchema::Variant(args));
    };
    let bad = |what: &str| SchemaError::new(format!("`{key}` names an enum with data, but {what}"));
    let name = name.as_str().ok_or_else(|| bad(&format!("`{}` is not a string", abi_shared::ENUM_NAME_KEY)))?;
    let list =
        |k: &str| map.get(k).and_then(string_list).ok_or_else(|| bad(&format!("`{k}` is not a list of strings")));
    let (names, idents) = (list(abi_shared::ENUM_NAMES_KEY)?, list(abi_shared::ENUM_VARIANTS_KEY)?);
    let fields = map
        .get(abi_shared::TAGGED_FIELDS_KEY)
        .and_then(Value::as_array)
        .and_then(|lists| lists.iter().map(string_list).collect::<Option<Vec<_>>>())
        .ok_or_else(|| bad(&format!("`{}` is not a list of lists of strings", abi_shared::TAGGED_FIELDS_KEY)))?;
    if names.len() != args.len() || idents.len() != args.len() || fields.len() != args.len() {
        return Err(bad("its names, variants and field lists are not one per member"));
    }
    if !distinct(&names) {
        return Err(bad("its names are not distinct"));
    }
    let variants = args
        .into_iter()
        .zip(names.into_iter().zip(idents).zip(fields))
        .map(|(member, ((name, ident), field_names))| {
            let items = match member {
                TypeSchema::Tuple(items) if items.first() == Some(&TypeSchema::Str) => items,
                _ => return Err(bad(&format!("variant `{ident}` is not a tuple starting with a string"))),
            };
            if items.len() != field_names.len() + 1 {
                return Err(bad(&format!(
                    "variant `{ident}` names {} fields for {} items",
                    field_names.len(),
                    items.len() - 1
                )));
            }
            Ok(TaggedVariant { name, ident, fields: field_names.into_iter().zip(items.into_iter().skip(1)).collect() })
        })
        .collect::<Result<_, _>>()?;
    Ok(TypeSchema::Tagged { name: name.to_owned(), variants })
}

/// An enum with data's `type_schema` ([`read_tagged`] reads it back).
fn write_tagged(name: &str, variants: &[TaggedVariant], out: &mut String) {
    let quoted = |s: &str| Value::String(s.to_owned()).to_string();
    let list = |items: Vec<String>| format!("[{}]", items.join(","));
    out.push_str(&format!("{{\"type\":{},\"args\":[", quoted(Kind::Variant.key())));
    for (i, v) in variants.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&format!("{{\"type\":{},\"args\":[", quoted(Kind::Tuple.key())));
        TypeSchema::Str.write_json(out);
        for (_, t) in &v.fields {
            out.push(',');
            t.write_json(out);
        }
        out.push_str("]}");
    }
    let names = list(variants.iter().map(|v| quoted(&v.name)).collect());
    let idents = list(variants.iter().map(|v| quoted(&v.ident)).collect());
    let fields = list(variants.iter().map(|v| list(v.fields.iter().map(|(n, _)| quoted(n)).collect())).collect());
    out.push_str(&format!(
        "],{}:{},{}:{names},{}:{idents},{}:{fields}}}",
        quoted(abi_shared::ENUM_NAME_KEY),
        quoted(name),
        quoted(abi_shared::ENUM_NAMES_KEY),
        quoted(abi_shared::ENUM_VARIANTS_KEY),
        quoted(abi_shared::TAGGED_FIELDS_KEY),
    ));
}

/// A `Tuple`, or the named struct it is when `abi.struct` and `abi.fields` name it and its
/// fields (one name per item).
fn read_struct(key: &str, map: &Map<String, Value>, args: Vec<TypeSchema>) -> Result<TypeSchema, SchemaError> {
    let (name, fields) = (map.get(abi_shared::STRUCT_NAME_KEY), map.get(abi_shared::STRUCT_FIELDS_KEY));
    let (name, fields) = match (name, fields) {
        (None, None) => return Ok(TypeSchema::Tuple(args)),
        (Some(Value::String(name)), Some(Value::Array(fields))) => (name, fields),
        _ => {
            return Err(SchemaError::new(format!(
                "`{key}` names a struct with a string `{}` and a list `{}`, or neither",
                abi_shared::STRUCT_NAME_KEY,
                abi_shared::STRUCT_FIELDS_KEY
            )))
        }
    };
    let names: Option<Vec<String>> = fields.iter().map(|f| f.as_str().map(str::to_owned)).collect();
    match names {
        Some(names) if names.len() == args.len() => {
            Ok(TypeSchema::Struct { name: Some(name.clone()), fields: names.into_iter().zip(args).collect() })
        }
        _ => Err(SchemaError::new(format!(
            "struct `{name}` lists {} field names for {} items",
            fields.len(),
            args.len()
        ))),
    }
}

fn function(key: &str, map: &Map<String, Value>, args: Vec<TypeSchema>) -> Result<TypeSchema, SchemaError> {
    if let Some(named) = map.get("named_args") {
        if !args.is_empty() {
            return Err(SchemaError::new(format!("`{key}` has both \"args\" and \"named_args\"")));
        }
        let Value::Object(groups) = named else {
            return Err(SchemaError::new(format!("\"named_args\" of `{key}` is not an object: {named}")));
        };
        let group = |name: &str| -> Result<Vec<TypeSchema>, SchemaError> {
            match groups.get(name) {
                None => Ok(Vec::new()),
                Some(Value::Array(items)) => items.iter().map(TypeSchema::from_value).collect(),
                Some(other) => {
                    Err(SchemaError::new(format!("\"named_args\".{name} of `{key}` is not a list: {other}")))
                }
            }
        };
        let mut ret = group("return")?;
        if ret.len() != 1 {
            return Err(SchemaError::new(format!("\"named_args\".return of `{key}` must hold exactly one type")));
        }
        let params = group("params")?;
        return Ok(TypeSchema::Function(Some(Box::new(FnType { params, ret: ret.remove(0), form: FnForm::Named }))));
    }
    let mut args = args.into_iter();
    Ok(match args.next() {
        None => TypeSchema::Function(None),
        Some(ret) => TypeSchema::Function(Some(Box::new(FnType { params: args.collect(), ret, form: FnForm::Flat }))),
    })
}

impl FnType {
    /// Parses a function `type_schema` JSON text (either form).
    pub fn parse(text: &str) -> Result<FnType, SchemaError> {
        match TypeSchema::parse(text)? {
            TypeSchema::Function(Some(f)) => Ok(*f),
            TypeSchema::Function(None) => Err(SchemaError::new("the function type_schema has no signature")),
            other => Err(SchemaError::new(format!("a function type_schema names `{}`", other.python()))),
        }
    }

    /// The JSON text in its form.
    pub fn to_json(&self) -> String {
        let mut out = String::new();
        self.write_json(&mut out);
        out
    }

    fn write_json(&self, out: &mut String) {
        let items = |out: &mut String, items: &[TypeSchema]| {
            for (i, t) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                t.write_json(out);
            }
        };
        match self.form {
            FnForm::Named => {
                out.push_str("{\"type\":\"");
                out.push_str(Kind::Callable.key());
                out.push_str("\",\"named_args\":{\"return\":[");
                self.ret.write_json(out);
                out.push_str("],\"params\":[");
                items(out, &self.params);
                out.push_str("]}}");
            }
            FnForm::Flat => {
                out.push_str("{\"type\":\"");
                out.push_str(Kind::Callable.key());
                out.push_str("\",\"args\":[");
                self.ret.write_json(out);
                if !self.params.is_empty() {
                    out.push(',');
                }
                items(out, &self.params);
                out.push_str("]}");
            }
        }
    }
}

impl From<&TypeDesc> for TypeSchema {
    /// The model of a Rust type's description: everything it knows (widths, element type
    /// and rank, field names), which `type_schema` plus `iree.abi` also publish.
    fn from(desc: &TypeDesc) -> TypeSchema {
        let boxed = |t: &TypeDesc| Box::new(TypeSchema::from(t));
        let all = |items: &[&TypeDesc]| items.iter().map(|t| TypeSchema::from(*t)).collect();
        match desc {
            TypeDesc::Int { bits, signed } => TypeSchema::Int(Some(IntWidth { bits: *bits, signed: *signed })),
            TypeDesc::Float { bits, brain } => TypeSchema::Float(Some(FloatWidth { bits: *bits, brain: *brain })),
            TypeDesc::Tensor { elem, rank, cast } => {
                TypeSchema::Tensor(TensorType { elem: elem.map(boxed), rank: *rank, cast: *cast })
            }
            TypeDesc::Function => TypeSchema::Function(None),
            TypeDesc::Callable { params, ret } => TypeSchema::Function(Some(Box::new(FnType {
                params: all(params),
                ret: (*ret).into(),
                form: FnForm::Flat,
            }))),
            TypeDesc::Optional(t) => TypeSchema::Optional(boxed(t)),
            TypeDesc::List(t) => TypeSchema::Array(boxed(t)),
            TypeDesc::Map(k, v) => TypeSchema::Map(boxed(k), boxed(v)),
            TypeDesc::FfiList(t) => TypeSchema::List(boxed(t)),
            TypeDesc::FfiDict(k, v) => TypeSchema::Dict(boxed(k), boxed(v)),
            TypeDesc::Tuple(items) => TypeSchema::Tuple(all(items)),
            TypeDesc::Variant(items) => TypeSchema::Variant(all(items)),
            TypeDesc::Struct(s) if s.tuple_like => TypeSchema::Tuple(s.fields.iter().map(|f| f.ty.into()).collect()),
            TypeDesc::Struct(s) => TypeSchema::Struct {
                name: Some(s.name.to_owned()),
                fields: s.fields.iter().map(|f| (f.name.to_owned(), f.ty.into())).collect(),
            },
            TypeDesc::Class { key } => TypeSchema::Named { key: (*key).to_owned(), args: Vec::new() },
            TypeDesc::Enum(e) => TypeSchema::Enum {
                name: e.name.to_owned(),
                names: e.names.iter().map(|n| (*n).to_owned()).collect(),
                variants: e.variants.iter().map(|n| (*n).to_owned()).collect(),
            },
            TypeDesc::Tagged(t) => TypeSchema::Tagged {
                name: t.tags.name.to_owned(),
                variants: t
                    .variants
                    .iter()
                    .enumerate()
                    .map(|(i, v)| TaggedVariant {
                        name: t.tags.names[i].to_owned(),
                        ident: t.tags.variants[i].to_owned(),
                        fields: v.fields.iter().map(|f| (f.name.to_owned(), f.ty.into())).collect(),
                    })
                    .collect(),
            },
            TypeDesc::None => TypeSchema::None,
            TypeDesc::Bool => TypeSchema::Bool,
            TypeDesc::Str => TypeSchema::Str,
            TypeDesc::Bytes => TypeSchema::Bytes,
            TypeDesc::Any => TypeSchema::Any,
            TypeDesc::OpaquePtr => TypeSchema::OpaquePtr,
            TypeDesc::DataType => TypeSchema::DataType,
            TypeDesc::Device => TypeSchema::Device,
            TypeDesc::Shape => TypeSchema::Shape,
            TypeDesc::Error => TypeSchema::Error,
            TypeDesc::Object => TypeSchema::Object,
        }
    }
}

impl From<&FnDesc> for FnType {
    /// The signature a function's description publishes: one parameter per argument slot
    /// (an expanded struct's leaves, depth-first), in the named form.
    fn from(desc: &FnDesc) -> FnType {
        let params = desc.slots().into_iter().map(|(_, t)| TypeSchema::from(t)).collect();
        FnType { params, ret: desc.ret.into(), form: FnForm::Named }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_names_structs_and_python_layout_spells_their_fields() {
        let point = r#"{"type":"Tuple","args":[{"type":"float"},{"type":"float"}],"abi.struct":"Point","abi.fields":["x","y"]}"#;
        let t = TypeSchema::parse(&format!(r#"{{"type":"ffi.Array","args":[{point}]}}"#)).unwrap();
        assert_eq!(t.python(), "list[Point]");
        assert_eq!(t.python_layout(), "list[tuple[float, float]]");
        let unnamed = TypeSchema::parse(r#"{"type":"Tuple","args":[{"type":"int"}]}"#).unwrap();
        assert_eq!((unnamed.python(), unnamed.python_layout()), ("tuple[int]".to_owned(), "tuple[int]".to_owned()));
    }
}
