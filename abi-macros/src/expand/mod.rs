//! Code generation; reads only the model.

pub mod abi_enum;
pub mod abi_error;
pub mod abi_struct;
pub mod at_load;
pub mod class_records;
pub mod default_value;
pub mod export_fn;
mod fallback_impls;
pub mod import;
pub mod iree;
pub mod methods;
pub mod object;
pub mod op;
pub mod packed;
