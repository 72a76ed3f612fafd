//! The IREE function-ABI record (`{"a":[...],"r":[...],"v":1}`, docs/ABI.md section 6)
//! as a tree: argument names and types, results, and the struct field names the
//! `type_schema` does not carry.

use serde_json::Value;

use abi_shared::vocab::{iree, Kind};

use super::types::{FnType, TensorType, TypeSchema, Width};
use super::SchemaError;

/// One IREE type record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IreeType {
    /// `null` (no value).
    Null,
    /// A named scalar or leaf: `"i64"`, `"u8"`, `"f32"`, `"bf16"`, `"i1"`, `"str"`,
    /// `"bytes"`, `"unknown"`.
    Scalar(String),
    /// `["ndarray", elem, rank, dims...]`; `rank` is `None` when unknown (`null`), and
    /// each dimension is `None` when dynamic.
    NdArray {
        /// The element type (`"unknown"` when any dtype is accepted).
        elem: Box<IreeType>,
        /// The dimensions, when the rank is known.
        dims: Option<Vec<Option<u64>>>,
    },
    /// `["optional", T]`.
    Optional(Box<IreeType>),
    /// `["py_homogeneous_list", T]`.
    List(Box<IreeType>),
    /// `["py_homogeneous_dict", K, V]`.
    Dict(Box<IreeType>, Box<IreeType>),
    /// `["stuple", T...]`: a tuple or tuple struct.
    Tuple(Vec<IreeType>),
    /// `["sdict", [name, T]...]`: a struct with named fields, in declaration order.
    Struct(Vec<(String, IreeType)>),
    /// `["object", key]`: an object class.
    Object(String),
}

/// One argument of an [`IreeFn`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IreeArg {
    /// The name, when written as `["named", name, T]`.
    pub name: Option<String>,
    /// The type.
    pub ty: IreeType,
}

/// A whole IREE function-ABI record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IreeFn {
    /// Arguments (`"a"`).
    pub args: Vec<IreeArg>,
    /// Results (`"r"`).
    pub results: Vec<IreeType>,
    /// The record version (`"v"`).
    pub version: u64,
}

/// The record tag of a kind that has one.
fn tag(kind: Kind) -> &'static str {
    kind.iree().unwrap_or(iree::UNKNOWN)
}

fn bad(what: impl core::fmt::Display) -> SchemaError {
    SchemaError::new(format!("malformed iree.abi record: {what}"))
}

impl IreeType {
    /// Reads one type record.
    pub fn from_value(value: &Value) -> Result<IreeType, SchemaError> {
        let items = match value {
            Value::Null => return Ok(IreeType::Null),
            Value::String(s) => return Ok(IreeType::Scalar(s.clone())),
            Value::Array(items) => items,
            other => return Err(bad(format!("a type is a string, a list or null, not {other}"))),
        };
        let (tag, rest) = match items.split_first() {
            Some((Value::String(tag), rest)) => (tag.as_str(), rest),
            _ => return Err(bad(format!("a list type starts with its tag: {value}"))),
        };
        let one = |i: usize| rest.get(i).ok_or_else(|| bad(format!("`{tag}` is missing an argument: {value}")));
        let ty = |i: usize| one(i).and_then(IreeType::from_value).map(Box::new);
        let fields = |rest: &[Value]| -> Result<Vec<(String, IreeType)>, SchemaError> {
            rest.iter()
                .map(|field| match field {
                    Value::Array(pair) if pair.len() == 2 => match &pair[0] {
                        Value::String(name) => Ok((name.clone(), IreeType::from_value(&pair[1])?)),
                        other => Err(bad(format!("a field name is a string, not {other}"))),
                    },
                    other => Err(bad(format!("an {} field is [name, type], not {other}", iree::STRUCT))),
                })
                .collect()
        };
        if tag == iree::STRUCT {
            return Ok(IreeType::Struct(fields(rest)?));
        }
        if tag == iree::OBJECT {
            return match one(0)? {
                Value::String(key) => Ok(IreeType::Object(key.clone())),
                other => Err(bad(format!("an object key is a string, not {other}"))),
            };
        }
        Ok(match Kind::from_iree(tag) {
            Some(Kind::Tensor) => {
                let elem = ty(0)?;
                let dims = match one(1)? {
                    Value::Null => None,
                    Value::Number(n) => {
                        let rank = n.as_u64().ok_or_else(|| bad(format!("rank {n}")))? as usize;
                        let dims = rest.get(2..).unwrap_or_default();
                        if dims.len() != rank {
                            return Err(bad(format!("rank {rank} with {} dimensions: {value}", dims.len())));
                        }
                        Some(dims.iter().map(|d| d.as_u64()).collect())
                    }
                    other => return Err(bad(format!("rank {other}"))),
                };
                IreeType::NdArray { elem, dims }
            }
            Some(Kind::Optional) => IreeType::Optional(ty(0)?),
            Some(Kind::Array) => IreeType::List(ty(0)?),
            Some(Kind::Map) => IreeType::Dict(ty(0)?, ty(1)?),
            Some(Kind::Tuple) => IreeType::Tuple(rest.iter().map(IreeType::from_value).collect::<Result<_, _>>()?),
            _ => return Err(bad(format!("unknown tag `{tag}`"))),
        })
    }

