//! The type table a library uses ([`type_api`]), and the embedded runtime's own: what a process with no tvm-ffi runtime uses to give
//! user object types their indices (from 128), ancestry, reflected fields, methods,
//! metadata and attributes. The entry points have the signatures and results of tvm-ffi's
//! (`TVMFFIGetTypeInfo`-compatible records), so the same registration code runs against
//! either table, and libraries attached to this runtime reach it through the runtime table.
//! Where tvm-ffi exits the process (an unknown parent, a depth mismatch, an unknown index),
//! these report an error instead.
//!
//! Records are never freed: indices are never reclaimed and readers keep the pointers they
//! were given, as with tvm-ffi. Everything stays reachable from the table.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, OnceLock};

use abi_shared::vocab::Kind;

use crate::ffi::type_index as ti;
use crate::ffi::type_table::{FieldInfo, MethodInfo, TypeApi, TypeAttrColumn, TypeInfo, TypeMetadata};
use crate::ffi::{ByteArray, RawAny};
use crate::runtime::calls::error_slot::set_raised;
use crate::runtime::process::discovery::{services, Services};
use crate::value::error::Error;
use crate::value::object::inc_ref;

/// One registered type. Boxed, so `info` keeps its address.
struct Entry {
    info: TypeInfo,
    ancestors: Vec<*const TypeInfo>,
    fields: Vec<FieldInfo>,
    methods: Vec<MethodInfo>,
    metadata: Option<Box<TypeMetadata>>,
    /// Owned copies of every text the records point into (`Vec`s, not boxes: moving a
    /// `Box` after taking a pointer into it would invalidate the pointer).
    texts: Vec<Vec<u8>>,
}

/// Copies `bytes` into `texts` and points at the copy.
fn keep(texts: &mut Vec<Vec<u8>>, bytes: ByteArray) -> ByteArray {
    // SAFETY: the caller of the entry point passes a valid byte array.
    let copy = unsafe { bytes.as_slice() }.to_vec();
    let kept = ByteArray::from_slice(&copy);
    texts.push(copy);
    kept
}

/// A field or method record: named, with three texts the table copies.
trait Named: Copy {
    /// `"field"` or `"method"`, for errors.
    const WHAT: &'static str;
    fn texts(&mut self) -> [&mut ByteArray; 3];
}

impl Named for FieldInfo {
    const WHAT: &'static str = "field";
    fn texts(&mut self) -> [&mut ByteArray; 3] {
        [&mut self.name, &mut self.doc, &mut self.metadata]
    }
}

impl Named for MethodInfo {
    const WHAT: &'static str = "method";
    fn texts(&mut self) -> [&mut ByteArray; 3] {
        [&mut self.name, &mut self.doc, &mut self.metadata]
    }
}

/// Appends `record` to `list` with its texts copied into `texts`; a second record of the
/// same name is an error.
fn push_named<R: Named>(texts: &mut Vec<Vec<u8>>, list: &mut Vec<R>, mut record: R) -> Result<(), Error> {
    // SAFETY: records carry valid byte arrays (the caller's, or copies the table keeps).
    let name = |r: &mut R| unsafe { r.texts()[0].as_slice() }.to_vec();
    let wanted = name(&mut record);
    if list.iter_mut().any(|r| name(r) == wanted) {
        let shown = String::from_utf8_lossy(&wanted);
        return Err(Error::key_error(format!("{} `{shown}` is already registered", R::WHAT)));
    }
    for text in record.texts() {
        *text = keep(texts, *text);
    }
    list.push(record);
    Ok(())
}

/// One attribute: its column and every buffer the column ever pointed to.
struct Attr {
    column: Box<TypeAttrColumn>,
    /// `Vec`s, not boxes: the column points into the last one, and moving a `Box` (into
    /// this list) would invalidate that pointer.
    buffers: Vec<Vec<RawAny>>,
}

