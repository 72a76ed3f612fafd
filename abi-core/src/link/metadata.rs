//! Reading published metadata back: the JSON object behind `__tvm_ffi__metadata_<name>`
//! (written at compile time by `reflect`, or by tvm-ffi's C++ export macro, which
//! publishes `type_schema` only) and the exports listing of a library built with abi.
//! One reader, on `serde_json`, for every consumer (bind checks, `Library`, tools).

use std::collections::BTreeMap;

use serde_json::Value;

use crate::value::error::{Error, Result};

/// One function's metadata, as published.
#[derive(Clone, Debug, PartialEq)]
pub struct Metadata {
    /// The tvm-ffi `type_schema` JSON text (`{"type":"ffi.Function","named_args":...}`).
    pub type_schema: Option<String>,
    /// Parameter names, one per argument slot (`p.x` for expanded struct leaves).
    pub arg_names: Option<Vec<String>>,
    /// The IREE function-ABI record, as JSON text.
    pub iree_abi: Option<String>,
    /// The compact raw-function signature (`I<n>!...R<n>!...`).
    pub signature: Option<String>,
    /// The abi metadata format version; `None` for libraries not built with abi.
    pub version: Option<u32>,
}

/// The key of the format version in the metadata this project writes.
pub const VERSION_KEY: &str = "abi.version";

impl Metadata {
    /// Parses a metadata JSON object. Unknown keys are ignored (hosts add their own); a
    /// format version newer than this build reads is an error, as is malformed JSON.
    pub fn parse(text: &str) -> Result<Metadata> {
        let value: Value = serde_json::from_str(text).map_err(|e| malformed(&e))?;
        Metadata::from_value(&value)
    }

    fn from_value(value: &Value) -> Result<Metadata> {
        let Value::Object(map) = value else {
            return Err(Error::value_error("function metadata is not a JSON object"));
        };
        let version = match map.get(VERSION_KEY) {
            None => None,
            Some(v) => Some(
                v.as_u64()
                    .and_then(|v| u32::try_from(v).ok())
                    .ok_or_else(|| Error::value_error(format!("`{VERSION_KEY}` is not a version number: {v}")))?,
            ),
        };
        if let Some(v) = version.filter(|&v| v > abi_shared::METADATA_VERSION) {
            return Err(Error::value_error(format!(
                "metadata format {v} is newer than this build of abi reads (up to {}): upgrade abi",
                abi_shared::METADATA_VERSION
            )));
        }
        let string = |key: &str| -> Result<Option<String>> {
            match map.get(key) {
                None => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(other) => Err(Error::value_error(format!("metadata `{key}` is not a string: {other}"))),
            }
        };
        let arg_names = match map.get("arg_names") {
            None => None,
            Some(Value::Array(items)) => Some(
                items
                    .iter()
                    .map(|v| v.as_str().map(str::to_owned))
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(|| Error::value_error("metadata `arg_names` holds a non-string"))?,
            ),
            Some(other) => return Err(Error::value_error(format!("metadata `arg_names` is not a list: {other}"))),
        };
        Ok(Metadata {
            type_schema: string("type_schema")?,
            arg_names,
            iree_abi: map.get("iree.abi").map(Value::to_string),
            signature: string("signature")?,
            version,
        })
    }
}

/// Parses an exports listing `{"<name>": <metadata>, ...}` into metadata by name.
pub fn parse_listing(text: &str) -> Result<BTreeMap<String, Metadata>> {
    let value: Value = serde_json::from_str(text).map_err(|e| malformed(&e))?;
    let Value::Object(map) = value else {
        return Err(Error::value_error("the exports listing is not a JSON object"));
    };
    map.iter().map(|(name, meta)| Ok((name.clone(), Metadata::from_value(meta)?))).collect()
}

#[cold]
fn malformed(e: &serde_json::Error) -> Error {
    Error::value_error(format!("malformed metadata JSON: {e}"))
}
