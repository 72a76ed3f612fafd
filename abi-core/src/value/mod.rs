//! The value model: objects and the strong/weak reference protocol, the owning and
//! borrowed `Any`, integers beyond i64, strings and bytes, errors, arrays, shapes and
//! tensors. Uses only the C contract ([`crate::ffi`]) and the reflection types that
//! describe values.

pub mod any;
pub mod array;
pub(crate) mod big_int;
pub mod conv_error;
pub mod error;
pub mod object;
pub mod shape;
pub mod string;
