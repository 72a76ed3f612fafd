//! Conversions between Rust values and [`Any`]/[`AnyView`]. Every type carries its
//! reflection as a constant ([`AbiType::DESC`]); argument conversion inlines a compare
//! against the type's constant index and leaves everything else to cold code.

pub mod call_arg;
mod containers;
pub mod default_range;
pub mod enums;
pub mod errors;
pub mod export_call;
pub mod mutable;
pub mod objects;
mod overlap;
mod scalars;
mod strings;
pub mod tagged;
mod tensors;
pub mod typed;
pub mod variant;

pub use crate::value::any::{AbiType, FromAny, IntoAny};
pub use enums::AbiEnum;
pub use errors::AbiError;
pub use strings::{SliceElement, SliceParam};

use crate::convert::export_call::Slots;
use crate::ffi::RawAny;
use crate::reflect::type_texts::TypeTexts;
use crate::reflect::{Access, ExactSlot, TypeDesc};
use crate::value::any::{Any, AnyView};
use crate::value::conv_error::{ConvError, ReturnError};
use crate::value::error::Error;

/// Converts an argument slot into `Self`, borrowing from it for `'a` where possible.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be received as an ABI argument",
    label = "unsupported parameter type",
    note = "supported: bool, integers, floats, &str, String, &[u8], Vec<u8>, Option<T>, Vec<T>, tuples, maps, Any, AnyView, TensorView, Tensor, Function, derived structs, and `&T` or `Obj<T>` of object types"
)]
pub trait FromArg<'a>: AbiType + Sized {
    /// `AbiType::DESC`, [`FromArg::HAS_FAST_PATH`] and [`FromArg::ACCESS`], reachable
    /// through this trait so that generated code naming a parameter type reports an
    /// unsupported one once, as a parameter problem.
    #[doc(hidden)]
    const PARAM: (&'static TypeDesc, Option<ExactSlot>, Access) =
        (<Self as AbiType>::DESC, if Self::HAS_FAST_PATH { Some(exact_slot_of::<Self>) } else { None }, Self::ACCESS);

    /// This type's pieces of an export's texts, rendered once per crate.
    #[doc(hidden)]
    const TEXTS: TypeTexts = TypeTexts::of(Self::PARAM.0);

    /// What a parameter of this type may do to tensor memory, for the shim's overlap check.
    #[doc(hidden)]
    const ACCESS: Access = Access::None;

    /// Converts; the success path is a type-index compare and a load.
    fn from_arg(v: &'a AnyView<'a>) -> Result<Self, ConvError>;

    /// Converts a parameter whose memory the export's shim checked: for every type but
    /// `HostTensorMut` the same as [`FromArg::from_arg`].
    ///
    /// # Safety
    /// For a type of [`Access::Exclusive`], no other argument of the call overlaps `v`'s
    /// memory (the shim's overlap check ran), and `v` is converted once: what holding
    /// [`Slots`] vouches for.
    #[doc(hidden)]
    #[inline(always)]
    unsafe fn from_checked_arg(v: &'a AnyView<'a>) -> Result<Self, ConvError> {
        Self::from_arg(v)
    }

    /// Whether [`FromArg::fast_path`] can ever succeed; when every parameter of an export
    /// has one, its shim tries them first and leaves everything else to the full path.
    #[doc(hidden)]
    const HAS_FAST_PATH: bool = false;

    /// Whether every value [`FromArg::fast_path`] accepts is plain data, holding no object
    /// reference, so that a result it converted needs no release
    /// ([`FromAny::from_result`]).
    #[doc(hidden)]
    const FAST_PATH_PLAIN: bool = true;

    /// The exact-type conversion with no fallback and no error: `None` sends the call to
    /// the full conversion (which reports the error, if any). For owned scalar types it
    /// only matches plain-data type indices; types whose fast path is their whole
    /// conversion without its errors (`Vec<T>`) say so with [`FromArg::FAST_PATH_PLAIN`];
    /// borrowed `&T` of object types, never results, match their object type.
    #[doc(hidden)]
    #[inline(always)]
    fn fast_path(v: &'a AnyView<'a>) -> Option<Self> {
        let _ = v;
        None
    }

    /// For a type with a fast path: converts `v` as [`FromArg::from_arg`] does and returns
    /// the exact-type slot that [`FromArg::fast_path`] maps to the same value, so that one
    /// shared fallback can coerce a call's arguments and take the export's fast path again
    /// (`boundary::retry_exact`). The slot is plain data, or borrows what `v` points to.
    #[doc(hidden)]
    fn exact_slot(v: &'a AnyView<'a>) -> Result<RawAny, ConvError> {
        Err(ConvError::mismatch(Self::DESC, v.type_index()))
    }

    /// Converts slot `slot` in an export's pass of mode `M`. Generated code calls it as
    /// `<T as FromArg>::convert`, the same path kind as [`FromArg::PARAM`], so an
    /// unsupported type is reported once.
    #[doc(hidden)]
    #[inline(always)]
    fn convert<M: export_call::Mode>(slots: &'a Slots<'a>, slot: usize) -> Result<Self, M::Stop> {
        M::arg::<Self>(slots, slot)
    }
}

