//! Containers and objects: `Option<T>`, `Vec<T>` (Array), tuples (Array of fixed length),
//! `HashMap`/`BTreeMap` (Map), and the object handles (Function, Tensor, Shape, Error...).
//! Each container reads the mutable kind beside its own (List beside Array, Dict beside
//! Map), as C++ does.

use core::hash::Hash;
use core::ptr::NonNull;
use std::collections::{BTreeMap, HashMap};

use abi_shared::vocab::Kind;

use super::call_arg::into_arg;
use super::{AbiType, FromAny, FromArg, IntoAny, ListItem};
use crate::ffi::type_index as ti;
use crate::ffi::RawAny;
use crate::reflect::{Access, TypeDesc};
use crate::runtime::calls::function::{Function, FunctionRef};
use crate::runtime::process::map::Map;
use crate::tensor::{Tensor, TensorView};
use crate::value::any::{Any, AnyView};
use crate::value::array::{seq_slice, Array};
use crate::value::conv_error::ConvError;
use crate::value::error::Error;
use crate::value::object::{ObjectHandle, ObjectRef};
use crate::value::shape::Shape;

impl<T: AbiType> AbiType for Option<T> {
    const DESC: &'static TypeDesc = &TypeDesc::Optional(T::DESC);
}
impl<T: ListItem> ListItem for Option<T> {}

impl<'a, T: FromArg<'a>> FromArg<'a> for Option<T> {
    #[inline(always)]
    fn from_arg(v: &'a AnyView<'a>) -> Result<Option<T>, ConvError> {
        if v.is_none() {
            Ok(None)
        } else {
            T::from_arg(v).map(Some)
        }
    }

    /// As `T` converts a checked parameter, so that an `Option<HostTensorMut>` parameter
    /// takes a tensor (`from_arg` refuses one outside a checked shim).
    #[inline(always)]
    unsafe fn from_checked_arg(v: &'a AnyView<'a>) -> Result<Option<T>, ConvError> {
        if v.is_none() {
            Ok(None)
        } else {
            // SAFETY: the caller's contract for `v` is the one `T` asks for, and `ACCESS`
            // below is `T`'s, so the shim checked `v` as it checks a `T`.
            unsafe { T::from_checked_arg(v) }.map(Some)
        }
    }

    const HAS_FAST_PATH: bool = T::HAS_FAST_PATH;
    const FAST_PATH_PLAIN: bool = T::FAST_PATH_PLAIN;
    /// What `T` may do to tensor memory: an `Option<HostTensor>` beside a `HostTensorMut`
    /// is checked for overlap as the `HostTensor` is (a `None` holds no tensor).
    const ACCESS: Access = T::ACCESS;

    #[inline(always)]
    fn fast_path(v: &'a AnyView<'a>) -> Option<Option<T>> {
        if v.is_none() {
            Some(None)
        } else {
            T::fast_path(v).map(Some)
        }
    }

    fn exact_slot(v: &'a AnyView<'a>) -> Result<RawAny, ConvError> {
        if v.is_none() {
            Ok(RawAny::NONE)
        } else {
            T::exact_slot(v)
        }
    }
}

impl<T: IntoAny> IntoAny for Option<T> {
    #[inline]
    fn into_any(self) -> Result<Any, ConvError> {
        match self {
            Some(v) => v.into_any(),
            None => Ok(Any::NONE),
        }
    }

    #[inline]
    fn into_result_any(self, sink: crate::ffi::ResultSink) -> Result<Any, ConvError> {
        match self {
            Some(v) => v.into_result_any(sink),
            None => Ok(Any::NONE),
        }
    }
}

/// The elements of an Array/List view, or a mismatch against `desc`.
#[inline]
pub(super) fn seq_elements<'a>(v: &'a AnyView<'a>, desc: &'static TypeDesc) -> Result<&'a [AnyView<'a>], ConvError> {
    match v.type_index() {
        // SAFETY: an Array/List object borrowed by the view for 'a.
        ti::ARRAY | ti::LIST if !v.raw().ptr().is_null() => Ok(unsafe { seq_slice(v.raw().ptr().cast()) }),
        _ => Err(ConvError::refused(desc, v.raw())),
    }
}

