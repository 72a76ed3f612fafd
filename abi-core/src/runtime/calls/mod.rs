//! Calls: the boundary every exported call crosses ([`boundary`]: counts, pointers, the
//! panic guard), the thread's error slot ([`error_slot`]) and errors formatted only when
//! read ([`pending`]), the export registry entry ([`export_entry`]), Function objects
//! ([`function`]) and the global function registry ([`globals`]).

pub mod boundary;
pub mod error_slot;
pub mod export_entry;
pub mod function;
pub mod globals;
mod pending;
