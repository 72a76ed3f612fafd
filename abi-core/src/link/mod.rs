//! Linking: the exports linked into this binary, shared libraries on disk, resolved packed
//! functions, and typed imports bound from a library, the registry or this binary.

pub mod bound;
pub mod exports;
pub mod import;
pub mod library;