/// Wraps an element's failure with its index.
#[cold]
pub(crate) fn in_element(index: usize, inner: ConvError) -> ConvError {
    ConvError::Element { index, inner: Box::new(inner) }
}

impl<T: ListItem> AbiType for Vec<T> {
    const DESC: &'static TypeDesc = &TypeDesc::List(T::DESC);
}
impl<T: ListItem> ListItem for Vec<T> {}

impl<'a, T: ListItem + FromArg<'a>> FromArg<'a> for Vec<T> {
    fn from_arg(v: &'a AnyView<'a>) -> Result<Vec<T>, ConvError> {
        seq_elements(v, Self::DESC)?
            .iter()
            .enumerate()
            .map(|(i, e)| T::from_arg(e).map_err(|err| in_element(i, err)))
            .collect()
    }

    // The fast path is the whole conversion without its errors, out of line (once per
    // element type): an export taking a Vec leaves errors to the shared retry instead of
    // carrying the full pass. It accepts Array and List objects, so it is not plain.
    const HAS_FAST_PATH: bool = true;
    const FAST_PATH_PLAIN: bool = false;

    #[inline(always)]
    fn fast_path(v: &'a AnyView<'a>) -> Option<Vec<T>> {
        vec_fast_path(v)
    }

    // The fast path takes every value `from_arg` takes: the slot itself.
    fn exact_slot(v: &'a AnyView<'a>) -> Result<RawAny, ConvError> {
        Self::from_arg(v).map(|_| *v.raw())
    }
}

#[inline(never)]
fn vec_fast_path<'a, T: ListItem + FromArg<'a>>(v: &'a AnyView<'a>) -> Option<Vec<T>> {
    Vec::<T>::from_arg(v).ok()
}

impl<T: ListItem + IntoAny> IntoAny for Vec<T> {
    fn into_any(self) -> Result<Any, ConvError> {
        let items = self
            .into_iter()
            .enumerate()
            .map(|(i, e)| e.into_any().map_err(|err| in_element(i, err)))
            .collect::<Result<Vec<Any>, _>>()?;
        Ok(Any::from(Array::new(items)))
    }
}
into_arg!(owned: [T: ListItem + IntoAny] Vec<T>);

macro_rules! tuple {
    ($len:expr; $($name:ident $idx:tt),+) => {
        impl<$($name: AbiType),+> AbiType for ($($name,)+) {
            const DESC: &'static TypeDesc = &TypeDesc::Tuple(&[$($name::DESC),+]);
        }
        impl<$($name: AbiType),+> ListItem for ($($name,)+) {}

        impl<'a, $($name: FromArg<'a>),+> FromArg<'a> for ($($name,)+) {
            fn from_arg(v: &'a AnyView<'a>) -> Result<Self, ConvError> {
                let items = seq_elements(v, Self::DESC)?;
                if items.len() != $len {
                    return Err(ConvError::Length { what: Kind::Tuple.python(), expected: $len, got: items.len() });
                }
                Ok(($($name::from_arg(&items[$idx]).map_err(|e| in_element($idx, e))?,)+))
            }
        }

        impl<$($name: IntoAny),+> IntoAny for ($($name,)+) {
            fn into_any(self) -> Result<Any, ConvError> {
                let items = vec![$(self.$idx.into_any().map_err(|e| in_element($idx, e))?),+];
                Ok(Any::from(Array::new(items)))
            }
        }
        into_arg!(owned: [$($name: IntoAny),+] ($($name,)+));
    };
}

