//! Reflection read back: published metadata (`type_schema` in both its forms,
//! `arg_names`, `iree.abi`, the compact `signature`) parsed into one typed model and
//! printed back, and the compatibility relation bind checks, the `abi` tool's `diff` and
//! stub generation share. Plain data over `serde_json`: no runtime.

mod classes;
mod compat;
mod export_records;
mod iree_record;
mod iree_records;
mod metadata;
mod op;
mod types;

pub use classes::{parse_class_records, Class, Field, Method};
pub use compat::{check_binding, Mismatch};
pub use export_records::{parse_export_records, ExportRecord};
pub use iree_record::{IreeArg, IreeFn, IreeType};
pub use iree_records::{parse_iree_records, IreeFunctionRecord, IreeModule, IreeRecords};
pub use metadata::{parse_listing, python_literal, Metadata, VERSION_KEY};
pub use op::{OpInfo, OpOutputInfo, ShapeDim, ShapeRule};
pub use types::{FloatWidth, FnForm, FnType, IntWidth, TensorType, TypeSchema, Width};

/// Why published metadata could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchemaError {
    message: String,
}

impl SchemaError {
    /// An error with `message`.
    pub fn new(message: impl Into<String>) -> SchemaError {
        SchemaError { message: message.into() }
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The same error, saying where it was found.
    pub fn context(self, place: &str) -> SchemaError {
        SchemaError { message: format!("{place}: {}", self.message) }
    }
}

impl core::fmt::Display for SchemaError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for SchemaError {}
