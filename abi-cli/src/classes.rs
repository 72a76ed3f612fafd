//! Reading a library's object classes and error types from the file: the records
//! `#[derive(Object)]`, `#[methods]` and `#[derive(AbiError)]` place in the class records
//! section (`abi_shared::CLASS_RECORDS_SECTION`, or its Mach-O or PE name; docs/ABI.md
//! section 10), NUL-terminated JSON texts rendered at compile time, parsed by
//! `abi_core::schema`. No library code runs.

use abi_core::schema::{Class, ErrorType};

use crate::formats::{self, Records};

/// The classes a library file declares, sorted by type key, and its error types, sorted by
/// name; none when it has no records.
pub fn read(file: &object::File<'_>) -> Result<(Vec<Class>, Vec<ErrorType>), String> {
    let Some(data) = formats::records(file, Records::Classes)? else { return Ok((Vec::new(), Vec::new())) };
    let classes = abi_core::schema::parse_class_records(data).map_err(|e| e.message().to_owned())?;
    let errors = abi_core::schema::parse_error_records(data).map_err(|e| e.message().to_owned())?;
    Ok((classes, errors))
}
