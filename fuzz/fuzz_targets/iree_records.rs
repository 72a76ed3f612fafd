//! The IREE records section (`abi_iree_records`): modules and functions, or an error,
//! never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = abi_core::schema::parse_iree_records(data);
});
