//! [`Metadata`]: the JSON object behind `__tvm_ffi__metadata_<name>` (written at compile
//! time by `reflect`, by tvm-ffi's C++ export macro, which publishes `type_schema` only, or
//! by a global registration) as a typed model, and the exports listing of a library built
//! with abi. The one reader for bind checks, `Library` and the `abi` tool.

use std::collections::BTreeMap;

use serde_json::Value;

use super::iree_record::IreeFn;
use super::op::OpInfo;
use super::types::{FnType, TypeSchema};
use super::SchemaError;
use crate::reflect::FnDesc;

/// One function's metadata.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Metadata {
    /// The tvm-ffi `type_schema`: the function's parameter and result types.
    pub type_schema: Option<FnType>,
    /// Parameter names, one per argument slot (`p.x` for expanded struct leaves).
    pub arg_names: Option<Vec<String>>,
    /// The IREE function-ABI record.
    pub iree_abi: Option<IreeFn>,
    /// The compact raw-function signature (`I<n>!...R<n>!...`).
    pub signature: Option<String>,
    /// The global registry name (`abi.global`) of an `#[export_fn(global = ...)]` export.
    pub global: Option<String>,
    /// Parameter defaults (`abi.defaults`), by parameter name, in parameter order.
    pub defaults: Vec<(String, Value)>,
    /// The parameters that only read the tensor they take (`abi.read_only`).
    pub read_only: Vec<String>,
    /// The export's GIL choice (`abi.gil`): `Some(true)` to release it, `Some(false)` to keep it.
    pub release_gil: Option<bool>,
    /// The op description (`abi.op`) of an `#[export_fn(op)]` export.
    pub op: Option<OpInfo>,
    /// The Rust name of the error type it raises (`abi.error`), when it returns one of its
    /// own.
    pub error: Option<String>,
    /// The abi metadata format version; `None` for metadata not written by abi.
    pub version: Option<u32>,
}

pub use abi_shared::VERSION_KEY;

impl Metadata {
    /// Parses a metadata JSON object. Unknown keys are ignored (hosts add their own); a
    /// format version newer than this build reads is an error, as is malformed JSON or a
    /// malformed `type_schema` or `iree.abi`.
    pub fn parse(text: &str) -> Result<Metadata, SchemaError> {
        let value: Value = serde_json::from_str(text).map_err(|e| malformed(&e))?;
        Metadata::from_value(&value)
    }

    /// Reads a parsed metadata object.
    pub fn from_value(value: &Value) -> Result<Metadata, SchemaError> {
        let Value::Object(map) = value else {
            return Err(SchemaError::new("function metadata is not a JSON object"));
        };
        let version = match map.get(VERSION_KEY) {
            None => None,
            Some(v) => Some(
                v.as_u64()
                    .and_then(|v| u32::try_from(v).ok())
                    .ok_or_else(|| SchemaError::new(format!("`{VERSION_KEY}` is not a version number: {v}")))?,
            ),
        };
        if let Some(v) = version.filter(|&v| v > abi_shared::METADATA_VERSION) {
            return Err(SchemaError::new(format!(
                "metadata format {v} is newer than this build of abi reads (up to {}): upgrade abi",
                abi_shared::METADATA_VERSION
            )));
        }
        let string = |key: &str| -> Result<Option<&str>, SchemaError> {
            match map.get(key) {
                None => Ok(None),
                Some(Value::String(s)) => Ok(Some(s)),
                Some(other) => Err(SchemaError::new(format!("metadata `{key}` is not a string: {other}"))),
            }
        };
        let arg_names = match map.get("arg_names") {
            None => None,
            Some(Value::Array(items)) => Some(
                items
                    .iter()
                    .map(|v| v.as_str().map(str::to_owned))
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(|| SchemaError::new("metadata `arg_names` holds a non-string"))?,
            ),
            Some(other) => return Err(SchemaError::new(format!("metadata `arg_names` is not a list: {other}"))),
        };
        let mut type_schema = string("type_schema")?.map(FnType::parse).transpose()?;
        if let (Some(names), Some(f)) = (&arg_names, &type_schema) {
            if names.len() != f.params.len() {
                return Err(SchemaError::new(format!(
                    "metadata names {} arguments but its type_schema has {} parameters",
                    names.len(),
                    f.params.len()
                )));
            }
        }
        let iree_abi = map.get("iree.abi").map(IreeFn::from_value).transpose()?;
        if let (Some(f), Some(record)) = (&mut type_schema, &iree_abi) {
            record.refine(f);
        }
        let defaults = read_defaults(map.get(abi_shared::DEFAULTS_KEY), arg_names.as_deref())?;
        let read_only =
            read_names(map.get(abi_shared::READ_ONLY_KEY), abi_shared::READ_ONLY_KEY, arg_names.as_deref())?;
        let release_gil = match string(abi_shared::GIL_KEY)? {
            None => None,
            Some(abi_shared::GIL_RELEASE) => Some(true),
            Some(abi_shared::GIL_KEEP) => Some(false),
            Some(other) => {
                return Err(SchemaError::new(format!(
                    "metadata `{}` is neither \"{}\" nor \"{}\": {other:?}",
                    abi_shared::GIL_KEY,
                    abi_shared::GIL_RELEASE,
                    abi_shared::GIL_KEEP
                )))
            }
        };
        Ok(Metadata {
            type_schema,
            arg_names,
            iree_abi,
            signature: string("signature")?.map(str::to_owned),
            global: string(abi_shared::GLOBAL_KEY)?.map(str::to_owned),
            defaults,
            read_only,
            release_gil,
            op: map.get(abi_shared::OP_KEY).map(OpInfo::from_value).transpose()?,
            error: string(abi_shared::ERROR_KEY)?.map(str::to_owned),
            version,
        })
    }

