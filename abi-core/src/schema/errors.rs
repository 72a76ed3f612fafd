//! Error types read back from the records `#[derive(AbiError)]` places in a library's
//! `abi_shared::CLASS_RECORDS_SECTION` beside the class records (docs/ABI.md section 10):
//! each type's kinds, with the variant, the builtin base and the docs of each.

use abi_shared::class_record as key;
use serde_json::Value;

use super::{clip, SchemaError};

/// A derived error type.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct ErrorType {
    /// The Rust name (what an export's `abi.error` names).
    pub name: String,
    /// Its docs.
    pub doc: String,
    /// One kind per variant, in declaration order.
    pub kinds: Vec<ErrorKind>,
}

/// One kind of an [`ErrorType`].
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct ErrorKind {
    /// The variant's Rust identifier.
    pub variant: String,
    /// The kind its errors carry (`mylib.KernelError.BadShape`).
    pub kind: String,
    /// The builtin kind Python callers may also catch it as.
    pub base: String,
    /// The variant's docs.
    pub doc: String,
}

/// Reads the error types among the records of a class records section (the other records
/// are the classes', read by `parse_class_records`, which checks their versions too), sorted
/// by name; a type linked twice is listed once.
pub fn parse_error_records(data: &[u8]) -> Result<Vec<ErrorType>, SchemaError> {
    let mut types = Vec::new();
    for text in super::json_texts(data, "a class record")? {
        let record: Value = serde_json::from_str(text)
            .map_err(|e| SchemaError::new(format!("a class record is not JSON ({e}): {}", clip(text))))?;
        if record.get(key::RECORD).and_then(Value::as_str) != Some(key::ERROR) {
            continue;
        }
        let bad = |what: &str| SchemaError::new(format!("an error record has no valid {what}: {}", clip(text)));
        let mut kinds = Vec::new();
        for k in record.get(key::KINDS).and_then(Value::as_array).ok_or_else(|| bad("kinds"))? {
            kinds.push(ErrorKind {
                variant: string(k, key::VARIANT).ok_or_else(|| bad("variant"))?,
                kind: string(k, key::KIND).ok_or_else(|| bad("kind"))?,
                base: string(k, key::BASE).ok_or_else(|| bad("base"))?,
                doc: string(k, key::DOC).unwrap_or_default(),
            });
        }
        let name = string(&record, key::NAME).ok_or_else(|| bad("name"))?;
        types.push(ErrorType { name, doc: string(&record, key::DOC).unwrap_or_default(), kinds });
    }
    types.sort();
    types.dedup();
    Ok(types)
}

fn string(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ERROR: &str = r#"{"record":"error","name":"KernelError","doc":"Refusals.","kinds":[{"variant":"BadShape","kind":"k.KernelError.BadShape","base":"ValueError","doc":"A bad shape."}],"abi.version":1}"#;
    const CLASS: &str =
        r#"{"record":"class","type_key":"k.A","parent":"ffi.Object","doc":"","fields":[],"abi.version":1}"#;

    fn records(texts: &[&str]) -> Vec<u8> {
        texts.iter().flat_map(|t| t.bytes().chain([0])).collect()
    }

    #[test]
    fn error_types_are_read_beside_classes_once_each() {
        let data = records(&[ERROR, CLASS, ERROR]);
        let types = parse_error_records(&data).unwrap();
        assert_eq!(types.len(), 1);
        let k = &types[0].kinds[0];
        assert_eq!(
            (k.variant.as_str(), k.kind.as_str(), k.base.as_str()),
            ("BadShape", "k.KernelError.BadShape", "ValueError")
        );
        assert_eq!(super::super::parse_class_records(&data).unwrap().len(), 1, "the classes skip error records");
        let bad = parse_error_records(&records(&[&ERROR.replace("\"base\"", "\"bass\"")])).unwrap_err();
        assert!(bad.message().contains("no valid base"), "{}", bad.message());
    }
}
