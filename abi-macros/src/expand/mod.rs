//! Code generation; reads only the model.

pub mod export_fn;
