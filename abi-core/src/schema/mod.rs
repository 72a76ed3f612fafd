//! Reflection read back: published metadata (`type_schema` in both its forms,
//! `arg_names`, `iree.abi`, the compact `signature`) parsed into one typed model and
//! printed back, and the compatibility relation bind checks, the `abi` tool's `diff` and
//! stub generation share. Plain data over `serde_json`: no runtime.

mod classes;
mod compat;
mod errors;
mod export_records;
mod iree_record;
mod iree_records;
mod metadata;
mod op;
mod types;

pub use classes::{parse_class_records, Class, Field, Method};
pub use compat::{check_binding, Mismatch};
pub use errors::{parse_error_records, ErrorKind, ErrorType};
pub use export_records::{parse_export_records, ExportRecord};
pub use iree_record::{IreeArg, IreeFn, IreeType};
pub use iree_records::{parse_iree_records, IreeFunctionRecord, IreeModule, IreeRecords};
pub use metadata::{parse_listing, python_literal, Metadata, VERSION_KEY};
pub use op::{OpInfo, OpOutputInfo, ShapeDim, ShapeRule};
pub use types::{FloatWidth, FnForm, FnType, IntWidth, TaggedVariant, TensorType, TypeSchema, Width};

/// The most a reader of a library's record sections accepts. The file may be hostile (a
/// wheel or library downloaded from elsewhere, read by `abi inspect --no-load`): these
/// bound the memory and time reading it takes, and going past one is an error that says
/// which. Nothing is allocated by a length a record states before that length is checked
/// against the bytes that remain.
pub mod limits {
    /// Records in one section: export records, class records (a class's and each of its
    /// methods' count), or IREE records.
    pub const RECORDS: usize = 65_536;
    /// Bytes of one text a record holds: a name, a metadata JSON, a signature, a
    /// docstring, a class or IREE record's JSON.
    pub const TEXT_BYTES: usize = 1 << 20;
    /// Levels of nesting of `[` and `{` in one JSON text (a `type_schema` nests a level per
    /// type argument): `serde_json`'s recursion limit, which every JSON read here goes
    /// through; deeper is "recursion limit exceeded".
    pub const JSON_NESTING: usize = 127;
}

/// The NUL-separated texts of a record section whose records are JSON texts (class and
/// IREE records; the linker may pad between them with NULs), each checked against
/// [`limits`] and for UTF-8; `what` names the records in messages (`a class record`).
fn json_texts<'a>(data: &'a [u8], what: &str) -> Result<Vec<&'a str>, SchemaError> {
    let mut texts = Vec::new();
    for text in data.split(|&b| b == 0).filter(|t| !t.is_empty()) {
        if texts.len() == limits::RECORDS {
            return Err(SchemaError::new(format!("the section holds more than {} records", limits::RECORDS)));
        }
        if text.len() > limits::TEXT_BYTES {
            return Err(SchemaError::new(format!(
                "{what} is {} bytes long, more than the {} a record may be",
                text.len(),
                limits::TEXT_BYTES
            )));
        }
        texts.push(std::str::from_utf8(text).map_err(|_| SchemaError::new(format!("{what} is not UTF-8")))?);
    }
    Ok(texts)
}

/// The start of a record's text for messages: at most 80 characters, on one line (control
/// characters escaped).
fn clip(text: &str) -> String {
    let end = text.char_indices().nth(80).map_or(text.len(), |(i, _)| i);
    let mut out: String = text[..end].chars().flat_map(one_line_char).collect();
    if end < text.len() {
        out.push_str("...");
    }
    out
}

/// `c`, or its escape when it is a control character (a line break among them).
fn one_line_char(c: char) -> Vec<char> {
    if c.is_control() || matches!(c, '\u{2028}' | '\u{2029}') {
        c.escape_default().collect()
    } else {
        vec![c]
    }
}

/// Why published metadata could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchemaError {
    message: String,
}

impl SchemaError {
    /// An error with `message`.
    pub fn new(message: impl Into<String>) -> SchemaError {
        SchemaError { message: message.into() }
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The same error, saying where it was found.
    pub fn context(self, place: &str) -> SchemaError {
        SchemaError { message: format!("{place}: {}", self.message) }
    }
}

impl core::fmt::Display for SchemaError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for SchemaError {}

#[cfg(test)]
mod tests {
    //! Each of [`limits`] at its edge: what it allows reads (or fails for another reason),
    //! one past it is the error naming the limit.
    use super::*;

    fn message<T: core::fmt::Debug>(r: Result<T, SchemaError>) -> String {
        r.unwrap_err().message().to_owned()
    }

