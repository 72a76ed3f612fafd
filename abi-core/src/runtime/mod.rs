//! The runtime, in three groups: [`process`] (where the runtime services live, a tvm-ffi
//! host's or the embedded ones, and how every abi library of a process shares one),
//! [`calls`] (the boundary every packed call crosses, its errors, Function objects and the
//! global registry) and [`object_types`] (user object types, their strong and weak
//! handles, the type table and the class records).

pub mod calls;
pub mod object_types;
pub mod process;
