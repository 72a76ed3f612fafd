//! The export records section (`abi_export_records`) as a file may hold it: a list of
//! records or an error, never a panic; what reads prints back.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(records) = abi_core::schema::parse_export_records(data) {
        assert!(records.len() <= abi_core::schema::limits::RECORDS);
        for r in records {
            // Metadata is read from each record as `abi` reads it.
            if let Ok(meta) = abi_core::schema::Metadata::parse(&r.metadata) {
                let _ = meta.python_signature(&r.name);
            }
        }
    }
});
