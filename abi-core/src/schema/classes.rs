//! Object classes read back from the records `#[derive(Object)]` and `#[methods]` place in
//! a library's `abi_shared::CLASS_RECORDS_SECTION` (docs/ABI.md section 10): the reader
//! beside the model, its keys shared with the writer (`runtime::object_types::class_record`) through
//! `abi_shared::class_record`.

use abi_shared::class_record as key;
use serde_json::Value;

use std::collections::BTreeMap;

use super::{clip, Metadata, SchemaError, TypeSchema};

/// One object class.
#[derive(Debug, Clone)]
pub struct Class {
    /// The unique type key (`mylib.Counter`).
    pub key: String,
    /// The parent's type key (`ffi.Object` for a direct child of Object).
    pub parent: String,
    /// Its `///` docs.
    pub doc: String,
    /// Reflected fields, in declaration order.
    pub fields: Vec<Field>,
    /// Methods, sorted by name (`__ffi_init__` is the constructor).
    pub methods: Vec<Method>,
}

/// One reflected field.
#[derive(Debug, Clone)]
pub struct Field {
    /// The field name.
    pub name: String,
    /// Its type.
    pub ty: TypeSchema,
    /// Whether hosts may assign it.
    pub writable: bool,
    /// Its docs.
    pub doc: String,
}

/// One method.
#[derive(Debug, Clone)]
pub struct Method {
    /// The reflected name.
    pub name: String,
    /// A static method (no receiver); the constructor is one.
    pub is_static: bool,
    /// Its docs.
    pub doc: String,
    /// Its metadata; an instance method's first parameter is the receiver.
    pub metadata: Metadata,
}

impl Method {
    /// The reflected name of a `#[abi(init)]` constructor.
    pub const INIT: &'static str = abi_shared::FFI_INIT;
}

/// Reads the concatenated class records of a library's `abi_shared::CLASS_RECORDS_SECTION`
/// (the linker may pad between them with NULs): the classes sorted by type key, each with
/// its methods sorted by name; a method linked twice, or a class, is listed once.
pub fn parse_class_records(data: &[u8]) -> Result<Vec<Class>, SchemaError> {
    parse(data).map_err(SchemaError::new)
}

fn parse(data: &[u8]) -> Result<Vec<Class>, String> {
    // By key, so a section of many records reads in n log n (they come from the file).
    let mut classes: BTreeMap<String, Class> = BTreeMap::new();
    let mut methods: Vec<(String, Method)> = Vec::new();
    for text in super::json_texts(data, "a class record").map_err(|e| e.message().to_owned())? {
        let record: Value =
            serde_json::from_str(text).map_err(|e| format!("a class record is not JSON ({e}): {}", clip(text)))?;
        let version = record.get(abi_shared::VERSION_KEY).and_then(Value::as_u64);
        if version != Some(abi_shared::METADATA_VERSION.into()) {
            return Err(format!(
                "a class record has format version {}, this build reads {}: {}",
                version.map_or("none".to_owned(), |v| v.to_string()),
                abi_shared::METADATA_VERSION,
                clip(text)
            ));
        }
        let bad = |what: &str| format!("a class record has no valid {what}: {}", clip(text));
        match record.get(key::RECORD).and_then(Value::as_str) {
            Some(key::CLASS) => {
                let key = string(&record, key::TYPE_KEY).ok_or_else(|| bad("type_key"))?;
                if classes.contains_key(&key) {
                    continue; // the same type linked twice: one record is enough
                }
                let mut fields = Vec::new();
                for f in record.get(key::FIELDS).and_then(Value::as_array).ok_or_else(|| bad("fields"))? {
                    let name = string(f, key::NAME).ok_or_else(|| bad("field name"))?;
                    let schema = string(f, key::TYPE_SCHEMA).ok_or_else(|| bad("field type_schema"))?;
                    let ty =
                        TypeSchema::parse(&schema).map_err(|e| format!("`{}`: {e}", clip(&format!("{key}.{name}"))))?;
                    let writable = f.get(key::WRITABLE).and_then(Value::as_bool).ok_or_else(|| bad("writable"))?;
                    fields.push(Field { name, ty, writable, doc: string(f, key::DOC).unwrap_or_default() });
                }
                let class = Class {
                    parent: string(&record, key::PARENT).ok_or_else(|| bad("parent"))?,
                    doc: string(&record, key::DOC).unwrap_or_default(),
                    key: key.clone(),
                    fields,
                    methods: Vec::new(),
                };
                classes.insert(key, class);
            }
            Some(key::METHOD) => {
                let class = string(&record, key::CLASS).ok_or_else(|| bad("class"))?;
                let name = string(&record, key::NAME).ok_or_else(|| bad("method name"))?;
                let metadata = record.get(key::METADATA).ok_or_else(|| bad("metadata"))?;
                let metadata = Metadata::from_value(metadata)
                    .map_err(|e| format!("`{}`: {e}", clip(&format!("{class}.{name}"))))?;
                let is_static = record.get(key::STATIC).and_then(Value::as_bool).ok_or_else(|| bad("static"))?;
                methods.push((
                    class,
                    Method { name, is_static, doc: string(&record, key::DOC).unwrap_or_default(), metadata },
                ));
            }
            // Error types are read by `parse_error_records`.
            Some(key::ERROR) => {}
            _ => return Err(bad("kind (\"record\")")),
        }
    }
    // Sorted by name, the first record of each name kept (a method linked twice).
    methods.sort_by(|(ka, a), (kb, b)| (ka, &a.name).cmp(&(kb, &b.name)));
    methods.dedup_by(|(kb, b), (ka, a)| ka == kb && a.name == b.name);
    for (key, method) in methods {
        let class = classes.get_mut(&key).ok_or_else(|| {
            format!("method `{}` belongs to `{}`, which has no class record", clip(&method.name), clip(&key))
        })?;
        class.methods.push(method);
    }
    Ok(classes.into_values().collect())
}