    /// `n` export records, each the smallest there is: name `a`, no global name, a
    /// three-byte body of empty metadata, signature and docs.
    fn export_records(n: usize) -> Vec<u8> {
        let one = [b'a', 0, 0, 3, 0, 0, 0, 0, 0, 0];
        one.iter().copied().cycle().take(one.len() * n).collect()
    }

    #[test]
    #[cfg_attr(miri, ignore = "65,536 records take minutes in the interpreter")]
    fn a_section_holds_at_most_the_record_limit() {
        assert_eq!(parse_export_records(&export_records(limits::RECORDS)).unwrap().len(), limits::RECORDS);
        let e = message(parse_export_records(&export_records(limits::RECORDS + 1)));
        assert_eq!(
            e,
            format!("the export records section holds more than 65536 records (byte {})", 10 * limits::RECORDS)
        );
        // Class and IREE records: counted before any is read.
        let texts = |n: usize| b"{}\0".repeat(n);
        let over = "the section holds more than 65536 records";
        assert_eq!(message(parse_class_records(&texts(limits::RECORDS + 1))), over);
        assert_eq!(message(parse_iree_records(&texts(limits::RECORDS + 1))), over);
        assert!(message(parse_class_records(&texts(limits::RECORDS))).contains("format version none"));
        assert!(message(parse_iree_records(&texts(limits::RECORDS))).contains("format version none"));
    }

    #[test]
    #[cfg_attr(miri, ignore = "a mebibyte of text takes minutes in the interpreter")]
    fn a_text_is_at_most_the_text_limit() {
        // A JSON record of exactly the limit is read (and refused for what it says).
        let record = |len: usize| {
            let mut text = b"\"".to_vec();
            text.resize(len - 1, b'x');
            text.extend(b"\"\0");
            text
        };
        assert!(message(parse_class_records(&record(limits::TEXT_BYTES))).contains("format version none"));
        let e = message(parse_class_records(&record(limits::TEXT_BYTES + 1)));
        assert_eq!(e, "a class record is 1048577 bytes long, more than the 1048576 a record may be");
        let e = message(parse_iree_records(&record(limits::TEXT_BYTES + 1)));
        assert_eq!(e, "an IREE record is 1048577 bytes long, more than the 1048576 a record may be");
        // An export record's body, and its name.
        let mut body_over = b"a\0\0".to_vec();
        body_over.extend(u32::try_from(limits::TEXT_BYTES + 1).unwrap().to_le_bytes());
        body_over.resize(body_over.len() + limits::TEXT_BYTES + 1, 0);
        let e = message(parse_export_records(&body_over));
        assert_eq!(
            e,
            "the export record at byte 0 (`a`) says its body is 1048577 bytes, more than the 1048576 a record may be"
        );
        let mut name_over = vec![b'a'; limits::TEXT_BYTES + 1];
        name_over.extend([0, 0, 3, 0, 0, 0, 0, 0, 0]);
        let e = message(parse_export_records(&name_over));
        assert_eq!(e, "the export record at byte 0 has a name longer than the 1048576 bytes a text may be");
        let mut name_at = vec![b'a'; limits::TEXT_BYTES];
        name_at.extend([0, 0, 3, 0, 0, 0, 0, 0, 0]);
        assert_eq!(parse_export_records(&name_at).unwrap()[0].name.len(), limits::TEXT_BYTES);
    }

    #[test]
    fn json_nests_at_most_the_nesting_limit() {
        let nested = |levels: usize| format!("{}{}", "[".repeat(levels), "]".repeat(levels));
        let e = message(TypeSchema::parse(&nested(limits::JSON_NESTING)));
        assert!(e.starts_with("a type_schema is a JSON object"), "{e}");
        let e = message(TypeSchema::parse(&nested(limits::JSON_NESTING + 1)));
        assert!(e.contains("recursion limit exceeded"), "{e}");
        // A type nested as deep as that reads.
        let mut schema = r#"{"type":"int"}"#.to_owned();
        for _ in 0..(limits::JSON_NESTING - 1) / 2 {
            schema = format!(r#"{{"type":"ffi.Array","args":[{schema}]}}"#);
        }
        assert!(TypeSchema::parse(&schema).is_ok());
        let deeper = format!(r#"{{"type":"ffi.Array","args":[{schema}]}}"#);
        assert!(message(TypeSchema::parse(&deeper)).contains("recursion limit exceeded"));
    }

    #[test]
    fn messages_quote_records_on_one_line() {
        assert_eq!(clip("a\nb\r\u{2028}c"), "a\\nb\\r\\u{2028}c");
        assert_eq!(clip(&"x".repeat(100)), format!("{}...", "x".repeat(80)));
        let e = message(parse_iree_records(b"{\n\"record\": 1\n}\0"));
        assert!(!e.contains('\n'), "{e}");
    }
}
