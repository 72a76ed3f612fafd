//! The class records section (`abi_class_records`): classes or an error, never a panic;
//! each class's types and methods print as Python reads them.
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
});