/// [`FromArg::exact_slot`] of `T` as a plain function pointer ([`ExactSlot`]).
///
/// # Safety
/// `v` is a valid argument slot; what it points to outlives every use of the result.
unsafe fn exact_slot_of<'a, T: FromArg<'a>>(v: &RawAny) -> Result<RawAny, ConvError> {
    // SAFETY: `AnyView` is a transparent `RawAny`; the caller vouches that what `v` points to
    // outlives every use of what it returns, which is all that borrows from it.
    T::exact_slot(unsafe { &*(v as *const RawAny).cast::<AnyView<'a>>() })
}

// Reported as `FromAny`, not as the `FromArg` bound, so that each mention of an
// unsupported type in generated code gives the same single error.
#[diagnostic::do_not_recommend]
impl<T: for<'a> FromArg<'a>> FromAny for T {
    const RESULT: &'static TypeDesc = T::DESC;

    #[inline]
    fn from_any(v: AnyView<'_>) -> Result<T, ConvError> {
        T::from_arg(&v)
    }

    #[inline(always)]
    fn from_result(out: Any) -> Result<T, ConvError> {
        if T::HAS_FAST_PATH {
            if let Some(v) = T::fast_path(&out.view()) {
                if T::FAST_PATH_PLAIN {
                    // Plain data: nothing to release, and saying so lets the optimiser drop
                    // the release check from the hot path.
                    core::mem::forget(out);
                }
                return Ok(v);
            }
        }
        T::from_arg(&out.view())
    }
}

/// A field of a derived struct: converts both ways. Generated code reaches every field
/// conversion through this one trait, so an unsupported field type is one error.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a field of an `AbiStruct` or of an `AbiEnum`'s variant",
    label = "unsupported field type",
    note = "a field converts both ways: supported are (), bool, integers, floats, String, Vec<u8>, Option<T>, Vec<T>, tuples, maps, Any, Tensor, Function, derived structs and derived enums",
    note = "borrowed types (`&str`, `&[u8]`, views) cannot be fields: a struct or variant owns its data"
)]
#[doc(hidden)]
pub trait StructField: Sized {
    /// The field's reflection.
    const FIELD: &'static TypeDesc;
    /// Converts the field's element of the struct's tuple.
    fn from_field(v: &AnyView<'_>) -> Result<Self, ConvError>;
    /// Converts the field into its element of the struct's tuple.
    fn into_field(self) -> Result<Any, ConvError>;
}

#[diagnostic::do_not_recommend]
impl<T: for<'a> FromArg<'a> + IntoAny> StructField for T {
    const FIELD: &'static TypeDesc = T::DESC;

    #[inline]
    fn from_field(v: &AnyView<'_>) -> Result<T, ConvError> {
        T::from_arg(v)
    }

    #[inline]
    fn into_field(self) -> Result<Any, ConvError> {
        self.into_any()
    }
}

/// Marks structs that derive `AbiStruct`: a C-like structure that crosses the boundary
/// as a tuple of its fields in declaration order.
#[diagnostic::on_unimplemented(
    message = "`#[abi(expand)]` requires a struct deriving `abi_core::AbiStruct`, not `{Self}`",
    label = "not a derived struct",
    note = "remove `#[abi(expand)]` to pass the value as one argument"
)]
pub trait AbiStruct: AbiType {}

/// A value that occupies consecutive argument slots when expanded (`#[abi(expand)]`):
/// scalars take one slot, derived structs one per leaf field, depth-first in declaration
/// order, with no allocation. Following Clang's "Expand", only scalar leaves qualify.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a leaf of an expanded struct",
    label = "not a scalar",
    note = "only bool, integers, floats and derived structs of those can be expanded; remove `#[abi(expand)]` to pass the struct as one tuple argument"
)]
pub trait Expand<'a>: Sized {
    /// Number of argument slots.
    const LEAVES: usize;
    /// Converts from exactly [`Expand::LEAVES`] slots; a failure names the slot within them.
    fn from_slots(slots: &'a [AnyView<'a>]) -> Result<Self, (u32, ConvError)>;

    /// Converts the leaves from slot `slot` in an export's pass of mode `M`, for an
    /// `#[abi(expand)]` parameter (which must be a derived struct).
    #[doc(hidden)]
    #[inline(always)]
    fn convert<M: export_call::Mode>(slots: &'a Slots<'a>, slot: usize) -> Result<Self, M::Stop>
    where
        Self: AbiStruct,
    {
        M::expand::<Self>(slots, slot)
    }
}

