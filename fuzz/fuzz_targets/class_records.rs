//! The class records section (`abi_class_records`): classes and error types or an error,
//! never a panic; each class's types and methods print as Python reads them.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(classes) = abi_core::schema::parse_class_records(data) {
        for class in classes {
            for field in &class.fields {
                let _ = field.ty.python();
            }
            for method in &class.methods {
                let _ = method.metadata.python_signature(&method.name);
            }
        }
    }
    if let Ok(errors) = abi_core::schema::parse_error_records(data) {
        let _ = errors.iter().map(|e| e.kinds.len()).sum::<usize>();
    }
});
