//! A library's IREE module read back from its `abi_shared::IREE_RECORDS_SECTION`: the
//! modules `iree_module!` declares (name and entry point) and the `#[export_fn(iree)]`
//! functions (name and calling convention), each record a NUL-terminated JSON text with
//! the keys of `abi_shared::iree_record`, written by abi-core's `iree::records`.

use abi_shared::iree_record as key;
use serde_json::Value;

use super::{clip, SchemaError};

/// What a library's IREE records say.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IreeRecords {
    /// The modules (`iree_module!`), sorted by entry point; usually one.
    pub modules: Vec<IreeModule>,
    /// The functions every module serves, sorted by name.
    pub functions: Vec<IreeFunctionRecord>,
}

/// A module `iree_module!` creates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IreeModule {
    /// The module's name (programs import `<name>.<function>`).
    pub name: String,
    /// The exported C symbol IREE calls to create it (`iree_vm_dynamic_module_create`).
    pub entry: String,
}

/// An `#[export_fn(iree)]` function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IreeFunctionRecord {
    /// The export name.
    pub name: String,
    /// The calling convention (`0ii_i`).
    pub cconv: String,
}

/// Reads the concatenated records of a library's `abi_shared::IREE_RECORDS_SECTION` (the
/// linker may pad between them with NULs); a record linked twice is listed once.
pub fn parse_iree_records(data: &[u8]) -> Result<IreeRecords, SchemaError> {
    let mut out = IreeRecords::default();
    for text in super::json_texts(data, "an IREE record")? {
        let record: Value = serde_json::from_str(text)
            .map_err(|e| SchemaError::new(format!("an IREE record is not JSON ({e}): {}", clip(text))))?;
        let version = record.get(abi_shared::VERSION_KEY).and_then(Value::as_u64);
        if version != Some(abi_shared::METADATA_VERSION.into()) {
            return Err(SchemaError::new(format!(
                "an IREE record has format version {}, this build reads {}: {}",
                version.map_or("none".to_owned(), |v| v.to_string()),
                abi_shared::METADATA_VERSION,
                clip(text)
            )));
        }
        let string = |k: &str| {
            record
                .get(k)
                .and_then(Value::as_str)
                .map(str::to_owned)
                .ok_or_else(|| SchemaError::new(format!("an IREE record has no valid {k}: {}", clip(text))))
        };
        match record.get(key::RECORD).and_then(Value::as_str) {
            Some(key::MODULE) => out.modules.push(IreeModule { name: string(key::NAME)?, entry: string(key::ENTRY)? }),
            Some(key::FUNCTION) => {
                out.functions.push(IreeFunctionRecord { name: string(key::NAME)?, cconv: string(key::CCONV)? })
            }
            _ => {
                return Err(SchemaError::new(format!("an IREE record has no valid kind (\"record\"): {}", clip(text))))
            }
        }
    }
    // A record linked twice is listed once (sorted first: the section comes from the file,
    // and may hold many).
    out.modules.sort_by(|a, b| (&a.entry, &a.name).cmp(&(&b.entry, &b.name)));
    out.modules.dedup();
    out.functions.sort_by(|a, b| (&a.name, &a.cconv).cmp(&(&b.name, &b.cconv)));
    out.functions.dedup();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::iree::records::{function_record, module_record};
    use crate::reflect::writer::Writer;

    fn section(texts: &[String]) -> Vec<u8> {
        texts.iter().flat_map(|t| t.bytes().chain([0, 0])).collect()
    }

    #[test]
    fn records_read_back_as_written_sorted_and_once() {
        let module = Writer::render(|w| module_record(w, "kit", "create_kit"));
        let add = Writer::render(|w| function_record(w, "add", b"0ii_i"));
        let mix = Writer::render(|w| function_record(w, "mix", b"0iIf_fI"));
        let read = parse_iree_records(&section(&[mix.clone(), module, add.clone(), mix])).unwrap();
        assert_eq!(read.modules, [IreeModule { name: "kit".into(), entry: "create_kit".into() }]);
        let names: Vec<(&str, &str)> = read.functions.iter().map(|f| (f.name.as_str(), f.cconv.as_str())).collect();
        assert_eq!(names, [("add", "0ii_i"), ("mix", "0iIf_fI")]);
        assert_eq!(parse_iree_records(&[0; 4]).unwrap(), IreeRecords::default());
    }

    #[test]
    fn damaged_or_future_records_are_refused() {
        let err = |text: &str| parse_iree_records(&section(&[text.to_owned()])).unwrap_err().message().to_owned();
        let add = Writer::render(|w| function_record(w, "add", b"0ii_i"));
        assert!(err(&add.replace("\"abi.version\":1", "\"abi.version\":9")).contains("format version 9"));
        assert!(err(&add.replace("cconv", "cconf")).contains("no valid cconv"));
        assert!(err(&add.replace("iree.function", "iree.other")).contains("no valid kind"));
        assert!(err("{").contains("not JSON"));
        assert_eq!(parse_iree_records(&[0xff, 0]).unwrap_err().message(), "an IREE record is not UTF-8");
    }
}
