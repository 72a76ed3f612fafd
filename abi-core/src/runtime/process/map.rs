//! Map (72) and Dict (76) objects. Their C++ layout is opaque, so under a tvm-ffi host
//! they are built and read through its global functions (`ffi.Map`, `ffi.MapSize`,
//! `ffi.MapForwardIterFunctor`, and the `ffi.Dict...` ones); without one, an embedded
//! object (same type index, our own layout and deleter) holds the entries in insertion
//! order.

use core::fmt;
use std::sync::OnceLock;

use crate::ffi::cell_ptr;
use crate::ffi::type_index as ti;
use crate::runtime::calls::function::Function;
use crate::runtime::process::discovery::embedded_map_mark;
use crate::value::any::{Any, AnyView};
use crate::value::error::{Error, Result};
use crate::value::object::{new_object, object_handle, ObjectRef};
use crate::value::string::{is_bytes_form, is_str_form, view_bytes};

#[repr(C)]
struct MapCell {
    mark: *const u8,
    entries: Vec<(Any, Any)>,
}

// SAFETY: `mark` points at a static; entries are owned Anys.
unsafe impl Send for MapCell {}
// SAFETY: see above.
unsafe impl Sync for MapCell {}

/// An owned Map or Dict object (ours or a host's).
#[derive(Clone)]
pub struct Map(ObjectRef);

object_handle!(Map, ti::MAP | ti::DICT);

/// The host's global functions that build and read one of the two kinds.
struct HostMapApi {
    make: &'static str,
    size: &'static str,
    iter: &'static str,
    cache: [OnceLock<Option<Function>>; 3],
}

static MAP_API: HostMapApi = HostMapApi {
    make: "ffi.Map",
    size: "ffi.MapSize",
    iter: "ffi.MapForwardIterFunctor",
    cache: [OnceLock::new(), OnceLock::new(), OnceLock::new()],
};

static DICT_API: HostMapApi = HostMapApi {
    make: "ffi.Dict",
    size: "ffi.DictSize",
    iter: "ffi.DictForwardIterFunctor",
    cache: [OnceLock::new(), OnceLock::new(), OnceLock::new()],
};

fn host_api(index: i32) -> &'static HostMapApi {
    if index == ti::DICT {
        &DICT_API
    } else {
        &MAP_API
    }
}

fn host_function(name: &'static str, cache: &'static OnceLock<Option<Function>>) -> Result<&'static Function> {
    cache
        .get_or_init(|| Function::get_global(name))
        .as_ref()
        .ok_or_else(|| Error::runtime_error(format!("the tvm-ffi runtime has no `{name}`")))
}

impl Map {
    /// A new map holding `entries` (later duplicates of a key win, as in a dict literal).
    pub fn new(entries: Vec<(Any, Any)>) -> Result<Map> {
        Map::build(ti::MAP, entries)
    }

    /// A new Dict object (the mutable map) holding `entries`, as [`Map::new`].
    pub fn new_dict(entries: Vec<(Any, Any)>) -> Result<Map> {
        Map::build(ti::DICT, entries)
    }

    /// Whether this is a Dict object rather than a Map.
    pub fn is_dict(&self) -> bool {
        self.0.type_index() == ti::DICT
    }

    fn build(index: i32, entries: Vec<(Any, Any)>) -> Result<Map> {
        if let Some(mark) = embedded_map_mark() {
            let entries = dedup_keys(entries);
            return Ok(Map(new_object(index, MapCell { mark, entries })));
        }
        let api = host_api(index);
        let make = host_function(api.make, &api.cache[0])?;
        let args: Vec<AnyView<'_>> = entries.iter().flat_map(|(k, v)| [k.view(), v.view()]).collect();
        let map = make.call_packed(&args)?;
        Map::from_any(map, index)
    }

    fn from_any(v: Any, index: i32) -> Result<Map> {
        let obj = match v.view().object().and_then(core::ptr::NonNull::new) {
            Some(obj) if v.type_index() == index => obj,
            _ => return Err(Error::type_error(format!("{} did not return a map", host_api(index).make))),
        };
        // SAFETY: the Any owns one reference, moved into the ObjectRef.
        let obj = unsafe { ObjectRef::from_raw(obj) };
        core::mem::forget(v);
        Ok(Map(obj))
    }

    fn embedded(&self) -> Option<&MapCell> {
        // SAFETY: every map object has at least 8 readable bytes after its header (C++
        // MapObj starts with its slot pointer); only ours carry the address of our mark.
        unsafe {
            let cell = cell_ptr::<MapCell>(self.0.as_ptr());
            core::ptr::eq(core::ptr::addr_of!((*cell).mark).read(), embedded_map_mark()?).then(|| &*cell)
        }
    }

    /// The entries, in the map's iteration order.
    pub fn entries(&self) -> Result<Vec<(Any, Any)>> {
        if let Some(cell) = self.embedded() {
            return Ok(cell.entries.clone());
        }
        let api = host_api(self.0.type_index());
        let this = Any::from(self.clone());
        let size: i64 = host_function(api.size, &api.cache[1])?.call_packed(&[this.view()])?.to()?;
        let mut out = Vec::with_capacity(size.max(0) as usize);
        if size <= 0 {
            return Ok(out);
        }
        let iter = host_function(api.iter, &api.cache[2])?.call_packed(&[this.view()])?;
        let iter: Function = iter.to()?;
        let cmd = |c: i64| -> Result<Any> {
            let c = Any::from_value(c)?;
            iter.call_packed(&[c.view()])
        };
        loop {
            out.push((cmd(0)?, cmd(1)?));
            if !cmd(2)?.to::<bool>()? {
                break;
            }
        }
        Ok(out)
    }
}

/// Whether two keys are the same key: equal strings/bytes by content (whatever their
/// form), other values by type index and payload (objects by identity).
fn same_key(a: &Any, b: &Any) -> bool {
    let (va, vb) = (a.view(), b.view());
    let text = |v: &AnyView<'_>| {
        let ty = v.type_index();
        let kind = if is_str_form(ty) {
            1
        } else if is_bytes_form(ty) {
            2
        } else {
            0
        };
        (kind, view_bytes(v).ok().map(<[u8]>::to_vec))
    };
    match (text(&va), text(&vb)) {
        ((ka, Some(ta)), (kb, Some(tb))) if ka != 0 && kb != 0 => ka == kb && ta == tb,
        _ => {
            let (ra, rb) = (va.raw(), vb.raw());
            ra.type_index == rb.type_index && ra.i64() == rb.i64()
        }
    }
}

/// Keeps one entry per key; a later duplicate replaces the earlier value in place.
fn dedup_keys(entries: Vec<(Any, Any)>) -> Vec<(Any, Any)> {
    let mut out: Vec<(Any, Any)> = Vec::with_capacity(entries.len());
    for (k, v) in entries {
        match out.iter_mut().find(|(ok, _)| same_key(ok, &k)) {
            Some(slot) => slot.1 = v,
            None => out.push((k, v)),
        }
    }
    out
}

impl fmt::Debug for Map {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.entries() {
            Ok(e) => f.debug_map().entries(e.iter().map(|(k, v)| (k, v))).finish(),
            Err(_) => f.write_str("Map(?)"),
        }
    }
}