    /// The JSON text, as this project writes it.
    pub fn to_json(&self) -> String {
        let quoted = |s: &str| Value::String(s.to_owned()).to_string();
        let list = |tag: &str, items: &mut dyn Iterator<Item = String>| {
            let mut out = format!("[{}", quoted(tag));
            for item in items {
                out.push(',');
                out.push_str(&item);
            }
            out.push(']');
            out
        };
        match self {
            IreeType::Null => "null".into(),
            IreeType::Scalar(s) => quoted(s),
            IreeType::NdArray { elem, dims: None } => {
                format!("[{},{},null]", quoted(tag(Kind::Tensor)), elem.to_json())
            }
            IreeType::NdArray { elem, dims: Some(dims) } => {
                let mut out = format!("[{},{},{}", quoted(tag(Kind::Tensor)), elem.to_json(), dims.len());
                for d in dims {
                    out.push(',');
                    out.push_str(&d.map_or("null".into(), |d| d.to_string()));
                }
                out.push(']');
                out
            }
            IreeType::Optional(t) => list(tag(Kind::Optional), &mut [t.to_json()].into_iter()),
            IreeType::List(t) => list(tag(Kind::Array), &mut [t.to_json()].into_iter()),
            IreeType::Dict(k, v) => list(tag(Kind::Map), &mut [k.to_json(), v.to_json()].into_iter()),
            IreeType::Tuple(items) => list(tag(Kind::Tuple), &mut items.iter().map(IreeType::to_json)),
            IreeType::Struct(fields) => {
                list(iree::STRUCT, &mut fields.iter().map(|(n, t)| format!("[{},{}]", quoted(n), t.to_json())))
            }
            IreeType::Object(key) => list(iree::OBJECT, &mut [quoted(key)].into_iter()),
        }
    }
}

impl IreeFn {
    /// Reads a whole record.
    pub fn from_value(value: &Value) -> Result<IreeFn, SchemaError> {
        let Value::Object(map) = value else {
            return Err(bad(format!("the record is an object, not {value}")));
        };
        let list = |key: &str| match map.get(key) {
            Some(Value::Array(items)) => Ok(items.as_slice()),
            None => Ok(&[][..]),
            Some(other) => Err(bad(format!("\"{key}\" is not a list: {other}"))),
        };
        let args = list("a")?
            .iter()
            .map(|a| match a {
                Value::Array(items) if items.first().and_then(Value::as_str) == Some(iree::NAMED) => {
                    match items.as_slice() {
                        [_, Value::String(name), ty] => {
                            Ok(IreeArg { name: Some(name.clone()), ty: IreeType::from_value(ty)? })
                        }
                        _ => Err(bad(format!("a named argument is [{:?}, name, type]: {a}", iree::NAMED))),
                    }
                }
                other => Ok(IreeArg { name: None, ty: IreeType::from_value(other)? }),
            })
            .collect::<Result<_, _>>()?;
        let results = list("r")?.iter().map(IreeType::from_value).collect::<Result<_, _>>()?;
        let version = match map.get("v") {
            Some(v) => v.as_u64().ok_or_else(|| bad(format!("version {v}")))?,
            None => return Err(bad("no version \"v\"")),
        };
        Ok(IreeFn { args, results, version })
    }