/// Marks types that can be elements of `Vec<T>`: every ABI type except `u8`, whose
/// vectors are bytes.
pub trait ListItem: AbiType {}

/// What an exported function may return: any [`IntoAny`] type, or `Result<T, E>` of one
/// with `E: Into<Error>`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from an exported function",
    label = "unsupported return type",
    note = "return an ABI type, or `Result<T, E>` where `E: Into<abi_core::Error>`",
    note = "an array goes back as a `Tensor` (`Tensor::from_vec`, `Tensor::empty`); the borrowed views (`HostTensor`, `TensorView`, ...) are parameters only"
)]
pub trait ReturnValue {
    /// The reflection of the success type.
    const DESC: &'static TypeDesc;
    /// The success type's pieces of an export's texts, rendered once per crate.
    #[doc(hidden)]
    const TEXTS: TypeTexts = TypeTexts::of(Self::DESC);
    /// Splits into the ABI value or the user's error.
    fn into_result(self) -> Result<Any, ReturnError>;

    /// [`ReturnValue::into_result`] for a shim's result going to `sink`.
    #[doc(hidden)]
    #[inline(always)]
    fn into_result_for(self, sink: crate::ffi::ResultSink) -> Result<Any, ReturnError>
    where
        Self: Sized,
    {
        let _ = sink;
        self.into_result()
    }

    /// The outcome of an export's pass (generated code calls it by the same path as
    /// [`ReturnValue::DESC`], so an unsupported type is reported once).
    #[doc(hidden)]
    #[inline(always)]
    fn into_outcome<M: export_call::Mode>(self, sink: crate::ffi::ResultSink) -> export_call::Outcome<M>
    where
        Self: Sized,
    {
        self.into_result_for(sink).map_err(|e| crate::runtime::calls::boundary::CallError::Return(e).into())
    }
}

impl<T: IntoAny> ReturnValue for T {
    const DESC: &'static TypeDesc = T::DESC;
    #[inline(always)]
    fn into_result(self) -> Result<Any, ReturnError> {
        self.into_any().map_err(ReturnError::Conv)
    }
    #[inline(always)]
    fn into_result_for(self, sink: crate::ffi::ResultSink) -> Result<Any, ReturnError> {
        self.into_result_any(sink).map_err(ReturnError::Conv)
    }
}

impl<T: IntoAny, E: Into<Error>> ReturnValue for Result<T, E> {
    const DESC: &'static TypeDesc = T::DESC;
    #[inline(always)]
    fn into_result(self) -> Result<Any, ReturnError> {
        match self {
            Ok(v) => v.into_any().map_err(ReturnError::Conv),
            Err(e) => Err(ReturnError::User(e.into())),
        }
    }
    #[inline(always)]
    fn into_result_for(self, sink: crate::ffi::ResultSink) -> Result<Any, ReturnError> {
        match self {
            Ok(v) => v.into_result_any(sink).map_err(ReturnError::Conv),
            Err(e) => Err(ReturnError::User(e.into())),
        }
    }
}

impl AbiType for Any {
    const DESC: &'static TypeDesc = &TypeDesc::Any;
}
impl ListItem for Any {}

impl<'a> FromArg<'a> for Any {
    const ACCESS: Access = Access::Cells;

    #[inline]
    fn from_arg(v: &'a AnyView<'a>) -> Result<Any, ConvError> {
        v.to_any()
    }
}

impl IntoAny for Any {
    #[inline(always)]
    fn into_any(self) -> Result<Any, ConvError> {
        Ok(self)
    }
}
call_arg::into_arg!(owned: [] Any);

impl AbiType for AnyView<'_> {
    const DESC: &'static TypeDesc = &TypeDesc::Any;
}

impl<'a> FromArg<'a> for AnyView<'a> {
    const ACCESS: Access = Access::Cells;

    #[inline(always)]
    fn from_arg(v: &'a AnyView<'a>) -> Result<AnyView<'a>, ConvError> {
        Ok(*v)
    }
}

/// An argument the export takes and never reads: the input copy of an op's in-place
/// tensor in its JAX-order entry point (`<name>__jax`), where jax-tvm-ffi passes the
/// aliased buffer both as an input and as an output. It is not converted, so it holds no
/// tensor the overlap check would compare with the output that shares its memory.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct IgnoredArg;

impl AbiType for IgnoredArg {
    const DESC: &'static TypeDesc = &TypeDesc::Any;
}

impl<'a> FromArg<'a> for IgnoredArg {
    #[inline(always)]
    fn from_arg(_: &'a AnyView<'a>) -> Result<IgnoredArg, ConvError> {
        Ok(IgnoredArg)
    }
}

impl IntoAny for AnyView<'_> {
    #[inline]
    fn into_any(self) -> Result<Any, ConvError> {
        self.to_any()
    }
}
