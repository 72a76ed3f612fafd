//! The reading code of the `abi` command as a library, so fuzz targets and tests can reach
//! it without running the binary: a library file read without loading it ([`read`], with
//! each object format's places in [`formats`] and the class records in [`classes`]), and
//! the Python package `abi stubs` writes from what was read ([`stubs`]). The command itself
//! (`src/main.rs`) parses its arguments and calls these.

pub mod classes;
pub mod formats;
pub mod read;
pub mod stubs;
