//! The IREE records tools read from a library's file (`abi_shared::IREE_RECORDS_SECTION`),
//! rendered at compile time: the module `iree_module!` creates, with its entry point, and
//! each `#[export_fn(iree)]` function with its calling convention. `abi inspect` lists
//! them, and says when a library has functions but no module, without running it.

use abi_shared::iree_record as key;

use crate::reflect::writer::Writer;

/// Writes `{"record":"iree.module","name":..,"entry":..,"abi.version":1}`.
pub const fn module_record(w: &mut Writer, name: &str, entry: &str) {
    open(w, key::MODULE, name);
    entry_text(w, key::ENTRY, entry);
    close(w);
}

/// Writes `{"record":"iree.function","name":..,"cconv":..,"abi.version":1}`.
pub const fn function_record(w: &mut Writer, name: &str, cconv: &[u8]) {
    open(w, key::FUNCTION, name);
    let cconv = match core::str::from_utf8(cconv) {
        Ok(text) => text,
        Err(_) => panic!("a calling convention is ASCII"),
    };
    entry_text(w, key::CCONV, cconv);
    close(w);
}

const fn open(w: &mut Writer, record: &str, name: &str) {
    w.byte(b'{');
    w.json_string(key::RECORD);
    w.byte(b':');
    w.json_string(record);
    entry_text(w, key::NAME, name);
}

// `,"key":"value"`.
const fn entry_text(w: &mut Writer, key: &str, value: &str) {
    w.byte(b',');
    w.json_string(key);
    w.byte(b':');
    w.json_string(value);
}

const fn close(w: &mut Writer) {
    w.byte(b',');
    w.json_string(abi_shared::VERSION_KEY);
    w.byte(b':');
    w.uint(abi_shared::METADATA_VERSION as usize);
    w.byte(b'}');
}

/// Length of a module's record with its terminating NUL.
pub const fn module_record_len(name: &str, entry: &str) -> usize {
    let mut count = Writer::new(&mut []);
    module_record(&mut count, name, entry);
    count.len() + 1
}

/// A module's record, rendered at compile time into [`module_record_len`] bytes.
pub const fn module_record_bytes<const N: usize>(name: &str, entry: &str) -> [u8; N] {
    let mut buf = [0u8; N];
    let mut w = Writer::new(&mut buf);
    module_record(&mut w, name, entry);
    assert!(w.len() + 1 == N, "record length changed between passes");
    buf
}

/// Length of a function's record with its terminating NUL.
pub const fn function_record_len(name: &str, cconv: &[u8]) -> usize {
    let mut count = Writer::new(&mut []);
    function_record(&mut count, name, cconv);
    count.len() + 1
}

/// A function's record, rendered at compile time into [`function_record_len`] bytes.
pub const fn function_record_bytes<const N: usize>(name: &str, cconv: &[u8]) -> [u8; N] {
    let mut buf = [0u8; N];
    let mut w = Writer::new(&mut buf);
    function_record(&mut w, name, cconv);
    assert!(w.len() + 1 == N, "record length changed between passes");
    buf
}