    /// The model of a function this build describes (a declared import or a linked
    /// export): its full types (widths included), argument names and global name. The
    /// texts only a publisher writes (`iree.abi`, `signature`) are left out.
    pub fn declared(desc: &FnDesc) -> Metadata {
        Metadata {
            type_schema: Some(FnType::from(desc)),
            arg_names: Some(desc.slots().into_iter().map(|(name, _)| name).collect()),
            iree_abi: None,
            signature: None,
            global: desc.global.map(str::to_owned),
            defaults: desc.defaults(),
            read_only: desc.params.iter().filter(|p| p.reads_tensor_only()).map(|p| p.name.to_owned()).collect(),
            release_gil: desc.release_gil,
            op: desc.op.map(OpInfo::from),
            error: desc.error.map(str::to_owned),
            version: Some(abi_shared::METADATA_VERSION),
        }
    }

    /// The JSON text, keys in the order this project writes them; for metadata this
    /// project wrote, the same text that was parsed.
    pub fn to_json(&self) -> String {
        let mut parts = Vec::new();
        if let Some(t) = &self.type_schema {
            parts.push(format!("\"type_schema\":{}", Value::String(t.to_json())));
        }
        if let Some(names) = &self.arg_names {
            parts.push(format!("\"arg_names\":{}", Value::from(names.clone())));
        }
        if let Some(r) = &self.iree_abi {
            parts.push(format!("\"iree.abi\":{}", r.to_json()));
        }
        if let Some(s) = &self.signature {
            parts.push(format!("\"signature\":{}", Value::String(s.clone())));
        }
        if let Some(g) = &self.global {
            parts.push(format!("\"{}\":{}", abi_shared::GLOBAL_KEY, Value::String(g.clone())));
        }
        if !self.defaults.is_empty() {
            let entries: Vec<String> =
                self.defaults.iter().map(|(name, value)| format!("{}:{value}", Value::String(name.clone()))).collect();
            parts.push(format!("\"{}\":{{{}}}", abi_shared::DEFAULTS_KEY, entries.join(",")));
        }
        if !self.read_only.is_empty() {
            parts.push(format!("\"{}\":{}", abi_shared::READ_ONLY_KEY, Value::from(self.read_only.clone())));
        }
        if let Some(release) = self.release_gil {
            let value = if release { abi_shared::GIL_RELEASE } else { abi_shared::GIL_KEEP };
            parts.push(format!("\"{}\":\"{value}\"", abi_shared::GIL_KEY));
        }
        if let Some(e) = &self.error {
            parts.push(format!("\"{}\":{}", abi_shared::ERROR_KEY, Value::String(e.clone())));
        }
        if let Some(op) = &self.op {
            parts.push(format!("\"{}\":{}", abi_shared::OP_KEY, op.to_json()));
        }
        if let Some(v) = self.version {
            parts.push(format!("\"{VERSION_KEY}\":{v}"));
        }
        format!("{{{}}}", parts.join(","))
    }

    /// Whether a Python caller releases the GIL while the export runs: as `abi.gil` says
    /// when it says; else not for an export whose parameters are all numbers, `bool`,
    /// `str`, `bytes`, fieldless enums or `None` (or `Option`s of them: calls too short to
    /// pay for the release), and for every other (tensors, callbacks, objects: kernels, and bodies that
    /// may wait on other threads), as `tvm_ffi` does for every call.
    pub fn releases_gil(&self) -> bool {
        fn short(t: &TypeSchema) -> bool {
            match t {
                TypeSchema::None | TypeSchema::Bool | TypeSchema::Int(_) | TypeSchema::Float(_) => true,
                TypeSchema::Str | TypeSchema::Bytes | TypeSchema::Enum { .. } => true,
                TypeSchema::Optional(inner) => short(inner),
                _ => false,
            }
        }
        match (self.release_gil, &self.type_schema) {
            (Some(release), _) => release,
            (None, Some(f)) => !f.params.iter().all(short),
            (None, None) => true,
        }
    }

