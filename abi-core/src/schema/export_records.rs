//! The export records a library built with abi carries in its
//! `abi_shared::EXPORT_RECORDS_SECTION` (docs/ABI.md section 4), read back without running
//! the library: each export's name, global name, metadata JSON, signature text and
//! docstring, as `#[export_fn]` rendered them at compile time.

use super::{clip, limits, SchemaError};
use crate::runtime::calls::export_entry::BODY_LENGTH_BYTES;

/// One export's record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportRecord {
    /// The exported name (symbol `__tvm_ffi_<name>`).
    pub name: String,
    /// The global registry name (`#[export_fn(global = "...")]`), if any.
    pub global: Option<String>,
    /// The metadata JSON `__tvm_ffi__metadata_<name>` returns.
    pub metadata: String,
    /// The signature text quoted in error messages.
    pub signature: String,
    /// The docstring `__tvm_ffi__doc_<name>` returns (it may hold NULs), empty for none.
    pub doc: String,
}

/// Reads the concatenated records of a library's `abi_shared::EXPORT_RECORDS_SECTION`, in
/// the order the linker placed them (it may pad between them with NULs). A file may be
/// hostile: every length is checked, and a record that is cut short, not UTF-8, or not
/// named by a C identifier is an error that says which.
pub fn parse_export_records(data: &[u8]) -> Result<Vec<ExportRecord>, SchemaError> {
    let mut records = Vec::new();
    let mut rest = data;
    loop {
        let start = rest.iter().position(|&b| b != 0).unwrap_or(rest.len());
        rest = &rest[start..];
        if rest.is_empty() {
            return Ok(records);
        }
        let offset = data.len() - rest.len();
        if records.len() == limits::RECORDS {
            return Err(SchemaError::new(format!(
                "the export records section holds more than {} records (byte {offset})",
                limits::RECORDS
            )));
        }
        let record = one(&mut rest).map_err(|e| SchemaError::new(format!("the export record at byte {offset} {e}")))?;
        records.push(record);
    }
}

// Reads the record at the start of `rest` and moves `rest` past it.
fn one(rest: &mut &[u8]) -> Result<ExportRecord, String> {
    let name = text_to_nul(rest, "name")?;
    if !abi_shared::is_c_identifier(&name) {
        return Err(format!("has a name that is no C identifier: \"{}\"", clip(&name)));
    }
    let global = Some(text_to_nul(rest, "global name")?).filter(|g| !g.is_empty());
    let in_record = |e: String| format!("(`{name}`) {e}");
    let Some((length, after)) = rest.split_first_chunk::<BODY_LENGTH_BYTES>() else {
        return Err(in_record("is cut short before its body length".to_owned()));
    };
    let length = u32::from_le_bytes(*length) as usize;
    if length > limits::TEXT_BYTES {
        return Err(in_record(format!(
            "says its body is {length} bytes, more than the {} a record may be",
            limits::TEXT_BYTES
        )));
    }
    let Some((body, after)) = after.split_at_checked(length) else {
        return Err(in_record(format!("says its body is {length} bytes, but {} remain", after.len())));
    };
    *rest = after;
    let Some((0, mut body)) = body.split_last() else {
        return Err(in_record("has a body that does not end in NUL".to_owned()));
    };
    let metadata = text_to_nul(&mut body, "metadata").map_err(in_record)?;
    let signature = text_to_nul(&mut body, "signature").map_err(in_record)?;
    let doc = utf8(body, "docstring").map_err(in_record)?;
    Ok(ExportRecord { name, global, metadata, signature, doc })
}

// The UTF-8 text before the first NUL of `rest`, which moves past that NUL.
fn text_to_nul(rest: &mut &[u8], what: &str) -> Result<String, String> {
    let Some(end) = rest.iter().take(limits::TEXT_BYTES + 1).position(|&b| b == 0) else {
        return Err(match rest.len() > limits::TEXT_BYTES {
            true => format!("has a {what} longer than the {} bytes a text may be", limits::TEXT_BYTES),
            false => format!("is cut short in its {what}"),
        });
    };
    let text = utf8(&rest[..end], what)?;
    *rest = &rest[end + 1..];
    Ok(text)
}

fn utf8(bytes: &[u8], what: &str) -> Result<String, String> {
    String::from_utf8(bytes.to_vec()).map_err(|_| format!("has a {what} that is not UTF-8"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::__private::{render_export_texts, TypeTexts};
    use crate::reflect::{FnDesc, ParamDesc, TypeDesc};

    const I64: TypeDesc = TypeDesc::Int { bits: 64, signed: true };
    const PARAMS: &[ParamDesc] = &[ParamDesc::new("a", &I64), ParamDesc::new("b", &I64)];

    fn record(f: &FnDesc) -> Vec<u8> {
        render_export_texts(f, &[], &TypeTexts::NONE).bytes().to_vec()
    }

    #[test]
    fn records_read_back_as_rendered_with_padding_between() {
        let add = FnDesc::new("add", PARAMS, &I64, "Adds.\0With a NUL.");
        let neg = FnDesc::new("neg", &PARAMS[..1], &I64, "").with_global("lib.neg");
        let mut section = record(&add);
        section.extend([0, 0, 0]);
        section.extend(record(&neg));
        let records = parse_export_records(&section).unwrap();
        let want = |f: &FnDesc| ExportRecord {
            name: f.name.to_owned(),
            global: f.global.map(str::to_owned),
            metadata: f.metadata_json(),
            signature: crate::reflect::writer::Writer::render(|w| crate::__private::fn_signature_text(w, f)),
            doc: f.doc.to_owned(),
        };
        assert_eq!(records, [want(&add), want(&neg)]);
        assert_eq!(records[0].doc, "Adds.\0With a NUL.");
        assert_eq!(parse_export_records(&[0; 8]).unwrap(), []);
    }

    #[test]
    fn damaged_records_say_what_is_wrong_and_where() {
        let good = record(&FnDesc::new("add", PARAMS, &I64, "Adds."));
        let err = |bytes: &[u8]| parse_export_records(bytes).unwrap_err().message().to_owned();
        // Cut anywhere: an error, never a panic or a record made up (under Miri, where
        // each cut takes tens of milliseconds, the header's cuts and one in 16 after).
        for cut in (1..good.len()).filter(|&cut| !cfg!(miri) || cut < 12 || cut % 16 == 0) {
            let e = err(&good[..cut]);
            assert!(e.starts_with("the export record at byte 0 "), "{cut}: {e}");
        }
        assert!(err(&good[..5]).contains("cut short before its body length"), "{}", err(&good[..5]));
        let mut long = good.clone();
        long[5] = 0xff; // the body length's low byte, after "add\0\0"
        assert!(err(&long).contains("says its body is"), "{}", err(&long));
        let mut bad_name = good.clone();
        bad_name[0] = b'-';
        assert!(err(&bad_name).contains("no C identifier"), "{}", err(&bad_name));
        let mut not_utf8 = good.clone();
        let last_text_byte = not_utf8.len() - 2;
        not_utf8[last_text_byte] = 0xff;
        assert!(err(&not_utf8).contains("docstring that is not UTF-8"), "{}", err(&not_utf8));
        let mut second = good.clone();
        second.extend_from_slice(b"x\0\0\x01\0\0\0");
        assert!(err(&second).starts_with(&format!("the export record at byte {} ", good.len())), "{}", err(&second));
    }
}
