//! A function's metadata JSON (`type_schema` in both forms, `arg_names`, `iree.abi`,
//! `abi.defaults`) read into the type model: a model or an error, never a panic. A model
//! prints back as JSON this reader reads again to the same model, and compares with
//! itself as bind checks and `abi diff` compare.
#![no_main]

use abi_core::schema::{check_binding, Metadata};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(meta) = Metadata::parse(text) else { return };
    let _ = meta.python_signature("f");
    let _ = meta.required_args();
    let again = Metadata::parse(&meta.to_json()).expect("the model's own JSON reads back");
    assert_eq!(again.to_json(), meta.to_json(), "the JSON of the model read back is the same");
    if let Some(f) = &meta.type_schema {
        assert!(check_binding(f, f, meta.required_args()).is_empty(), "a signature binds to itself");
    }
});
