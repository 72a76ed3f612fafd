//! User object types in the process's type table (docs/ABI.md section 10): what
//! `#[derive(Object)]` and `#[methods]` publish ([`ClassSpec`], [`MethodSpec`]), and their
//! registration: an index from the table (the host's under tvm-ffi, the opener's when
//! attached, else the embedded one), the layout fingerprint that lets two libraries linking
//! the same type share the index (and refuses a different layout), reflected fields,
//! methods and metadata. Registration happens while a library loads when a tvm-ffi runtime
//! is in the process (hosts such as Python snapshot a type the first time they meet it),
//! else at the type's first use, so that an opener can still attach the library first.

use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Mutex, OnceLock};

use crate::ffi::type_index as ti;
use crate::ffi::type_table::{field_flags, FieldGetter, FieldInfo, MethodInfo, TypeApi, TypeMetadata};
use crate::ffi::{ByteArray, RawAny, CELL_OFFSET};
use crate::reflect::type_desc::str_eq;
use crate::reflect::writer::Writer;
use crate::reflect::TypeDesc;
use crate::runtime::calls::error_slot::take_raised_after;
use crate::runtime::calls::export_entry::Export;
use crate::runtime::calls::function::Function;
use crate::runtime::object_types::type_registry::type_api;
use crate::runtime::process::discovery::{services, services_at_load, Services};
use crate::runtime::process::linked::{linked, sorted_by_name};
use crate::runtime::process::pin::pin_this_library;
use crate::value::error::{Error, Result};
use crate::value::object::ObjectHandle;
use crate::value::string::str_any;

/// The type attribute holding a type's layout fingerprint: only types registered by this
/// project carry it.
pub const LAYOUT_ATTR: &str = "__abi_layout__";

/// A user object type: a `Send + Sync` Rust value behind the 24-byte object header,
/// registered in the process's type table under a unique key. Derive it with
/// `#[derive(abi_core::Object)]`; hold values through [`crate::Obj`].
///
/// # Safety
/// `CLASS` describes `Self` exactly (offsets, sizes, the parent embedded at offset 0), and
/// `slot` returns one static per type. The derive guarantees both.
pub unsafe trait Object: Send + Sync + Sized + 'static {
    /// The type's description (for generated code).
    #[doc(hidden)]
    const CLASS: &'static ClassSpec;

    /// The static that caches the type's index (for generated code).
    #[doc(hidden)]
    fn slot() -> &'static TypeSlot;

    /// The type's index in the process's type table, registering the type on first use;
    /// the registration error (a layout conflict, ...) on every use when it failed.
    #[inline]
    fn type_index() -> Result<i32> {
        Self::slot().index(Self::CLASS)
    }
}

/// Everything the type table learns about a type, written by the derive.
#[derive(Debug)]
pub struct ClassSpec {
    /// The unique type key (`mylib.Counter`).
    pub key: &'static str,
    /// `TypeDesc::Class` of the key: how parameters and results of the type reflect.
    pub desc: &'static TypeDesc,
    /// The `///` docs.
    pub doc: &'static str,
    /// The parent type's index (for `#[abi(parent)]`), `None` for a direct child of Object.
    pub parent: Option<fn() -> Result<i32>>,
    /// The parent's type key (`ffi.Object` for none).
    pub parent_key: &'static str,
    /// Size of the Rust value.
    pub size: usize,
    /// Alignment of the Rust value.
    pub align: usize,
    /// Every field, reflected or not, for the fingerprint.
    pub layout: &'static [FieldLayout],
    /// The reflected fields.
    pub fields: &'static [FieldSpec],
}

/// One field in a type's layout fingerprint.
#[derive(Debug)]
pub struct FieldLayout {
    /// The field name.
    pub name: &'static str,
    /// The declared type, as written.
    pub ty: &'static str,
    /// Offset within the Rust value.
    pub offset: usize,
    /// Size in bytes.
    pub size: usize,
}

/// One reflected field (`#[abi(get)]` or `#[abi(get, set)]`).
#[derive(Debug)]
pub struct FieldSpec {
    /// The field name.
    pub name: &'static str,
    /// Its `///` docs.
    pub doc: &'static str,
    /// The type Python sees.
    pub ty: &'static TypeDesc,
    /// Offset within the Rust value.
    pub offset: usize,
    /// Size in bytes.
    pub size: usize,
    /// Alignment.
    pub align: usize,
    /// Reads a copy of the field.
    pub getter: FieldGetter,
    /// Writes the field; `None` for a read-only one.
    pub setter: Option<crate::ffi::type_table::FieldSetter>,
}

