//! Typed tensor parameters ([`HostTensor`], [`DeviceTensor`]) from tensor arguments: a
//! Tensor object or a bare `DLTensor*`, then the checks of their constructors. Their
//! descriptions carry the element type and rank (`iree.abi` `["ndarray","f32",2,null,null]`).

use crate::convert::{AbiType, FromArg};
use crate::reflect::TypeDesc;
use crate::tensor::typed::{DeviceTensor, HostTensor};
use crate::tensor::{Element, TensorView};
use crate::value::any::AnyView;
use crate::value::conv_error::ConvError;

macro_rules! typed_tensor {
    ($ty:ident) => {
        impl<T: Element + AbiType, const N: usize> AbiType for $ty<'_, T, N> {
            const DESC: &'static TypeDesc = &TypeDesc::Tensor { elem: Some(T::DESC), rank: Some(N as u32) };
        }

        impl<'a, T: Element + AbiType, const N: usize> FromArg<'a> for $ty<'a, T, N> {
            #[inline]
            fn from_arg(v: &'a AnyView<'a>) -> Result<$ty<'a, T, N>, ConvError> {
                let view = TensorView::from_arg(v).map_err(|_| ConvError::refused(Self::DESC, v.raw()))?;
                $ty::new(view).map_err(ConvError::from)
            }
        }
    };
}

typed_tensor!(HostTensor);
typed_tensor!(DeviceTensor);
