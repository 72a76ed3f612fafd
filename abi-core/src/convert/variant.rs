//! `Variant[...]` values: [`Variant2`] ... [`Variant4`], one member of a fixed set of types.
//! An argument converts to the first member that takes it, in order (as tvm-ffi's C++
//! `Variant` does), and a value passes as the member it holds.

use super::call_arg::into_arg;
use super::{AbiType, FromArg, IntoAny, ListItem};
use crate::reflect::TypeDesc;
use crate::value::any::{Any, AnyView};
use crate::value::conv_error::ConvError;

macro_rules! variant {
    ($(#[$doc:meta])* $name:ident; $($member:ident),+) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq)]
        pub enum $name<$($member),+> {
            $(
                #[doc = concat!("A value of the member `", stringify!($member), "`.")]
                $member($member),
            )+
        }

        impl<$($member: AbiType),+> AbiType for $name<$($member),+> {
            const DESC: &'static TypeDesc = &TypeDesc::Variant(&[$($member::DESC),+]);
        }
        impl<$($member: AbiType),+> ListItem for $name<$($member),+> {}

        impl<'a, $($member: FromArg<'a>),+> FromArg<'a> for $name<$($member),+> {
            fn from_arg(v: &'a AnyView<'a>) -> Result<Self, ConvError> {
                $(
                    if let Ok(x) = $member::from_arg(v) {
                        return Ok($name::$member(x));
                    }
                )+
                Err(ConvError::refused(Self::DESC, v.raw()))
            }
        }

        impl<$($member: IntoAny),+> IntoAny for $name<$($member),+> {
            fn into_any(self) -> Result<Any, ConvError> {
                match self {
                    $($name::$member(x) => x.into_any(),)+
                }
            }
        }
        into_arg!(owned: [$($member: IntoAny),+] $name<$($member),+>);
    };
}

variant!(
    /// A `Variant[A, B]`: a value of `A` or of `B`.
    Variant2; A, B
);
variant!(
    /// A `Variant[A, B, C]`.
    Variant3; A, B, C
);
variant!(
    /// A `Variant[A, B, C, D]`.
    Variant4; A, B, C, D
);