/// One method of a `#[methods]` block, collected at link time.
#[derive(Debug)]
pub struct MethodSpec {
    /// The type key of the class it belongs to.
    pub class_key: &'static str,
    /// The reflected name (`__ffi_init__` for `#[abi(init)]`).
    pub name: &'static str,
    /// A static method (no `self`): `#[abi(static)]` and `#[abi(init)]`.
    pub is_static: bool,
    /// The packed entry, its description and texts.
    pub export: &'static Export,
}

#[doc(hidden)]
#[linkme::distributed_slice]
pub static METHODS: [MethodSpec];

/// The cached outcome of a type's registration, and the index alone for the hot path.
#[derive(Debug)]
pub struct TypeSlot {
    /// The index once registration succeeded, `NOT_READY` before (and after a failure):
    /// an argument's type check is one load and one compare.
    ready: AtomicI32,
    outcome: OnceLock<core::result::Result<i32, Box<str>>>,
}

/// [`TypeSlot::ready_index`] before a successful registration: no value has this index.
const NOT_READY: i32 = -1;

impl TypeSlot {
    /// An empty slot (for generated statics).
    #[allow(clippy::new_without_default)]
    pub const fn new() -> TypeSlot {
        TypeSlot { ready: AtomicI32::new(NOT_READY), outcome: OnceLock::new() }
    }

    /// The type's index, registering `spec` on first use.
    #[inline]
    pub fn index(&self, spec: &'static ClassSpec) -> Result<i32> {
        let ready = self.ready_index();
        if ready != NOT_READY {
            return Ok(ready);
        }
        self.register_once(spec)
    }

    #[cold]
    fn register_once(&self, spec: &'static ClassSpec) -> Result<i32> {
        let outcome = self.outcome.get_or_init(|| {
            let outcome = register(spec).map_err(String::into_boxed_str);
            if let Ok(index) = outcome {
                self.ready.store(index, Ordering::Release);
            }
            outcome
        });
        match outcome {
            Ok(index) => Ok(*index),
            Err(message) => Err(Error::type_error(message.to_string())),
        }
    }

    /// The index when registration already succeeded, else -1 (which no value has): the
    /// whole fast path of a type check is comparing an argument's index with it.
    #[inline(always)]
    pub fn ready_index(&self) -> i32 {
        self.ready.load(Ordering::Acquire)
    }

    /// Registers `spec` while the library loads when a tvm-ffi runtime is in the process
    /// (an ELF constructor calls it), saying so in one line on stderr when it fails: every
    /// later use raises the whole error (with both layouts). A type refused because its
    /// parent was adds no line of its own.
    pub fn register_at_load(&self, spec: &'static ClassSpec) {
        if services_at_load().is_none() {
            return;
        }
        if let Err(e) = self.index(spec) {
            // The parent's registration is cached: asking again costs nothing.
            if spec.parent.is_none_or(|parent| parent().is_ok()) {
                let first = e.message().lines().next().unwrap_or_default();
                eprintln!("abi: {first} (every use raises TypeError naming both layouts)");
            }
        }
    }
}

/// What an object type's ELF constructor runs: registration while the library loads when
/// a tvm-ffi runtime is in the process. Never unwinds (it runs before `main` or inside
/// `dlopen`).
pub fn register_at_load<T: Object>() {
    let run = || T::slot().register_at_load(T::CLASS);
    if std::panic::catch_unwind(run).is_err() {
        eprintln!("abi: registering `{}` panicked", T::CLASS.key);
    }
}

/// Texts handed to a type table that must outlive the call (a runtime may keep the
/// pointers); kept reachable for the life of the process.
fn keep(text: String) -> ByteArray {
    // Strings, not boxes: moving a Box after taking a pointer into it would invalidate the
    // pointer; moving a String leaves pointers to its buffer valid.
    static KEPT: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let bytes = ByteArray::from_slice(text.as_bytes());
    KEPT.lock().unwrap_or_else(|e| e.into_inner()).push(text);
    bytes
}

