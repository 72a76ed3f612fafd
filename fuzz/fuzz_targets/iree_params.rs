//! IREE module parameters (`lib.so@entry?abi.messages=off&abi.mapping=off`): creating a
//! module with any keys and values (any bytes, UTF-8 or not) and any interface version is
//! a module or a status with its message, never a panic. A failure is INVALID_ARGUMENT for
//! a parameter, FAILED_PRECONDITION for the version.
#![no_main]

use abi_core::iree::abi::{StringPair, StringView};
use abi_core::iree::module::{create, INTERFACE_VERSION};
use abi_core::iree::status::{code, status_code, take_message};
use libfuzzer_sys::fuzz_target;

fn view(bytes: &[u8]) -> StringView {
    StringView { data: bytes.as_ptr(), size: bytes.len() }
}

fuzz_target!(|input: (bool, u32, Vec<(Vec<u8>, Vec<u8>)>)| {
    let (current, other_version, pairs) = input;
    let version = if current { INTERFACE_VERSION } else { other_version };
    let params: Vec<StringPair> = pairs.iter().map(|(k, v)| StringPair { key: view(k), value: view(v) }).collect();
    let mut module = std::ptr::null_mut();
    // SAFETY: `params` holds `params.len()` pairs of live views; `module` is writable.
    let status = unsafe { create("fuzz", version, params.len(), params.as_ptr(), &mut module) };
    if status == 0 {
        assert!(!module.is_null());
        // SAFETY: a module `create` made, destroyed once, as the host does.
        unsafe { ((*module).destroy)((*module).self_) };
        return;
    }
    let expected = if version == INTERFACE_VERSION { code::INVALID_ARGUMENT } else { code::FAILED_PRECONDITION };
    assert_eq!(status_code(status), expected);
    // SAFETY: a status `create` returned, not used afterwards.
    let message = unsafe { take_message(status) }.expect("a failed creation carries its message");
    assert!(message.contains("module `fuzz`"), "{message}");
});