    /// The parameters with their names (`_0`, `_1`... where none are published) and types
    /// (`Any` where no `type_schema` is).
    pub fn params(&self) -> Vec<(String, TypeSchema)> {
        let Some(f) = &self.type_schema else { return Vec::new() };
        f.params
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let name = self.arg_names.as_ref().and_then(|n| n.get(i)).cloned().unwrap_or_else(|| format!("_{i}"));
                (name, t.clone())
            })
            .collect()
    }

    /// Each parameter's default, aligned with [`Metadata::params`]: `None` for a
    /// parameter without one (a default of `None` is `Some(Value::Null)`).
    pub fn defaults(&self) -> Vec<Option<Value>> {
        // One map, not a scan per parameter: a file may publish thousands of each.
        let by_name: std::collections::HashMap<&str, &Value> =
            self.defaults.iter().map(|(n, v)| (n.as_str(), v)).collect();
        self.params().iter().map(|(name, _)| by_name.get(name.as_str()).map(|&v| v.clone())).collect()
    }

    /// The default of the parameter named `name`.
    pub fn default_of(&self, name: &str) -> Option<&Value> {
        self.defaults.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }

    /// How many leading arguments a call must pass: the parameters before the first
    /// with a default.
    pub fn required_args(&self) -> usize {
        let defaults = self.defaults();
        defaults.iter().position(Option::is_some).unwrap_or(defaults.len())
    }

    /// The signature as Python reads it, `add(a: int, b: int) -> int`; `name(...)` when
    /// no `type_schema` is published.
    pub fn python_signature(&self, name: &str) -> String {
        match &self.type_schema {
            None => format!("{name}(*args: Any) -> Any"),
            Some(f) => {
                let params: Vec<String> = self
                    .params()
                    .iter()
                    .zip(self.defaults())
                    .map(|((n, t), default)| match &default {
                        Some(d) => format!("{n}: {} = {}", t.python(), python_literal(d)),
                        None => format!("{n}: {}", t.python()),
                    })
                    .collect();
                format!("{name}({}) -> {}", params.join(", "), f.ret.python())
            }
        }
    }
}

/// Parses an exports listing `{"<name>": <metadata>, ...}` into metadata by name.
pub fn parse_listing(text: &str) -> Result<BTreeMap<String, Metadata>, SchemaError> {
    let value: Value = serde_json::from_str(text).map_err(|e| malformed(&e))?;
    let Value::Object(map) = value else {
        return Err(SchemaError::new("the exports listing is not a JSON object"));
    };
    map.iter()
        .map(|(name, meta)| {
            Metadata::from_value(meta).map(|m| (name.clone(), m)).map_err(|e| e.context(&format!("export `{name}`")))
        })
        .collect()
}

/// A default as Python writes it: `None`, `True`, `False`, numbers (a float keeps its
/// point), strings quoted.
pub fn python_literal(value: &Value) -> String {
    match value {
        Value::Null => "None".into(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Number(n) if n.is_f64() => format!("{:?}", n.as_f64().unwrap_or_default()),
        other => other.to_string(),
    }
}

/// Reads `abi.defaults`: an object from parameter name to a scalar or `null`, naming only
/// parameters `arg_names` lists; kept in parameter order.
fn read_defaults(value: Option<&Value>, arg_names: Option<&[String]>) -> Result<Vec<(String, Value)>, SchemaError> {
    let key = abi_shared::DEFAULTS_KEY;
    let Some(value) = value else { return Ok(Vec::new()) };
    let Value::Object(map) = value else {
        return Err(SchemaError::new(format!("metadata `{key}` is not an object: {value}")));
    };
    let names = arg_names.unwrap_or_default();
    // A set, not a scan per default: a file may give thousands of each.
    let known: std::collections::HashSet<&str> = names.iter().map(String::as_str).collect();
    for (name, v) in map {
        if !known.contains(name.as_str()) {
            return Err(SchemaError::new(format!("metadata `{key}` names `{name}`, which is no parameter")));
        }
        if matches!(v, Value::Array(_) | Value::Object(_)) {
            return Err(SchemaError::new(format!("metadata `{key}`: the default of `{name}` is not a scalar: {v}")));
        }
    }
    Ok(names.iter().filter_map(|n| map.get(n).map(|v| (n.clone(), v.clone()))).collect())
}

/// Reads a list of parameter names (`abi.read_only`), each one `arg_names` lists.
fn read_names(value: Option<&Value>, key: &str, arg_names: Option<&[String]>) -> Result<Vec<String>, SchemaError> {
    let Some(value) = value else { return Ok(Vec::new()) };
    let Value::Array(items) = value else {
        return Err(SchemaError::new(format!("metadata `{key}` is not a list: {value}")));
    };
    let names = arg_names.unwrap_or_default();
    items
        .iter()
        .map(|v| match v.as_str() {
            Some(name) if names.iter().any(|n| n == name) => Ok(name.to_owned()),
            _ => Err(SchemaError::new(format!("metadata `{key}` holds {v}, which is no parameter"))),
        })
        .collect()
}

#[cold]
fn malformed(e: &serde_json::Error) -> SchemaError {
    SchemaError::new(format!("malformed metadata JSON: {e}"))
}
