//! The host bridge and the call boundary: where the runtime services live (a tvm-ffi
//! host's, or the embedded ones), the thread's error slot, the panic guard every packed
//! call goes through, Function objects, the global registry, and maps (whose layout
//! belongs to the runtime that made them), the table that gives a process one runtime, and
//! user object types with their strong and weak handles.

pub mod attach;
pub mod boundary;
pub mod class;
pub mod class_record;
pub mod error_slot;
pub mod export_entry;
pub mod function;
pub mod host;
pub mod linked;
pub mod map;
pub mod obj;
mod pending;
pub mod pin;
pub mod registry;
pub mod type_table;
pub mod weak_obj;
