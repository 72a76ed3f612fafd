//! # abi-core
//!
//! The runtime of **abi**: the Apache TVM FFI value model in pure Rust. [`Any`] and
//! [`AnyView`] are the 16-byte `TVMFFIAny`; objects ([`Str`], [`Bytes`], [`Error`],
//! [`Function`], [`Shape`], [`Tensor`], [`Array`], [`Map`]) use the C object header and
//! the strong/weak reference protocol, so hosts (the `tvm_ffi` Python package, C++ tvm-ffi,
//! other Rust code) and this crate can create, hold and release each other's objects.
//!
//! Conversions between Rust values and `Any` ([`FromArg`], [`IntoAny`]) carry their
//! reflection as constants ([`AbiType::DESC`]), which the `#[export_fn]` macro renders into
//! metadata at compile time.
//!
//! When a tvm-ffi runtime is in the process, errors and global functions go through it
//! (see [`host`]); otherwise an embedded runtime does the same job.
//!
//! The source is layered, each folder using only itself and the folders before it:
//! `sys` (the platform layer: what differs between operating systems and object formats),
//! `ffi` (the C contract as plain data), `reflect` (type descriptions and their texts),
//! `schema` (the type model read back from published metadata, and type compatibility),
//! `value` (objects, `Any`, strings, errors, arrays, shapes), `runtime` (where the runtime
//! services live and how a process shares one; the call boundary, error slot, functions and
//! global registry; user object types), `env` (the caller's streams, tensor allocator and
//! signals), `tensor` (views, owned and typed tensors), `convert` (Rust values to and from
//! `Any`, typed callbacks), `link` (exports, libraries, typed imports), `iree` (the same
//! functions as an IREE VM dynamic module).

#![warn(missing_docs)]

pub mod env;
pub mod ffi;
pub mod iree;
pub mod reflect;
pub mod schema;

mod convert;
#[cfg(feature = "python-door")]
mod door;
mod link;
mod runtime;
mod sys;
mod tensor;
mod value;

#[doc(hidden)]
pub mod __private;

/// The `half` crate, whose `f16` and `bf16` are tensor elements and scalars here: use it
/// through this path so its version is the one abi-core was built with.
pub use half;

pub use convert::call_arg::IntoArg;
pub use convert::mutable::{Dict, List};
pub use convert::typed::{Signature, TypedFunction};
pub use convert::variant::{Variant2, Variant3, Variant4};
pub use convert::{AbiEnum, AbiError, AbiStruct, AbiType, Expand, FromAny, FromArg, IntoAny, ListItem, ReturnValue};
pub use ffi::{DLTensor, DataType, Device, RawAny, SafeCall};
pub use link::bound::Bound;
pub use link::exports::{exports, find_export, Export};
pub use link::import::ImportSource;
pub use link::library::Library;
pub use reflect::TypeDesc;
pub use runtime::calls::function::{Function, FunctionRef};
pub use runtime::object_types::class::Object;
pub use runtime::object_types::obj::Obj;
pub use runtime::object_types::reflected::Reflected;
pub use runtime::object_types::weak_obj::WeakObj;
pub use runtime::process::map::Map;
pub use schema::Metadata;
pub use tensor::cast::{CastElement, HostTensorAs};
pub use tensor::strided::{StridedTensor, StridedTensorMut};
pub use tensor::typed::{DeviceTensor, DeviceTensorMut, HostTensor, HostTensorMut, TensorViewMut};
pub use tensor::uninit::UninitTensor;
pub use tensor::{Element, Tensor, TensorView};
pub use value::any::{Any, AnyView};
pub use value::array::Array;
pub use value::conv_error::{ConvError, Number};
pub use value::error::{kind, Error, Result};
pub use value::object::{ObjectHandle, ObjectRef};
pub use value::shape::Shape;
pub use value::string::{Bytes, Str};

pub use abi_macros::{export_fn, import, methods, AbiEnum, AbiError, AbiStruct, Object};

/// The runtime services: the thread's error slot, the global registry and the type table
/// (a tvm-ffi host's when one is in the process, embedded otherwise), and the C entries
/// that let a caller without tvm-ffi take this library's errors.
pub mod host {
    pub use crate::link::import::global_metadata;
    pub use crate::runtime::calls::error_slot::{
        abi_error_move_from_raised, abi_error_set_raised, set_raised, take_raised, take_raised_after,
    };
    pub use crate::runtime::calls::globals::{
        embedded_global_names, get_global, register_global, register_global_with_info, register_linked_globals,
    };
    pub use crate::runtime::object_types::type_registry::type_api;
    pub use crate::runtime::process::discovery::{has_tvm_ffi_runtime, tvm_ffi_in_process};
}

/// The object-reference protocol for code that handles raw object pointers (hand-written
/// packed functions, tests): counting, and allocating objects whose memory Rust manages.
pub mod object {
    pub use crate::value::object::{dec_ref, inc_ref, new_object, strong_count};
}
