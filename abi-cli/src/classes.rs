//! Reading a library's object classes from the file: the records `#[derive(Object)]` and
//! `#[methods]` place in the section `abi_shared::CLASS_RECORDS_SECTION` (docs/ABI.md
//! section 10), NUL-terminated JSON texts rendered at compile time, parsed by
//! `abi_core::schema`. No library code runs.

use abi_core::schema::Class;
use object::{Object, ObjectSection};

/// The classes a library file declares, sorted by type key; none when it has no records.
pub fn read(file: &object::File<'_>) -> Result<Vec<Class>, String> {
    let Some(section) = file.section_by_name(abi_shared::CLASS_RECORDS_SECTION) else {
        return Ok(Vec::new());
    };
    let data = section.data().map_err(|e| format!("unreadable class records: {e}"))?;
    abi_core::schema::parse_class_records(data).map_err(|e| e.message().to_owned())
}