fn bytes(s: &'static str) -> ByteArray {
    ByteArray::from_slice(s.as_bytes())
}

impl ClassSpec {
    /// Whether a reflected field is called `name` (checked at compile time against
    /// method names, which share the class's attribute namespace).
    pub const fn has_field(&self, name: &str) -> bool {
        let mut i = 0;
        while i < self.fields.len() {
            if str_eq(self.fields[i].name, name) {
                return true;
            }
            i += 1;
        }
        false
    }

    /// The layout fingerprint: key, parent, size, alignment and every field's name, type,
    /// offset and size. Two libraries share a type only when these agree.
    pub fn fingerprint(&self) -> String {
        let mut text = format!(
            "abi-layout/1 {} parent={} size={} align={} fields=",
            self.key, self.parent_key, self.size, self.align
        );
        for (i, f) in self.layout.iter().enumerate() {
            let sep = if i == 0 { "" } else { "," };
            text.push_str(&format!("{sep}{}:{}@{}+{}", f.name, f.ty, f.offset, f.size));
        }
        text
    }
}

/// The fingerprint a registered type carries, if any. The attribute column is bounds
/// checked, so any index may be asked about.
pub fn registered_layout(api: &TypeApi, index: i32) -> Option<String> {
    let name = bytes(LAYOUT_ATTR);
    // SAFETY: a valid byte array; the column stays valid while we read it (no
    // registration runs concurrently on this path's inputs).
    let column = unsafe { (api.get_attr_column)(&name).as_ref()? };
    let slot = usize::try_from(index.checked_sub(column.begin_index)?).ok()?;
    if slot >= usize::try_from(column.size).ok()? {
        return None;
    }
    // SAFETY: in bounds of the column's data.
    let value = unsafe { &*column.data.add(slot) };
    // SAFETY: a live value owned by the table.
    let text = unsafe { value.string_bytes() }?;
    Some(String::from_utf8_lossy(text).into_owned())
}

/// Whether an object of `index` is an instance of the abi type `target` (at depth
/// `target_depth`): the same index, or a registered abi type whose ancestors include it.
/// Indices no abi library registered are never asked about (tvm-ffi exits the process on
/// an unknown index).
pub fn is_subtype(index: i32, target: i32) -> bool {
    if index == target {
        return true;
    }
    let api = type_api();
    if index < ti::DYN_OBJECT_BEGIN || registered_layout(api, index).is_none() {
        return false;
    }
    // SAFETY: both indices are registered (ours carries a layout, `target` was registered).
    let (info, target_info) = unsafe { (&*(api.get_type_info)(index), &*(api.get_type_info)(target)) };
    let depth = target_info.type_depth;
    // SAFETY: `type_ancestors` has `type_depth` entries.
    depth < info.type_depth && unsafe { (**info.type_ancestors.add(depth as usize)).type_index } == target
}

