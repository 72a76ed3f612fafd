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

#![warn(missing_docs)]

pub mod any;
pub mod array;
pub mod boundary;
pub mod call_arg;
pub mod convert;
pub mod dtype;
pub mod error;
pub mod exports;
pub mod function;
pub mod host;
pub mod import;
pub mod library;
pub mod map;
pub mod object;
pub mod reflect;
pub mod shape;
pub mod static_str;
pub mod string;
pub mod tensor;
pub mod type_index;
pub mod typed;

pub use any::{Any, AnyView, RawAny};
pub use array::Array;
pub use call_arg::IntoArg;
pub use convert::{AbiStruct, AbiType, ConvError, Expand, FromAny, FromArg, IntoAny, ListItem, ReturnValue};
pub use dtype::{DataType, Device};
pub use error::{Error, Result};
pub use exports::{exports, find_export, Export};
pub use function::{Function, FunctionRef, SafeCall};
pub use import::{Bound, ImportSource};
pub use library::Library;
pub use map::Map;
pub use object::ObjectRef;
pub use reflect::TypeDesc;
pub use shape::Shape;
pub use string::{Bytes, Str};
pub use tensor::{DLTensor, Element, Tensor, TensorView};
pub use typed::{Signature, TypedFunction};

pub use abi_macros::{export_fn, import, AbiStruct};

/// Glue for generated code. Not a public API: it may change in any release.
#[doc(hidden)]
pub mod __private {
    pub use crate::boundary::{checked_slots, ffi_boundary, run_export, try_fast_call, CallError};
    pub use crate::call_arg::ArgSlot;
    pub use crate::convert::ReturnError;
    pub use crate::exports::{Export, EXPORTS};
    pub use crate::import::{absent, bad_arg, bad_result, Binder};
    pub use crate::reflect::{leaf_count, FieldDesc, FnDesc, ParamDesc, StructDesc, TypeDesc, Writer};
    pub use crate::static_str::StaticStr;
    pub use linkme;

    use crate::any::RawAny;
    use crate::reflect::fn_metadata_json;

    /// Length of the metadata JSON of `f`, plus its NUL.
    pub const fn metadata_len(f: &FnDesc) -> usize {
        let mut w = Writer::new(&mut []);
        fn_metadata_json(&mut w, f);
        w.len() + 1
    }

    /// The metadata JSON of `f`, NUL-terminated, in an array of [`metadata_len`] bytes.
    pub const fn metadata_bytes<const N: usize>(f: &FnDesc) -> [u8; N] {
        let mut buf = [0u8; N];
        let mut w = Writer::new(&mut buf);
        fn_metadata_json(&mut w, f);
        assert!(w.len() + 1 == N, "metadata length changed between passes");
        buf
    }

    /// The elements of a struct passed as a tuple: an Array/List of exactly `len` items.
    #[inline]
    pub fn struct_items<'a>(
        v: &'a crate::AnyView<'a>,
        desc: &'static TypeDesc,
        name: &'static str,
        len: usize,
    ) -> Result<&'a [crate::AnyView<'a>], crate::ConvError> {
        let ty = v.type_index();
        if ty != crate::type_index::ARRAY && ty != crate::type_index::LIST {
            return Err(crate::ConvError::mismatch(desc, ty));
        }
        // SAFETY: an Array/List object borrowed by the view for 'a.
        let items = unsafe { crate::array::seq_slice(v.raw().ptr().cast()) };
        if items.len() != len {
            return Err(crate::ConvError::Length { what: name, expected: len, got: items.len() });
        }
        Ok(items)
    }

    /// Names the field a conversion failure happened in.
    #[cold]
    pub fn in_field(owner: &'static str, field: &'static str, inner: crate::ConvError) -> crate::ConvError {
        crate::ConvError::Field { owner, field, inner: Box::new(inner) }
    }

    /// A struct's fields, in declaration order, as one Array object.
    pub fn struct_any(fields: Vec<crate::Any>) -> crate::Any {
        crate::Array::new(fields).as_object().clone().into_any()
    }

    /// Compile-time check that `#[abi(expand)]` names a derived struct.
    #[inline(always)]
    pub const fn assert_abi_struct<T: crate::AbiStruct>() {}

    /// Returns a static string from a packed function.
    ///
    /// # Safety
    /// `result` is null or writable.
    pub unsafe fn return_static_str(s: &'static StaticStr, result: *mut RawAny) -> i32 {
        // SAFETY: forwarded from the caller.
        unsafe { ffi_boundary(result, || Ok(crate::Any::from_raw(s.to_raw_any()))) }
    }
}