#[derive(Default)]
struct Table {
    by_key: HashMap<Box<[u8]>, i32>,
    /// Entries by `type_index - ti::OBJECT`.
    entries: Vec<Option<Box<Entry>>>,
    attrs: HashMap<Box<[u8]>, Attr>,
}

// SAFETY: the raw pointers point into boxes the table owns (or into immutable statics);
// every access goes through the mutex.
unsafe impl Send for Table {}

/// The static object types every table starts with (depth 1 under `ffi.Object`).
/// Their type keys are the `type_schema` keys of their kinds.
const STATIC_OBJECTS: &[(i32, Kind)] = &[
    (ti::STR, Kind::Str),
    (ti::BYTES, Kind::Bytes),
    (ti::ERROR, Kind::Error),
    (ti::FUNCTION, Kind::Function),
    (ti::SHAPE, Kind::Shape),
    (ti::TENSOR, Kind::Tensor),
    (ti::ARRAY, Kind::Array),
    (ti::MAP, Kind::Map),
];

fn table() -> MutexGuard<'static, Table> {
    static TABLE: OnceLock<Mutex<Table>> = OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut t = Table::default();
        t.insert(Kind::Object.key().as_bytes(), ti::OBJECT, None).expect("the root type");
        for &(index, kind) in STATIC_OBJECTS {
            t.insert(kind.key().as_bytes(), index, Some(ti::OBJECT)).expect("a static type");
        }
        Mutex::new(t)
    });
    table.lock().unwrap_or_else(|e| e.into_inner())
}

/// FNV-1a, the stable hash the records carry.
fn key_hash(key: &[u8]) -> u64 {
    key.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3))
}

impl Table {
    fn entry(&mut self, index: i32) -> Option<&mut Entry> {
        let slot = usize::try_from(index.checked_sub(ti::OBJECT)?).ok()?;
        self.entries.get_mut(slot)?.as_deref_mut()
    }

    fn insert(&mut self, key: &[u8], index: i32, parent: Option<i32>) -> Result<i32, Error> {
        let mut ancestors = Vec::new();
        if let Some(parent) = parent {
            let p = self.entry(parent).ok_or_else(|| Error::key_error(format!("no parent type {parent}")))?;
            ancestors.extend_from_slice(&p.ancestors);
            ancestors.push(&p.info as *const TypeInfo);
        }
        let mut entry = Box::new(Entry {
            info: TypeInfo {
                type_index: index,
                type_depth: ancestors.len() as i32,
                type_key: ByteArray::from_slice(&[]),
                type_ancestors: core::ptr::null(),
                type_key_hash: key_hash(key),
                num_fields: 0,
                num_methods: 0,
                fields: core::ptr::null(),
                methods: core::ptr::null(),
                metadata: core::ptr::null(),
            },
            ancestors,
            fields: Vec::new(),
            methods: Vec::new(),
            metadata: None,
            texts: Vec::new(),
        });
        entry.info.type_key = keep(&mut entry.texts, ByteArray::from_slice(key));
        entry.info.type_ancestors = entry.ancestors.as_ptr();
        let slot = (index - ti::OBJECT) as usize;
        if self.entries.len() <= slot {
            self.entries.resize_with(slot + 1, || None);
        }
        self.entries[slot] = Some(entry);
        self.by_key.insert(key.into(), index);
        Ok(index)
    }

    fn alloc(&mut self, key: &[u8], depth: i32, parent: i32) -> Result<i32, Error> {
        let name = String::from_utf8_lossy(key);
        let parent_depth = match self.entry(parent) {
            Some(p) => p.info.type_depth,
            None => return Err(Error::value_error(format!("type `{name}`: parent index {parent} is not registered"))),
        };
        if depth != parent_depth + 1 {
            return Err(Error::value_error(format!(
                "type `{name}`: depth {depth} does not follow its parent's depth {parent_depth}"
            )));
        }
        let next = (self.entries.len() as i32 + ti::OBJECT).max(ti::DYN_OBJECT_BEGIN);
        self.insert(key, next, Some(parent))
    }
}

