//! Typed tensor parameters ([`HostTensor`], [`HostTensorMut`], [`DeviceTensor`], [`DeviceTensorMut`],
//! [`StridedTensor`], [`StridedTensorMut`], [`HostTensorAs`]) from tensor arguments: a
//! Tensor object or a bare `DLTensor*`, then the checks of their constructors. Their
//! descriptions carry the element type and rank (`iree.abi` `["ndarray","f32",2,null,null]`)
//! and, for `HostTensorAs`, that other dtypes are converted (`"cast":"same_kind"` in
//! `type_schema`); not the layout they take, which is the callee's business. Their accesses
//! drive the shim's overlap check.

use crate::convert::{AbiType, FromArg};
use crate::reflect::{Access, TypeDesc};
use crate::tensor::cast::{CastElement, HostTensorAs};
use crate::tensor::strided::{StridedTensor, StridedTensorMut};
use crate::tensor::typed::{DeviceTensor, DeviceTensorMut, HostTensor, HostTensorMut, TensorViewMut};
use crate::tensor::{Element, TensorView};
use crate::value::any::AnyView;
use crate::value::conv_error::ConvError;
use crate::value::error::Error;

macro_rules! typed_tensor_desc {
    ($($ty:ident),*) => {$(
        impl<T: Element + AbiType, const N: usize> AbiType for $ty<'_, T, N> {
            const DESC: &'static TypeDesc = &TypeDesc::Tensor { elem: Some(T::DESC), rank: Some(N as u32), cast: false };
        }
    )*};
}

typed_tensor_desc!(HostTensor, HostTensorMut, DeviceTensor, DeviceTensorMut, StridedTensor, StridedTensorMut);

/// The argument's tensor, or the typed tensor's refusal.
#[inline(always)]
fn tensor_arg<'a>(v: &'a AnyView<'a>, desc: &'static TypeDesc) -> Result<TensorView<'a>, ConvError> {
    TensorView::from_arg(v).map_err(|_| ConvError::refused(desc, v.raw()))
}

impl<'a, T: Element + AbiType, const N: usize> FromArg<'a> for HostTensor<'a, T, N> {
    const ACCESS: Access = Access::Shared;

    #[inline]
    fn from_arg(v: &'a AnyView<'a>) -> Result<HostTensor<'a, T, N>, ConvError> {
        HostTensor::new(tensor_arg(v, Self::DESC)?).map_err(ConvError::from)
    }
}

impl<'a, T: Element + AbiType, const N: usize> FromArg<'a> for DeviceTensor<'a, T, N> {
    const ACCESS: Access = Access::Pointer;

    #[inline]
    fn from_arg(v: &'a AnyView<'a>) -> Result<DeviceTensor<'a, T, N>, ConvError> {
        DeviceTensor::new(tensor_arg(v, Self::DESC)?).map_err(ConvError::from)
    }
}

impl<'a, T: Element + AbiType, const N: usize> FromArg<'a> for StridedTensor<'a, T, N> {
    const ACCESS: Access = Access::Shared;

    #[inline]
    fn from_arg(v: &'a AnyView<'a>) -> Result<StridedTensor<'a, T, N>, ConvError> {
        StridedTensor::new(tensor_arg(v, Self::DESC)?).map_err(ConvError::from)
    }
}

impl<T: CastElement + AbiType, const N: usize> AbiType for HostTensorAs<'_, T, N> {
    const DESC: &'static TypeDesc = &TypeDesc::Tensor { elem: Some(T::DESC), rank: Some(N as u32), cast: true };
}

impl<'a, T: CastElement + AbiType, const N: usize> FromArg<'a> for HostTensorAs<'a, T, N> {
    // Its elements may be the argument's, borrowed for the call.
    const ACCESS: Access = Access::Shared;

    #[inline]
    fn from_arg(v: &'a AnyView<'a>) -> Result<HostTensorAs<'a, T, N>, ConvError> {
        HostTensorAs::new(tensor_arg(v, Self::DESC)?).map_err(ConvError::from)
    }
}