tuple!(1; A 0);
tuple!(2; A 0, B 1);
tuple!(3; A 0, B 1, C 2);
tuple!(4; A 0, B 1, C 2, D 3);
tuple!(5; A 0, B 1, C 2, D 3, E 4);
tuple!(6; A 0, B 1, C 2, D 3, E 4, F 5);
tuple!(7; A 0, B 1, C 2, D 3, E 4, F 5, G 6);
tuple!(8; A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
tuple!(9; A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8);
tuple!(10; A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9);
tuple!(11; A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10);
tuple!(12; A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11);

/// The entries of a Map/Dict view (each converts to the other), or a mismatch against `desc`.
pub(super) fn map_entries(v: &AnyView<'_>, desc: &'static TypeDesc) -> Result<Vec<(Any, Any)>, ConvError> {
    let obj = match v.object().and_then(NonNull::new) {
        Some(obj) if matches!(v.type_index(), ti::MAP | ti::DICT) => obj,
        _ => return Err(ConvError::refused(desc, v.raw())),
    };
    // SAFETY: a live Map object borrowed by the view.
    let map = Map::from_object(unsafe { ObjectRef::from_borrowed(obj) })
        .map_err(|_| ConvError::mismatch(desc, v.type_index()))?;
    map.entries().map_err(ConvError::from)
}

pub(super) fn entry<K: FromAny, V: FromAny>(i: usize, (k, v): &(Any, Any)) -> Result<(K, V), ConvError> {
    Ok((K::from_any(k.view()).map_err(|e| in_element(i, e))?, V::from_any(v.view()).map_err(|e| in_element(i, e))?))
}

fn map_any<K: IntoAny, V: IntoAny>(entries: impl Iterator<Item = (K, V)>) -> Result<Any, ConvError> {
    let entries = entries
        .enumerate()
        .map(|(i, (k, v))| {
            Ok((k.into_any().map_err(|e| in_element(i, e))?, v.into_any().map_err(|e| in_element(i, e))?))
        })
        .collect::<Result<Vec<_>, ConvError>>()?;
    Ok(Any::from(Map::new(entries)?))
}

macro_rules! map_type {
    ($map:ident, $($bound:path),*) => {
        impl<K: AbiType, V: AbiType, S> AbiType for $map<K, V, S> {
            const DESC: &'static TypeDesc = &TypeDesc::Map(K::DESC, V::DESC);
        }
        impl<K: AbiType, V: AbiType, S> ListItem for $map<K, V, S> {}
    };
}

// HashMap carries a hasher parameter; BTreeMap gets its impls written out below.
map_type!(HashMap,);

impl<'a, K: FromAny + AbiType + Eq + Hash, V: FromAny + AbiType, S: Default + core::hash::BuildHasher> FromArg<'a>
    for HashMap<K, V, S>
{
    fn from_arg(v: &'a AnyView<'a>) -> Result<Self, ConvError> {
        map_entries(v, Self::DESC)?.iter().enumerate().map(|(i, e)| entry(i, e)).collect()
    }
}

impl<K: IntoAny, V: IntoAny, S> IntoAny for HashMap<K, V, S> {
    fn into_any(self) -> Result<Any, ConvError> {
        map_any(self.into_iter())
    }
}
into_arg!(owned: [K: IntoAny, V: IntoAny, S] HashMap<K, V, S>);

impl<K: AbiType, V: AbiType> AbiType for BTreeMap<K, V> {
    const DESC: &'static TypeDesc = &TypeDesc::Map(K::DESC, V::DESC);
}
impl<K: AbiType, V: AbiType> ListItem for BTreeMap<K, V> {}

impl<'a, K: FromAny + AbiType + Ord, V: FromAny + AbiType> FromArg<'a> for BTreeMap<K, V> {
    fn from_arg(v: &'a AnyView<'a>) -> Result<Self, ConvError> {
        map_entries(v, Self::DESC)?.iter().enumerate().map(|(i, e)| entry(i, e)).collect()
    }
}

impl<K: IntoAny, V: IntoAny> IntoAny for BTreeMap<K, V> {
    fn into_any(self) -> Result<Any, ConvError> {
        map_any(self.into_iter())
    }
}
into_arg!(owned: [K: IntoAny, V: IntoAny] BTreeMap<K, V>);

macro_rules! object_type {
    ($t:ty, $desc:expr $(, $access:expr)?) => {
        impl AbiType for $t {
            const DESC: &'static TypeDesc = &$desc;
        }
        impl ListItem for $t {}

        impl<'a> FromArg<'a> for $t {
            $(const ACCESS: Access = $access;)?

            #[inline]
            fn from_arg(v: &'a AnyView<'a>) -> Result<$t, ConvError> {
                let ty = v.type_index();
                match v.object().and_then(NonNull::new) {
                    // SAFETY: a live object of an accepted index (so of this handle's
                    // layout), borrowed by the view: we take our own reference.
                    Some(obj) if <$t as ObjectHandle>::accepts(ty) => Ok(unsafe {
                        <$t as ObjectHandle>::from_object_unchecked(ObjectRef::from_borrowed(obj))
                    }),
                    _ => Err(ConvError::refused(Self::DESC, v.raw())),
                }
            }
        }

        impl IntoAny for $t {
            fn into_any(self) -> Result<Any, ConvError> {
                Ok(Any::from(self))
            }
        }
        into_arg!(owned: [] $t);
    };
}

object_type!(Function, TypeDesc::Function);
object_type!(Error, TypeDesc::Error);
object_type!(Shape, TypeDesc::Shape);
object_type!(Tensor, TypeDesc::Tensor { elem: None, rank: None, cast: false }, Access::Cells);
object_type!(Array, TypeDesc::List(&TypeDesc::Any));
object_type!(Map, TypeDesc::Map(&TypeDesc::Any, &TypeDesc::Any));

impl AbiType for ObjectRef {
    const DESC: &'static TypeDesc = &TypeDesc::Object;
}
impl ListItem for ObjectRef {}

impl<'a> FromArg<'a> for ObjectRef {
    fn from_arg(v: &'a AnyView<'a>) -> Result<ObjectRef, ConvError> {
        match v.object().and_then(NonNull::new) {
            // SAFETY: a live object borrowed by the view.
            Some(obj) => Ok(unsafe { ObjectRef::from_borrowed(obj) }),
            None => Err(ConvError::refused(Self::DESC, v.raw())),
        }
    }
}

impl IntoAny for ObjectRef {
    fn into_any(self) -> Result<Any, ConvError> {
        Ok(Any::from(self))
    }
}
into_arg!(owned: [] ObjectRef);

impl AbiType for TensorView<'_> {
    const DESC: &'static TypeDesc = &TypeDesc::Tensor { elem: None, rank: None, cast: false };
}

impl<'a> FromArg<'a> for TensorView<'a> {
    const ACCESS: Access = Access::Cells;

    #[inline]
    fn from_arg(v: &'a AnyView<'a>) -> Result<TensorView<'a>, ConvError> {
        TensorView::from_slot(v).ok_or_else(|| ConvError::refused(Self::DESC, v.raw()))
    }
}

impl AbiType for FunctionRef<'_> {
    const DESC: &'static TypeDesc = &TypeDesc::Function;
}

impl AbiType for &Function {
    const DESC: &'static TypeDesc = &TypeDesc::Function;
}

impl<'a> FromArg<'a> for FunctionRef<'a> {
    #[inline]
    fn from_arg(v: &'a AnyView<'a>) -> Result<FunctionRef<'a>, ConvError> {
        match v.object().and_then(NonNull::new) {
            // SAFETY: a live Function object borrowed by the view for 'a.
            Some(obj) if v.type_index() == ti::FUNCTION => Ok(unsafe { FunctionRef::from_raw(obj) }),
            _ => Err(ConvError::refused(Self::DESC, v.raw())),
        }
    }
}