/// Runs `f` on the entry of `index`, raising an error for an unknown index.
fn with_entry(index: i32, f: impl FnOnce(&mut Entry) -> Result<(), Error>) -> i32 {
    let result = match table().entry(index) {
        Some(entry) => f(entry),
        None => Err(Error::key_error(format!("type index {index} is not registered"))),
    };
    match result {
        Ok(()) => 0,
        Err(e) => {
            set_raised(e);
            -1
        }
    }
}

/// As `TVMFFITypeKeyToIndex`.
///
/// # Safety
/// `key` is a valid byte array; `out` is writable.
pub unsafe extern "C" fn embedded_type_key_to_index(key: *const ByteArray, out: *mut i32) -> i32 {
    // SAFETY: guaranteed by the caller.
    let key = unsafe { (*key).as_slice() };
    match table().by_key.get(key) {
        Some(&index) => {
            // SAFETY: guaranteed by the caller.
            unsafe { *out = index };
            0
        }
        None => {
            set_raised(Error::key_error(format!("type key `{}` is not registered", String::from_utf8_lossy(key))));
            -1
        }
    }
}

/// As `TVMFFITypeGetOrAllocIndex` (a static index is not supported and is an error).
///
/// # Safety
/// `key` is a valid byte array.
pub unsafe extern "C" fn embedded_type_get_or_alloc_index(
    key: *const ByteArray,
    static_index: i32,
    depth: i32,
    _child_slots: i32,
    _child_slots_can_overflow: i32,
    parent: i32,
) -> i32 {
    // SAFETY: guaranteed by the caller.
    let key = unsafe { (*key).as_slice() };
    let mut t = table();
    if let Some(&index) = t.by_key.get(key) {
        return index;
    }
    if parent == crate::ffi::type_table::QUERY_ONLY_PARENT {
        return crate::ffi::type_table::QUERY_ONLY_PARENT;
    }
    let result = if static_index >= 0 {
        Err(Error::value_error("the embedded type table allocates dynamic indices only"))
    } else {
        t.alloc(key, depth, parent)
    };
    drop(t);
    result.unwrap_or_else(|e| {
        set_raised(e);
        -1
    })
}

/// As `TVMFFITypeRegisterField`: a second field of the same name is an error.
///
/// # Safety
/// `info` points to a valid field record.
pub unsafe extern "C" fn embedded_type_register_field(index: i32, info: *const FieldInfo) -> i32 {
    // SAFETY: guaranteed by the caller.
    let field = unsafe { *info };
    with_entry(index, |e| {
        push_named(&mut e.texts, &mut e.fields, field)?;
        e.info.fields = e.fields.as_ptr();
        e.info.num_fields = e.fields.len() as i32;
        Ok(())
    })
}

/// As `TVMFFITypeRegisterMethod`: keeps a reference to the method's Function.
///
/// # Safety
/// `info` points to a valid method record whose `method` is a live value.
pub unsafe extern "C" fn embedded_type_register_method(index: i32, info: *const MethodInfo) -> i32 {
    // SAFETY: guaranteed by the caller.
    let method = unsafe { *info };
    with_entry(index, |e| {
        push_named(&mut e.texts, &mut e.methods, method)?;
        keep_value(&method.method);
        e.info.methods = e.methods.as_ptr();
        e.info.num_methods = e.methods.len() as i32;
        Ok(())
    })
}

/// As `TVMFFITypeRegisterMetadata`: registering twice is an error.
///
/// # Safety
/// `metadata` points to a valid record.
pub unsafe extern "C" fn embedded_type_register_metadata(index: i32, metadata: *const TypeMetadata) -> i32 {
    // SAFETY: guaranteed by the caller.
    let mut metadata = unsafe { *metadata };
    with_entry(index, |e| {
        if e.metadata.is_some() {
            return Err(Error::value_error(format!("type index {index}: overriding its metadata")));
        }
        metadata.doc = keep(&mut e.texts, metadata.doc);
        // Stored first, pointed at after: moving the Box would invalidate the pointer.
        let stored = e.metadata.insert(Box::new(metadata));
        e.info.metadata = &**stored;
        Ok(())
    })
}