impl AbiType for TensorViewMut<'_> {
    const DESC: &'static TypeDesc = &TypeDesc::Tensor { elem: None, rank: None, cast: false };
}

impl<'a> FromArg<'a> for TensorViewMut<'a> {
    const ACCESS: Access = Access::Exclusive;

    /// Refused: only an `#[export_fn]` parameter, whose shim checks that no other argument
    /// shares its memory, converts to a `TensorViewMut`.
    fn from_arg(_: &'a AnyView<'a>) -> Result<TensorViewMut<'a>, ConvError> {
        Err(only_a_parameter("TensorViewMut"))
    }

    #[inline]
    unsafe fn from_checked_arg(v: &'a AnyView<'a>) -> Result<TensorViewMut<'a>, ConvError> {
        let view = TensorView::from_arg(v)?;
        // SAFETY: the shim found no other argument sharing this memory, and converts each
        // slot once (the caller's contract).
        Ok(unsafe { TensorViewMut::new(view) })
    }
}

#[cold]
#[inline(never)]
fn only_a_parameter(what: &str) -> ConvError {
    ConvError::from(Error::type_error(format!(
        "a {what} is only an #[export_fn] parameter (its shim checks that no other argument shares its memory)"
    )))
}

impl<'a, T: Element + AbiType, const N: usize> FromArg<'a> for HostTensorMut<'a, T, N> {
    const ACCESS: Access = Access::Exclusive;

    /// Refused: only an `#[export_fn]` parameter, whose shim checks that no other argument
    /// shares its memory, converts to a `HostTensorMut`.
    fn from_arg(_: &'a AnyView<'a>) -> Result<HostTensorMut<'a, T, N>, ConvError> {
        Err(only_a_parameter("HostTensorMut"))
    }

    #[inline]
    unsafe fn from_checked_arg(v: &'a AnyView<'a>) -> Result<HostTensorMut<'a, T, N>, ConvError> {
        // SAFETY: the shim found no other argument sharing this memory, and converts each
        // slot once (the caller's contract).
        unsafe { HostTensorMut::new(tensor_arg(v, Self::DESC)?) }.map_err(ConvError::from)
    }
}

impl<'a, T: Element + AbiType, const N: usize> FromArg<'a> for StridedTensorMut<'a, T, N> {
    const ACCESS: Access = Access::Exclusive;

    /// Refused: only an `#[export_fn]` parameter, whose shim checks that no other argument
    /// shares its memory, converts to a `StridedTensorMut`.
    fn from_arg(_: &'a AnyView<'a>) -> Result<StridedTensorMut<'a, T, N>, ConvError> {
        Err(only_a_parameter("StridedTensorMut"))
    }

    #[inline]
    unsafe fn from_checked_arg(v: &'a AnyView<'a>) -> Result<StridedTensorMut<'a, T, N>, ConvError> {
        // SAFETY: the shim found no other argument sharing this memory, and converts each
        // slot once (the caller's contract).
        unsafe { StridedTensorMut::new(tensor_arg(v, Self::DESC)?) }.map_err(ConvError::from)
    }
}

impl<'a, T: Element + AbiType, const N: usize> FromArg<'a> for DeviceTensorMut<'a, T, N> {
    const ACCESS: Access = Access::Exclusive;

    /// Refused: only an `#[export_fn]` parameter, whose shim checks that no other argument
    /// shares its memory, converts to a `DeviceTensorMut`.
    fn from_arg(_: &'a AnyView<'a>) -> Result<DeviceTensorMut<'a, T, N>, ConvError> {
        Err(only_a_parameter("DeviceTensorMut"))
    }

    #[inline]
    unsafe fn from_checked_arg(v: &'a AnyView<'a>) -> Result<DeviceTensorMut<'a, T, N>, ConvError> {
        // SAFETY: the shim found no other argument sharing this memory, and converts each
        // slot once (the caller's contract).
        unsafe { DeviceTensorMut::new(tensor_arg(v, Self::DESC)?) }.map_err(ConvError::from)
    }
}