/// Registers `spec` (or finds it registered with the same layout).
fn register(spec: &'static ClassSpec) -> core::result::Result<i32, String> {
    let api = type_api();
    let key = bytes(spec.key);
    let parent = match spec.parent {
        Some(parent) => parent().map_err(|e| format!("type `{}`: its parent: {}", spec.key, e.message()))?,
        None => ti::OBJECT,
    };
    // SAFETY: `parent` is Object or a type registered above.
    let parent_info = unsafe { (api.get_type_info)(parent).as_ref() }
        .ok_or_else(|| format!("type `{}`: parent index {parent} has no type info", spec.key))?;
    let depth = parent_info.type_depth + 1;
    let ours = spec.fingerprint();
    // Look the key up with `TVMFFITypeKeyToIndex`, which every supported tvm-ffi release
    // has: `TVMFFITypeGetOrAllocIndex`'s query mode (parent -2) is not in 0.1.12 and older,
    // which end the process on it. An unknown key raises an error: drop it.
    let mut existing = -1;
    // SAFETY: a valid byte array and a writable index; a lookup registers nothing.
    if unsafe { (api.key_to_index)(&key, &mut existing) } == 0 {
        return same_layout(api, spec, existing, &ours);
    }
    drop(take_raised_after(-1));
    // SAFETY: the parent is registered and `depth` follows it, as tvm-ffi requires.
    let index = unsafe { (api.get_or_alloc_index)(&key, -1, depth, 0, 1, parent) };
    if index < 0 {
        return Err(format!("type `{}`: {}", spec.key, take_raised_after(index).message()));
    }
    if !matches!(services(), Services::Embedded) {
        // Another runtime's table will point into this library from now on.
        pin_this_library();
    }
    // Claim the type with the fingerprint; losing the claim means another library
    // registered it meanwhile: then the layouts must agree.
    let layout = str_any(&ours);
    let attr = bytes(LAYOUT_ATTR);
    // SAFETY: the table borrows the value and keeps its own reference.
    if unsafe { (api.register_attr)(index, &attr, layout.as_raw()) } != 0 {
        drop(take_raised_after(-1));
        return same_layout(api, spec, index, &ours);
    }
    let fail = |what: String, rc: i32| format!("type `{}`: {what}: {}", spec.key, take_raised_after(rc).message());
    for field in spec.fields {
        let info = field_info(field);
        // SAFETY: a complete record whose texts outlive the table.
        let rc = unsafe { (api.register_field)(index, &info) };
        if rc != 0 {
            return Err(fail(format!("field `{}`", field.name), rc));
        }
    }
    // By name: the linker's order of the section varies between builds, and hosts (stub
    // generators) list methods in registration order.
    let methods = linked(|| &METHODS).iter().filter(|m| m.class_key == spec.key);
    for method in sorted_by_name(methods, |m| m.name) {
        let function = Function::from_safe_call(method.export.safe_call);
        let info = MethodInfo {
            name: bytes(method.name),
            doc: bytes(method.export.doc()),
            metadata: bytes(method.export.metadata_json()),
            flags: if method.is_static { field_flags::STATIC_METHOD } else { 0 },
            method: RawAny::from_ptr(ti::FUNCTION, function.as_object().as_ptr().cast()),
        };
        // SAFETY: a complete record; the table keeps its own reference to the Function.
        let rc = unsafe { (api.register_method)(index, &info) };
        if rc != 0 {
            return Err(fail(format!("method `{}`", method.name), rc));
        }
    }
    let metadata = TypeMetadata {
        doc: bytes(spec.doc),
        creator: None,
        total_size: (CELL_OFFSET + spec.size) as i32,
        structural_eq_hash_kind: 0,
    };
    // SAFETY: a complete record.
    let rc = unsafe { (api.register_metadata)(index, &metadata) };
    if rc != 0 {
        return Err(fail("metadata".into(), rc));
    }
    Ok(index)
}

fn same_layout(api: &TypeApi, spec: &ClassSpec, index: i32, ours: &str) -> core::result::Result<i32, String> {
    match registered_layout(api, index) {
        Some(theirs) if theirs == ours => Ok(index),
        Some(theirs) => Err(format!(
            "type `{}` is already registered with another layout; refusing to share index {index}\n  registered:   {theirs}\n  this library: {ours}",
            spec.key
        )),
        None => Err(format!(
            "type `{}` is already registered (index {index}) by code that publishes no abi layout fingerprint; refusing to share it\n  this library: {ours}",
            spec.key
        )),
    }
}

fn field_info(field: &FieldSpec) -> FieldInfo {
    let schema = field.ty.schema();
    let metadata = Writer::render(|w| {
        w.str("{\"type_schema\":");
        w.json_string(&schema);
        w.byte(b'}');
    });
    let mut flags = field_flags::INIT_OFF;
    if field.setter.is_some() {
        flags |= field_flags::WRITABLE;
    }
    FieldInfo {
        name: bytes(field.name),
        doc: bytes(field.doc),
        metadata: keep(metadata),
        flags,
        size: field.size as i64,
        alignment: field.align as i64,
        offset: (CELL_OFFSET + field.offset) as i64,
        getter: Some(field.getter),
        setter: field.setter.map_or(core::ptr::null_mut(), |s| s as *mut core::ffi::c_void),
        default_value_or_factory: RawAny::NONE,
        field_static_type_index: static_type_index(field.ty),
    }
}

/// The static type index of a plain-data field, or -1 (`Any`): strings may arrive small
/// or as objects, so only scalars are named.
fn static_type_index(ty: &TypeDesc) -> i32 {
    match ty {
        TypeDesc::Bool => ti::BOOL,
        TypeDesc::Int { .. } => ti::INT,
        TypeDesc::Float { .. } => ti::FLOAT,
        _ => -1,
    }
}