/// Adds the reference the table keeps to an object value.
fn keep_value(value: &RawAny) {
    if ti::is_object(value.type_index) && !value.ptr().is_null() {
        // SAFETY: the caller passes a live value; the table owns one reference from now on.
        unsafe { inc_ref(value.ptr().cast()) };
    }
}

/// As `TVMFFITypeRegisterAttr`: a value already set for the index is an error.
///
/// # Safety
/// `name` is a valid byte array and `value` a live value.
pub unsafe extern "C" fn embedded_type_register_attr(index: i32, name: *const ByteArray, value: *const RawAny) -> i32 {
    // SAFETY: guaranteed by the caller.
    let (name, value) = unsafe { ((*name).as_slice(), *value) };
    let mut t = table();
    if t.entry(index).is_none() {
        drop(t);
        set_raised(Error::key_error(format!("type index {index} is not registered")));
        return -1;
    }
    let attr = t.attrs.entry(name.into()).or_insert_with(|| Attr {
        column: Box::new(TypeAttrColumn { data: core::ptr::null(), size: 0, begin_index: 0 }),
        buffers: Vec::new(),
    });
    let slot = index as usize;
    if slot >= attr.column.size as usize {
        // Grow into a new buffer; the old one stays valid for readers that hold it.
        let mut grown = vec![RawAny::NONE; (slot + 1).max(2 * attr.column.size as usize)];
        if let Some(old) = attr.buffers.last() {
            grown[..old.len()].copy_from_slice(old);
        }
        attr.column.data = grown.as_ptr();
        attr.column.size = grown.len() as i32;
        attr.buffers.push(grown);
    }
    let current = attr.buffers.last_mut().expect("a buffer");
    if current[slot].type_index != ti::NONE {
        drop(t);
        let name = String::from_utf8_lossy(name);
        set_raised(Error::key_error(format!("type index {index}: attribute `{name}` is already registered")));
        return -1;
    }
    keep_value(&value);
    current[slot] = value;
    0
}

/// As `TVMFFIGetTypeAttrColumn`.
///
/// # Safety
/// `name` is a valid byte array.
pub unsafe extern "C" fn embedded_get_type_attr_column(name: *const ByteArray) -> *const TypeAttrColumn {
    // SAFETY: guaranteed by the caller.
    let name = unsafe { (*name).as_slice() };
    table().attrs.get(name).map_or(core::ptr::null(), |a| &*a.column)
}

/// As `TVMFFIGetTypeInfo`, returning null (not exiting) for an unknown index.
///
/// # Safety
/// None beyond the C calling convention; `unsafe` to match the table's signature.
pub unsafe extern "C" fn embedded_get_type_info(index: i32) -> *const TypeInfo {
    table().entry(index).map_or(core::ptr::null(), |e| &e.info as *const TypeInfo)
}

/// The type table this library registers and looks its object types up in: its
/// runtime's (tvm-ffi's, or the opener's when attached), else this embedded one.
pub fn type_api() -> &'static TypeApi {
    match services() {
        Services::Embedded => &EMBEDDED_TYPE_API,
        Services::TvmFfi(table) | Services::Attached(table) => &table.types,
    }
}

/// The embedded table's entry points.
pub const EMBEDDED_TYPE_API: TypeApi = TypeApi {
    key_to_index: embedded_type_key_to_index,
    get_or_alloc_index: embedded_type_get_or_alloc_index,
    register_field: embedded_type_register_field,
    register_method: embedded_type_register_method,
    register_metadata: embedded_type_register_metadata,
    register_attr: embedded_type_register_attr,
    get_attr_column: embedded_get_type_attr_column,
    get_type_info: embedded_get_type_info,
};