fn string(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CLASS: &str = r#"{"record":"class","type_key":"k.A","parent":"ffi.Object","doc":"An A.","fields":[{"name":"x","type_schema":"{\"type\":\"int\"}","writable":true,"doc":""}],"abi.version":1}"#;
    const METHOD: &str = r#"{"record":"method","class":"k.A","name":"get","static":false,"doc":"","metadata":{"type_schema":"{\"type\":\"ffi.Function\",\"named_args\":{\"return\":[{\"type\":\"int\"}],\"params\":[{\"type\":\"k.A\"}]}}","arg_names":["self"],"abi.version":1},"abi.version":1}"#;

    fn records(texts: &[&str]) -> Vec<u8> {
        texts.iter().flat_map(|t| t.bytes().chain([0])).collect()
    }

    #[test]
    fn methods_join_their_class_whatever_the_order_and_padding() {
        let mut data = records(&[METHOD, CLASS, METHOD]);
        data.extend([0, 0, 0]);
        let classes = parse_class_records(&data).unwrap();
        assert_eq!(classes.len(), 1);
        let a = &classes[0];
        assert_eq!((a.key.as_str(), a.parent.as_str(), a.doc.as_str()), ("k.A", "ffi.Object", "An A."));
        assert_eq!(a.fields.len(), 1);
        assert!(a.fields[0].writable && a.fields[0].ty == TypeSchema::Int(None));
        // The method linked twice is listed once.
        assert_eq!(a.methods.len(), 1);
        assert_eq!(a.methods[0].metadata.params()[0].0, "self");
    }

    #[test]
    fn records_without_a_class_or_with_bad_fields_are_refused() {
        let orphan = parse_class_records(&records(&[METHOD])).unwrap_err().message().to_owned();
        assert!(orphan.contains("method `get` belongs to `k.A`, which has no class record"), "{orphan}");
        let no_key =
            parse_class_records(&records(&[&CLASS.replace("type_key", "type_kee")])).unwrap_err().message().to_owned();
        assert!(no_key.contains("no valid type_key"), "{no_key}");
        let bad_schema = parse_class_records(&records(&[&CLASS.replace(r#"{\"type\":\"int\"}"#, r#"{\"typ\":1}"#)]))
            .unwrap_err()
            .message()
            .to_owned();
        assert!(bad_schema.starts_with("`k.A.x`: "), "{bad_schema}");
        let not_utf8 = parse_class_records(&[0xff, 0xfe, 0]).unwrap_err().message().to_owned();
        assert_eq!(not_utf8, "a class record is not UTF-8");
        assert!(parse_class_records(&[]).unwrap().is_empty());
    }
}
