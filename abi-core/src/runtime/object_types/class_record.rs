//! The reflection records of object types and error types, rendered at compile time into
//! the section `abi_shared::CLASS_RECORDS_SECTION` (docs/ABI.md section 10), so tools such
//! as `abi stubs` read a library's classes, fields, methods and error kinds from the file
//! without running it. One NUL-terminated JSON text per class, per method and per error
//! type; the format version is `abi_shared::METADATA_VERSION`.

use abi_shared::class_record as key;

use crate::convert::errors::ErrorDesc;
use crate::reflect::render::{fn_metadata_json, type_schema};
use crate::reflect::writer::Writer;
use crate::reflect::FnDesc;
use crate::runtime::object_types::class::ClassSpec;

/// Writes `{"record":"class","type_key":..,"parent":..,"doc":..,"fields":[..],"abi.version":1}`:
/// each reflected field with its `type_schema` (a JSON text, as in tvm-ffi's field
/// metadata), whether it is writable, and its docs.
pub const fn class_record(w: &mut Writer, spec: &ClassSpec) {
    w.byte(b'{');
    string_entry(w, key::RECORD, key::CLASS);
    w.byte(b',');
    string_entry(w, key::TYPE_KEY, spec.key);
    w.byte(b',');
    string_entry(w, key::PARENT, spec.parent_key);
    w.byte(b',');
    string_entry(w, key::DOC, spec.doc);
    w.byte(b',');
    name(w, key::FIELDS);
    w.byte(b'[');
    let mut i = 0;
    while i < spec.fields.len() {
        let field = &spec.fields[i];
        if i > 0 {
            w.byte(b',');
        }
        w.byte(b'{');
        string_entry(w, key::NAME, field.name);
        w.byte(b',');
        name(w, key::TYPE_SCHEMA);
        w.byte(b'"');
        w.push_level();
        type_schema(w, field.ty);
        w.pop_level();
        w.str("\",");
        name(w, key::WRITABLE);
        w.str(if field.setter.is_some() { "true" } else { "false" });
        w.byte(b',');
        string_entry(w, key::DOC, field.doc);
        w.byte(b'}');
        i += 1;
    }
    w.str("],");
    version(w);
}

/// Writes `"key":`.
const fn name(w: &mut Writer, key: &str) {
    w.json_string(key);
    w.byte(b':');
}

/// Writes `"key":"value"` (escaped).
const fn string_entry(w: &mut Writer, key: &str, value: &str) {
    name(w, key);
    w.json_string(value);
}

/// Writes `{"record":"method","class":..,"name":..,"static":..,"doc":..,"metadata":{..},"abi.version":1}`:
/// the reflected name (`__ffi_init__` for the constructor) and the method's metadata as its
/// export would publish it (the receiver is not a parameter).
pub const fn method_record(w: &mut Writer, class_key: &str, method: &str, is_static: bool, f: &FnDesc) {
    w.byte(b'{');
    string_entry(w, key::RECORD, key::METHOD);
    w.byte(b',');
    string_entry(w, key::CLASS, class_key);
    w.byte(b',');
    string_entry(w, key::NAME, method);
    w.byte(b',');
    name(w, key::STATIC);
    w.str(if is_static { "true" } else { "false" });
    w.byte(b',');
    string_entry(w, key::DOC, f.doc);
    w.byte(b',');
    name(w, key::METADATA);
    fn_metadata_json(w, f);
    w.byte(b',');
    version(w);
}

/// Writes `{"record":"error","name":..,"doc":..,"kinds":[{"variant":..,"kind":..,"base":..,"doc":..}],"abi.version":1}`:
/// a derived error type's kinds in declaration order.
pub const fn error_record(w: &mut Writer, e: &ErrorDesc) {
    w.byte(b'{');
    string_entry(w, key::RECORD, key::ERROR);
    w.byte(b',');
    string_entry(w, key::NAME, e.name);
    w.byte(b',');
    string_entry(w, key::DOC, e.doc);
    w.byte(b',');
    name(w, key::KINDS);
    w.byte(b'[');
    let mut i = 0;
    while i < e.kinds.len() {
        let k = &e.kinds[i];
        if i > 0 {
            w.byte(b',');
        }
        w.byte(b'{');
        string_entry(w, key::VARIANT, k.variant);
        w.byte(b',');
        string_entry(w, key::KIND, k.kind());
        w.byte(b',');
        string_entry(w, key::BASE, k.base);
        w.byte(b',');
        string_entry(w, key::DOC, k.doc);
        w.byte(b'}');
        i += 1;
    }
    w.str("],");
    version(w);
}

/// Length of an error type's record with its terminating NUL.
pub const fn error_record_len(e: &ErrorDesc) -> usize {
    let mut count = Writer::new(&mut []);
    error_record(&mut count, e);
    count.len() + 1
}

/// An error type's record rendered at compile time into [`error_record_len`] bytes.
pub const fn error_record_bytes<const N: usize>(e: &ErrorDesc) -> [u8; N] {
    let mut buf = [0u8; N];
    let mut w = Writer::new(&mut buf);
    error_record(&mut w, e);
    assert!(w.len() + 1 == N, "record length changed between passes");
    buf
}

const fn version(w: &mut Writer) {
    name(w, abi_shared::VERSION_KEY);
    w.uint(abi_shared::METADATA_VERSION as usize);
    w.byte(b'}');
}

/// Length of a class's record with its terminating NUL.
pub const fn class_record_len(spec: &ClassSpec) -> usize {
    let mut count = Writer::new(&mut []);
    class_record(&mut count, spec);
    count.len() + 1
}

/// A class's record rendered at compile time into [`class_record_len`] bytes.
pub const fn class_record_bytes<const N: usize>(spec: &ClassSpec) -> [u8; N] {
    let mut buf = [0u8; N];
    let mut w = Writer::new(&mut buf);
    class_record(&mut w, spec);
    assert!(w.len() + 1 == N, "record length changed between passes");
    buf
}

/// Length of a method's record with its terminating NUL.
pub const fn method_record_len(class_key: &str, name: &str, is_static: bool, f: &FnDesc) -> usize {
    let mut count = Writer::new(&mut []);
    method_record(&mut count, class_key, name, is_static, f);
    count.len() + 1
}

/// A method's record rendered at compile time into [`method_record_len`] bytes.
pub const fn method_record_bytes<const N: usize>(class_key: &str, name: &str, is_static: bool, f: &FnDesc) -> [u8; N] {
    let mut buf = [0u8; N];
    let mut w = Writer::new(&mut buf);
    method_record(&mut w, class_key, name, is_static, f);
    assert!(w.len() + 1 == N, "record length changed between passes");
    buf
}