    /// Adds to `f` (read from `type_schema`, kinds only) what this record of the same
    /// function knows beyond kinds: number widths, tensor element types and ranks, struct
    /// field names. A part where the two disagree in shape is left as it was.
    pub fn refine(&self, f: &mut FnType) {
        if self.args.len() == f.params.len() {
            f.params.iter_mut().zip(&self.args).for_each(|(t, a)| a.ty.refine(t));
        }
        if let [r] = self.results.as_slice() {
            r.refine(&mut f.ret);
        }
    }

    /// The JSON text, as this project writes it.
    pub fn to_json(&self) -> String {
        let args: Vec<String> = self
            .args
            .iter()
            .map(|a| match &a.name {
                Some(n) => {
                    format!("[{},{},{}]", Value::String(iree::NAMED.into()), Value::String(n.clone()), a.ty.to_json())
                }
                None => a.ty.to_json(),
            })
            .collect();
        let results: Vec<String> = self.results.iter().map(IreeType::to_json).collect();
        format!("{{\"a\":[{}],\"r\":[{}],\"v\":{}}}", args.join(","), results.join(","), self.version)
    }
}

impl IreeType {
    /// Adds to `t` (of the same kinds) what this record knows beyond kinds: number widths,
    /// a tensor's element type and rank, struct field names.
    pub fn refine(&self, t: &mut TypeSchema) {
        refine(t, self)
    }
}

fn refine(t: &mut TypeSchema, r: &IreeType) {
    match (t, r) {
        (TypeSchema::Int(w), IreeType::Scalar(s)) => {
            if let Some(Width::Int(width)) = Width::parse(s) {
                *w = Some(width);
            }
        }
        (TypeSchema::Float(w), IreeType::Scalar(s)) => {
            if let Some(Width::Float(width)) = Width::parse(s) {
                *w = Some(width);
            }
        }
        (TypeSchema::Tensor(tensor), IreeType::NdArray { elem, dims }) => {
            let elem = match elem.as_ref() {
                IreeType::Scalar(s) if Kind::from_iree(s) == Some(Kind::Bool) => Some(TypeSchema::Bool),
                IreeType::Scalar(s) => Width::parse(s).map(|w| match w {
                    Width::Int(w) => TypeSchema::Int(Some(w)),
                    Width::Float(w) => TypeSchema::Float(Some(w)),
                }),
                _ => None,
            };
            let rank = dims.as_ref().and_then(|d| u32::try_from(d.len()).ok());
            *tensor = TensorType { elem: elem.map(Box::new), rank, cast: tensor.cast };
        }
        (TypeSchema::Optional(t), IreeType::Optional(r))
        | (TypeSchema::Array(t) | TypeSchema::List(t), IreeType::List(r)) => refine(t, r),
        (TypeSchema::Map(k, v) | TypeSchema::Dict(k, v), IreeType::Dict(rk, rv)) => {
            refine(k, rk);
            refine(v, rv);
        }
        (TypeSchema::Tuple(items), IreeType::Tuple(rs)) if items.len() == rs.len() => {
            items.iter_mut().zip(rs).for_each(|(t, r)| refine(t, r));
        }
        (t @ TypeSchema::Tuple(_), IreeType::Struct(fields)) => {
            let TypeSchema::Tuple(items) = std::mem::take(t) else { unreachable!("matched a tuple") };
            if items.len() != fields.len() {
                *t = TypeSchema::Tuple(items);
                return;
            }
            *t = TypeSchema::Struct {
                name: None,
                fields: items
                    .into_iter()
                    .zip(fields)
                    .map(|(mut item, (name, r))| {
                        refine(&mut item, r);
                        (name.clone(), item)
                    })
                    .collect(),
            };
        }
        // Named in `type_schema` already: the record adds the fields' widths.
        (TypeSchema::Struct { fields, .. }, IreeType::Struct(rs)) if fields.len() == rs.len() => {
            fields.iter_mut().zip(rs).for_each(|((_, t), (_, r))| refine(t, r));
        }
        _ => {}
    }
}
