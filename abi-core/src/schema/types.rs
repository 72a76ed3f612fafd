//! [`TypeSchema`]: one tvm-ffi `type_schema` fragment (`{"type":"int"}`,
//! `{"type":"ffi.Array","args":[...]}`) as a tree, read from JSON and printed back as the
//! C++ `TypeTraits` and this project's renderers write it.

use serde_json::{Map, Value};

use super::SchemaError;

/// A type as a `type_schema` names it. Integer and float widths are not part of it (one
/// `int`, one `float`): widths are checked when a value is converted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum TypeSchema {
    /// `Any`: every value.
    #[default]
    Any,
    /// `None`.
    None,
    /// `bool`.
    Bool,
    /// `int`.
    Int,
    /// `float`.
    Float,
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
    /// `ffi.Tensor`.
    Tensor,
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
    /// `Tuple[...]` (derived structs are tuples of their fields).
    Tuple(Vec<TypeSchema>),
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

/// Keys read as one of the built-in variants (C++ aliases included).
fn builtin(key: &str) -> Option<TypeSchema> {
    Some(match key {
        "Any" => TypeSchema::Any,
        "None" => TypeSchema::None,
        "bool" => TypeSchema::Bool,
        "int" => TypeSchema::Int,
        "float" => TypeSchema::Float,
        "ffi.String" | "std::string" | "const char*" => TypeSchema::Str,
        "ffi.Bytes" => TypeSchema::Bytes,
        "void*" => TypeSchema::OpaquePtr,
        "DataType" => TypeSchema::DataType,
        "Device" => TypeSchema::Device,
        "ffi.Shape" => TypeSchema::Shape,
        "ffi.Tensor" => TypeSchema::Tensor,
        "ffi.Error" => TypeSchema::Error,
        "ffi.Object" => TypeSchema::Object,
        _ => return None,
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
        if matches!(key, "ffi.Function" | "std::function") {
            return function(key, map, args);
        }
        let arity = |n: usize| -> Result<(), SchemaError> {
            if args.len() == n {
                Ok(())
            } else {
                Err(SchemaError::new(format!("`{key}` takes {n} type argument(s), found {}", args.len())))
            }
        };
        let mut it = args.iter().cloned().map(Box::new);
        Ok(match key {
            "Optional" | "std::optional" => {
                arity(1)?;
                TypeSchema::Optional(it.next().unwrap_or_default())
            }
            "ffi.Array" | "std::vector" => match args.len() {
                0 => TypeSchema::Array(Box::new(TypeSchema::Any)),
                _ => {
                    arity(1)?;
                    TypeSchema::Array(it.next().unwrap_or_default())
                }
            },
            "ffi.Map" | "std::map" | "std::unordered_map" => match args.len() {
                0 => TypeSchema::Map(Box::new(TypeSchema::Any), Box::new(TypeSchema::Any)),
                _ => {
                    arity(2)?;
                    TypeSchema::Map(it.next().unwrap_or_default(), it.next().unwrap_or_default())
                }
            },
            "Tuple" | "std::tuple" => TypeSchema::Tuple(args),
            "Variant" | "std::variant" => TypeSchema::Variant(args),
            _ => match builtin(key) {
                Some(t) if args.is_empty() => t,
                Some(_) => return Err(SchemaError::new(format!("`{key}` takes no type arguments"))),
                None => TypeSchema::Named { key: key.to_owned(), args },
            },
        })
    }

    /// The JSON text, as this project writes it (`{"type":"int"}`).
    pub fn to_json(&self) -> String {
        let mut out = String::new();
        self.write_json(&mut out);
        out
    }

    fn write_json(&self, out: &mut String) {
        let leaf = |out: &mut String, key: &str| {
            out.push_str("{\"type\":");
            out.push_str(&Value::String(key.to_owned()).to_string());
            out.push('}');
        };
        let with_args = |out: &mut String, key: &str, args: &[&TypeSchema]| {
            out.push_str("{\"type\":");
            out.push_str(&Value::String(key.to_owned()).to_string());
            out.push_str(",\"args\":[");
            for (i, a) in args.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                a.write_json(out);
            }
            out.push_str("]}");
        };
        match self {
            TypeSchema::Function(None) => leaf(out, "ffi.Function"),
            TypeSchema::Function(Some(f)) => f.write_json(out),
            TypeSchema::Optional(t) => with_args(out, "Optional", &[t]),
            TypeSchema::Array(t) => with_args(out, "ffi.Array", &[t]),
            TypeSchema::Map(k, v) => with_args(out, "ffi.Map", &[k, v]),
            TypeSchema::Tuple(items) => with_args(out, "Tuple", &items.iter().collect::<Vec<_>>()),
            TypeSchema::Variant(items) => with_args(out, "Variant", &items.iter().collect::<Vec<_>>()),
            TypeSchema::Named { key, args } if args.is_empty() => leaf(out, key),
            TypeSchema::Named { key, args } => with_args(out, key, &args.iter().collect::<Vec<_>>()),
            other => leaf(out, other.builtin_key()),
        }
    }

    /// The key of a built-in variant without arguments.
    fn builtin_key(&self) -> &'static str {
        match self {
            TypeSchema::Any => "Any",
            TypeSchema::None => "None",
            TypeSchema::Bool => "bool",
            TypeSchema::Int => "int",
            TypeSchema::Float => "float",
            TypeSchema::Str => "ffi.String",
            TypeSchema::Bytes => "ffi.Bytes",
            TypeSchema::OpaquePtr => "void*",
            TypeSchema::DataType => "DataType",
            TypeSchema::Device => "Device",
            TypeSchema::Shape => "ffi.Shape",
            TypeSchema::Tensor => "ffi.Tensor",
            TypeSchema::Error => "ffi.Error",
            TypeSchema::Object => "ffi.Object",
            _ => "ffi.Function",
        }
    }

    /// The type as Python annotations spell it (`int`, `Optional[str]`, `list[int]`,
    /// `Callable[[int], int]`, `tuple[float, float]`); object classes by their type key.
    pub fn python(&self) -> String {
        let list = |items: &[TypeSchema]| items.iter().map(TypeSchema::python).collect::<Vec<_>>().join(", ");
        match self {
            TypeSchema::Any => "Any".into(),
            TypeSchema::None => "None".into(),
            TypeSchema::Bool => "bool".into(),
            TypeSchema::Int => "int".into(),
            TypeSchema::Float => "float".into(),
            TypeSchema::Str => "str".into(),
            TypeSchema::Bytes => "bytes".into(),
            TypeSchema::OpaquePtr => "void*".into(),
            TypeSchema::DataType => "DataType".into(),
            TypeSchema::Device => "Device".into(),
            TypeSchema::Shape => "Shape".into(),
            TypeSchema::Tensor => "Tensor".into(),
            TypeSchema::Error => "Error".into(),
            TypeSchema::Object => "Object".into(),
            TypeSchema::Function(None) => "Function".into(),
            TypeSchema::Function(Some(f)) => format!("Callable[[{}], {}]", list(&f.params), f.ret.python()),
            TypeSchema::Optional(t) => format!("Optional[{}]", t.python()),
            TypeSchema::Array(t) => format!("list[{}]", t.python()),
            TypeSchema::Map(k, v) => format!("dict[{}, {}]", k.python(), v.python()),
            TypeSchema::Tuple(items) => format!("tuple[{}]", list(items)),
            TypeSchema::Variant(items) => format!("Union[{}]", list(items)),
            TypeSchema::Named { key, args } if args.is_empty() => key.clone(),
            TypeSchema::Named { key, args } => format!("{key}[{}]", list(args)),
        }
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
                out.push_str("{\"type\":\"ffi.Function\",\"named_args\":{\"return\":[");
                self.ret.write_json(out);
                out.push_str("],\"params\":[");
                items(out, &self.params);
                out.push_str("]}}");
            }
            FnForm::Flat => {
                out.push_str("{\"type\":\"ffi.Function\",\"args\":[");
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
