//! [`List`] and [`Dict`]: the Rust types of `ffi.List` and `ffi.Dict`, the mutable
//! `ffi.Array` and `ffi.Map`. A `Vec<T>` already reads a List and a `HashMap` a Dict (C++
//! converts each kind to the other); these types are for passing one, so that the callee
//! gets the kind it declared without a copy, and for saying so in a signature.

use core::hash::Hash;
use core::ops::{Deref, DerefMut};
use std::collections::HashMap;

use super::call_arg::into_arg;
use super::containers::{entry, in_element, map_entries, seq_elements};
use super::{AbiType, FromAny, FromArg, IntoAny, ListItem};
use crate::reflect::TypeDesc;
use crate::runtime::process::map::Map;
use crate::value::any::{Any, AnyView};
use crate::value::array::Array;
use crate::value::conv_error::ConvError;

/// An `ffi.List[T]`: passed as a List object, read from a List or an Array.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct List<T>(pub Vec<T>);

/// An `ffi.Dict[K, V]`: passed as a Dict object, read from a Dict or a Map.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dict<K: Eq + Hash, V>(pub HashMap<K, V>);

impl<K: Eq + Hash, V> Default for Dict<K, V> {
    fn default() -> Self {
        Dict(HashMap::new())
    }
}

impl<T> Deref for List<T> {
    type Target = Vec<T>;
    fn deref(&self) -> &Vec<T> {
        &self.0
    }
}

impl<T> DerefMut for List<T> {
    fn deref_mut(&mut self) -> &mut Vec<T> {
        &mut self.0
    }
}

impl<T> From<Vec<T>> for List<T> {
    fn from(items: Vec<T>) -> List<T> {
        List(items)
    }
}

impl<K: Eq + Hash, V> Deref for Dict<K, V> {
    type Target = HashMap<K, V>;
    fn deref(&self) -> &HashMap<K, V> {
        &self.0
    }
}

impl<K: Eq + Hash, V> DerefMut for Dict<K, V> {
    fn deref_mut(&mut self) -> &mut HashMap<K, V> {
        &mut self.0
    }
}

impl<K: Eq + Hash, V> From<HashMap<K, V>> for Dict<K, V> {
    fn from(entries: HashMap<K, V>) -> Dict<K, V> {
        Dict(entries)
    }
}

impl<K: Eq + Hash, V> FromIterator<(K, V)> for Dict<K, V> {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        Dict(iter.into_iter().collect())
    }
}

impl<T: ListItem> AbiType for List<T> {
    const DESC: &'static TypeDesc = &TypeDesc::FfiList(T::DESC);
}
impl<T: ListItem> ListItem for List<T> {}

impl<'a, T: ListItem + FromArg<'a>> FromArg<'a> for List<T> {
    fn from_arg(v: &'a AnyView<'a>) -> Result<List<T>, ConvError> {
        seq_elements(v, Self::DESC)?
            .iter()
            .enumerate()
            .map(|(i, e)| T::from_arg(e).map_err(|err| in_element(i, err)))
            .collect::<Result<Vec<T>, _>>()
            .map(List)
    }
}

impl<T: ListItem + IntoAny> IntoAny for List<T> {
    fn into_any(self) -> Result<Any, ConvError> {
        let items = (self.0.into_iter().enumerate())
            .map(|(i, e)| e.into_any().map_err(|err| in_element(i, err)))
            .collect::<Result<Vec<Any>, _>>()?;
        Ok(Any::from(Array::new_list(items)?))
    }
}
into_arg!(owned: [T: ListItem + IntoAny] List<T>);

impl<K: AbiType + Eq + Hash, V: AbiType> AbiType for Dict<K, V> {
    const DESC: &'static TypeDesc = &TypeDesc::FfiDict(K::DESC, V::DESC);
}
impl<K: AbiType + Eq + Hash, V: AbiType> ListItem for Dict<K, V> {}

impl<'a, K: FromAny + AbiType + Eq + Hash, V: FromAny + AbiType> FromArg<'a> for Dict<K, V> {
    fn from_arg(v: &'a AnyView<'a>) -> Result<Dict<K, V>, ConvError> {
        map_entries(v, Self::DESC)?.iter().enumerate().map(|(i, e)| entry(i, e)).collect()
    }
}

impl<K: IntoAny + Eq + Hash, V: IntoAny> IntoAny for Dict<K, V> {
    fn into_any(self) -> Result<Any, ConvError> {
        let entries = (self.0.into_iter().enumerate())
            .map(|(i, (k, v))| {
                Ok((k.into_any().map_err(|e| in_element(i, e))?, v.into_any().map_err(|e| in_element(i, e))?))
            })
            .collect::<Result<Vec<_>, ConvError>>()?;
        Ok(Any::from(Map::new_dict(entries)?))
    }
}
into_arg!(owned: [K: IntoAny + Eq + Hash, V: IntoAny] Dict<K, V>);
