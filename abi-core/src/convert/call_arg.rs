//! Arguments of outgoing calls (typed imports, typed callbacks), packed on the stack:
//! scalars and borrowed values (`&str`, `&[u8]`, tensor views, function references) need
//! no heap allocation; owned values are converted into an [`Any`] held for the call.

use core::ffi::c_char;

use crate::convert::AbiType;
use crate::ffi::type_index as ti;
use crate::ffi::{ByteArray, RawAny};
use crate::reflect::TypeDesc;
use crate::runtime::calls::function::{Function, FunctionRef};
use crate::tensor::TensorView;
use crate::value::any::{Any, AnyView};
use crate::value::conv_error::ConvError;
use crate::value::string::{bytes_any, str_any};

/// Holds one packed argument for the duration of a call.
pub trait ArgSlot {
    /// The slot's value; pointers in it refer into `self`, so `self` must not move while
    /// the value is in use.
    fn raw(&self) -> RawAny;
}

/// A Rust value that can be passed to a packed function.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be passed to a packed function",
    label = "unsupported argument type",
    note = "supported: bool, integers, floats, &str, &[u8], String, Vec<u8>, Option<T>, Vec<T>, tuples, maps, Any, AnyView, TensorView, HostTensor, DeviceTensor, StridedTensor, Tensor, Function, FunctionRef, derived structs, `&Obj<T>` and `Obj<T>` of object types"
)]
pub trait IntoArg: AbiType {
    /// `AbiType::DESC`, reachable through this trait so that generated code naming an
    /// argument type reports an unsupported one once.
    #[doc(hidden)]
    const ARG: &'static TypeDesc = <Self as AbiType>::DESC;
    /// The holder kept alive during the call.
    type Slot: ArgSlot;
    /// Packs the value.
    fn into_slot(self) -> Result<Self::Slot, ConvError>;
}

impl ArgSlot for RawAny {
    #[inline(always)]
    fn raw(&self) -> RawAny {
        *self
    }
}

impl ArgSlot for Any {
    #[inline(always)]
    fn raw(&self) -> RawAny {
        *self.as_raw()
    }
}

impl<S: ArgSlot> ArgSlot for Option<S> {
    #[inline(always)]
    fn raw(&self) -> RawAny {
        self.as_ref().map_or(RawAny::NONE, S::raw)
    }
}

/// Longest string passed as a NUL-terminated stack copy (RawStr) before an object is made.
pub const STACK_STR_MAX: usize = 255;

/// A `&str` argument: inline up to 7 bytes, a NUL-terminated stack copy (RawStr) up to
/// [`STACK_STR_MAX`] bytes, a Str object beyond (or when the text holds a NUL).
// The large variant is the point: a stack copy instead of a heap allocation.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum StrSlot {
    /// Inline small string, or an owned Str object.
    Value(Any),
    /// A NUL-terminated copy.
    Stack {
        /// The bytes and the terminating NUL.
        buf: [u8; STACK_STR_MAX + 1],
    },
}

impl ArgSlot for StrSlot {
    #[inline(always)]
    fn raw(&self) -> RawAny {
        match self {
            StrSlot::Value(v) => *v.as_raw(),
            StrSlot::Stack { buf } => RawAny::from_ptr(ti::RAW_STR, buf.as_ptr() as *const c_char as *mut _),
        }
    }
}

impl IntoArg for &str {
    type Slot = StrSlot;
    #[inline]
    fn into_slot(self) -> Result<StrSlot, ConvError> {
        let b = self.as_bytes();
        if b.len() <= ti::SMALL_STR_MAX_LEN || b.len() > STACK_STR_MAX || b.contains(&0) {
            return Ok(StrSlot::Value(str_any(self)));
        }
        let mut buf = [0u8; STACK_STR_MAX + 1];
        buf[..b.len()].copy_from_slice(b);
        Ok(StrSlot::Stack { buf })
    }
}

/// A `&[u8]` argument: inline up to 7 bytes, else a borrowed ByteArrayPtr.
#[derive(Debug)]
pub struct BytesSlot {
    small: Option<RawAny>,
    array: ByteArray,
}

impl ArgSlot for BytesSlot {
    #[inline(always)]
    fn raw(&self) -> RawAny {
        match self.small {
            Some(r) => r,
            None => RawAny::from_ptr(ti::BYTE_ARRAY_PTR, core::ptr::from_ref(&self.array).cast_mut().cast()),
        }
    }
}

impl IntoArg for &[u8] {
    type Slot = BytesSlot;
    #[inline]
    fn into_slot(self) -> Result<BytesSlot, ConvError> {
        let small = (self.len() <= ti::SMALL_STR_MAX_LEN).then(|| bytes_any(self).into_raw());
        Ok(BytesSlot { small, array: ByteArray::from_slice(self) })
    }
}

/// Implements [`IntoArg`] next to a type's `IntoAny` impl, so the types that can be passed
/// and the types that can be returned are listed once: `plain` values own nothing and
/// pass as their raw form; `owned` values pass as their owned [`Any`], held for the call.
/// Only borrowed forms (below) pack differently from their `IntoAny`.
macro_rules! into_arg {
    (plain: $t:ty) => {
        impl $crate::convert::call_arg::IntoArg for $t {
            type Slot = $crate::ffi::RawAny;
            #[inline(always)]
            fn into_slot(self) -> Result<$crate::ffi::RawAny, $crate::value::conv_error::ConvError> {
                // Plain values own nothing, so the raw form outlives the Any.
                $crate::convert::IntoAny::into_any(self).map($crate::value::any::Any::into_raw)
            }
        }
    };
    (owned: [$($generics:tt)*] $t:ty) => {
        impl<$($generics)*> $crate::convert::call_arg::IntoArg for $t {
            type Slot = $crate::value::any::Any;
            #[inline]
            fn into_slot(self) -> Result<$crate::value::any::Any, $crate::value::conv_error::ConvError> {
                $crate::convert::IntoAny::into_any(self)
            }
        }
    };
}
pub(crate) use into_arg;

impl IntoArg for AnyView<'_> {
    type Slot = RawAny;
    #[inline(always)]
    fn into_slot(self) -> Result<RawAny, ConvError> {
        Ok(*self.raw())
    }
}

impl IntoArg for TensorView<'_> {
    type Slot = RawAny;
    #[inline(always)]
    fn into_slot(self) -> Result<RawAny, ConvError> {
        Ok(RawAny::from_ptr(ti::DL_TENSOR_PTR, core::ptr::from_ref(self.dl_tensor()).cast_mut().cast()))
    }
}

impl IntoArg for FunctionRef<'_> {
    type Slot = RawAny;
    #[inline(always)]
    fn into_slot(self) -> Result<RawAny, ConvError> {
        Ok(RawAny::from_ptr(ti::FUNCTION, self.as_ptr().cast()))
    }
}

impl IntoArg for &Function {
    type Slot = RawAny;
    #[inline(always)]
    fn into_slot(self) -> Result<RawAny, ConvError> {
        self.view().into_slot()
    }
}

impl<T: IntoArg> IntoArg for Option<T> {
    type Slot = Option<T::Slot>;
    #[inline]
    fn into_slot(self) -> Result<Option<T::Slot>, ConvError> {
        self.map(T::into_slot).transpose()
    }
}
