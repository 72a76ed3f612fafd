//! Randomized, seeded calls of every exported shim of the example libraries with hostile
//! argument arrays: type indices from the whole `i32` range (assigned plain-data indices
//! with random payloads, pointer kinds with valid pointers as the contract requires of
//! callers; unassigned and negative plain-data indices with random bits; real objects of
//! every built-in type and of unassigned object indices), wrong counts, null `args`,
//! negative counts. Properties: the process survives; a non-zero return always has an
//! error, and that error is one the call may raise: an argument error the shim reports
//! (naming the signature), an error kind the function's doc names, or the error a
//! callback argument raised; borrowed arguments keep their reference counts; results are
//! owned and released cleanly. Null handles under every pointer-carrying type index, in
//! every argument slot a call can reach, in field accessors and in results of callbacks,
//! are refused with an error. Run in the embedded runtime by `cargo test`, and with the
//! wheel's libtvm_ffi loaded first when `ABI_TVM_FFI_LIBDIR` names its folder
//! (scripts/test-host-bridge.sh): both worlds.

use std::ffi::CString;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::OnceLock;

use abi_core::ffi::type_index as ti;
use abi_core::ffi::ByteArray;
use abi_core::DLTensor;
use abi_core::{
    Any, Array, Bytes, DataType, Device, Error, Function, Library, Map, ObjectRef, RawAny, Shape, Str, Tensor,
};
use abi_derive_tests::{fixture_library, SplitMix64};

/// Loads the wheel's libtvm_ffi (once, before any abi call of this process) when
/// `ABI_TVM_FFI_LIBDIR` names its folder, so every library here runs on tvm-ffi's runtime;
/// without it, the embedded runtime. Every test calls this first.
fn enter_world() {
    static WORLD: OnceLock<()> = OnceLock::new();
    WORLD.get_or_init(|| {
        if let Some(dir) = std::env::var_os("ABI_TVM_FFI_LIBDIR") {
            use libloading::os::unix::{Library as Dl, RTLD_GLOBAL, RTLD_NOW};
            let path = std::path::Path::new(&dir).join("libtvm_ffi.so");
            // SAFETY: loading tvm-ffi runs its initialisers only; it stays loaded.
            let lib = unsafe { Dl::open(Some(&path), RTLD_NOW | RTLD_GLOBAL) }.expect("load libtvm_ffi");
            core::mem::forget(lib);
            assert!(abi_core::host::has_tvm_ffi_runtime(), "this process found the tvm-ffi runtime");
        }
    });
}

const EDGE_INTS: &[i64] = &[
    0,
    1,
    -1,
    127,
    128,
    -129,
    255,
    256,
    65535,
    65536,
    i32::MAX as i64,
    i32::MIN as i64 - 1,
    u32::MAX as i64 + 1,
    i64::MAX,
    i64::MIN,
];
const EDGE_FLOATS: &[f64] =
    &[0.0, -0.0, 1.5, f64::NAN, f64::INFINITY, f64::NEG_INFINITY, f64::MAX, f64::MIN_POSITIVE, 1e300, -3.4e39];

/// Everything a random argument points to, kept alive for the call. The boxes keep
/// addresses stable while the vectors grow.
#[allow(clippy::vec_box)]
#[derive(Default)]
struct Keep {
    cstrings: Vec<CString>,
    arrays: Vec<Box<ByteArray>>,
    buffers: Vec<Vec<u8>>,
    dims: Vec<Vec<i64>>,
    tensors: Vec<Box<DLTensor>>,
    slots: Vec<Box<*mut core::ffi::c_void>>,
    objects: Vec<Any>,
}

fn random_bytes(rng: &mut SplitMix64, max: u64) -> Vec<u8> {
    let len = rng.below(max + 1) as usize;
    (0..len)
        .map(|_| match rng.below(4) {
            0 => 0xFF,                     // never valid UTF-8
            1 => *rng.pick(b"ab\xc3\xa9"), // sometimes a split multi-byte char
            _ => b'a' + rng.below(26) as u8,
        })
        .collect()
}

fn random_object(rng: &mut SplitMix64) -> Any {
    let any = |v: Result<Any, Error>| v.expect("conversion");
    match rng.below(12) {
        0 => Any::from(Str::new(&"long string object ".repeat(1 + rng.below(3) as usize))),
        1 => Any::from(Bytes::new(&random_bytes(rng, 40))),
        2 => Any::from(Error::value_error("an error object")),
        3 => Any::from(Function::from_closure(|args| {
            Ok(args.first().map(|a| a.to_any()).transpose()?.unwrap_or_default())
        })),
        4 => Any::from(Function::from_closure(|_| Err(Error::runtime_error(CALLBACK_REFUSES)))),
        5 => Any::from(Function::from_closure(|_| panic!("{CALLBACK_PANICS}"))),
        6 => Any::from(Shape::new(&[2, 3])),
        7 => Any::from(Tensor::from_vec(vec![1.0f32; 6], &[2, 3]).unwrap()),
        8 => {
            let n = rng.below(5) as usize;
            let items = (0..n).map(|i| any(Any::from_value(i as i64))).collect();
            Any::from(Array::new(items))
        }
        9 => Any::from(Map::new(vec![(any(Any::from_value("k")), any(Any::from_value(1i64)))]).unwrap()),
        // An integer beyond i64: a BigInt object.
        10 => any(Any::from_value(u64::MAX - rng.below(1 << 40))),
        _ => Any::from(Tensor::from_vec(vec![7u8; 12], &[2, 2, 3]).unwrap()),
    }
}

fn random_tensor(rng: &mut SplitMix64, keep: &mut Keep) -> *mut DLTensor {
    let dtypes =
        [DataType::new(2, 32), DataType::new(2, 64), DataType::new(1, 8), DataType::new(2, 16), DataType::new(0, 64)];
    let dtype = *rng.pick(&dtypes);
    let ndim = rng.below(4) as usize;
    let mut shape: Vec<i64> = (0..ndim).map(|_| rng.below(5) as i64).collect();
    let numel: i64 = shape.iter().product();
    let mut data = vec![0u8; (numel as usize).max(1) * dtype.size_bytes() * 2 + 8];
    let strided = ndim > 0 && rng.below(3) == 0;
    let mut strides: Vec<i64> = shape.iter().map(|_| 2).collect();
    let device = if rng.below(5) == 0 { Device { device_type: 2, device_id: 0 } } else { Device::CPU };
    let mut t = Box::new(DLTensor {
        data: data.as_mut_ptr().cast(),
        device,
        ndim: ndim as i32,
        dtype,
        shape: shape.as_mut_ptr(),
        strides: if strided { strides.as_mut_ptr() } else { core::ptr::null_mut() },
        byte_offset: 0,
    });
    let ptr: *mut DLTensor = &mut *t;
    keep.buffers.push(data);
    keep.dims.push(shape);
    keep.dims.push(strides);
    keep.tensors.push(t);
    ptr
}

/// A type index no value of this runtime has: plain-data indices past the assigned ones
/// and negative ones, or object indices past the built-in ones.
fn unassigned_index(rng: &mut SplitMix64, object: bool) -> i32 {
    match (object, rng.below(3)) {
        (false, 0) => (ti::UNCHANGED + 1) + rng.below((ti::OBJECT - ti::UNCHANGED - 1) as u64) as i32,
        (false, _) => -1 - rng.below(i32::MAX as u64 + 1) as i32,
        (true, 0) => (ti::BIG_INT + 1) + rng.below((ti::DYN_OBJECT_BEGIN - ti::BIG_INT - 1) as u64) as i32,
        (true, _) => ti::DYN_OBJECT_BEGIN + rng.below((i32::MAX - ti::DYN_OBJECT_BEGIN) as u64 + 1) as i32,
    }
}

fn random_arg(rng: &mut SplitMix64, keep: &mut Keep) -> RawAny {
    let ty = match rng.below(11) {
        // A null handle under a pointer-carrying index.
        9 => return RawAny::from_ptr(*rng.pick(POINTER_INDICES), core::ptr::null_mut()),
        // A plain-data index nothing assigns, with random payload bits.
        0 => return RawAny::from_i64(unassigned_index(rng, false), rng.next_u64() as i64),
        // A well-formed object of a type this runtime does not know.
        1 => {
            let obj = Any::from(abi_core::object::new_object(unassigned_index(rng, true), [0u64; 2]));
            let raw = *obj.as_raw();
            keep.objects.push(obj);
            return raw;
        }
        _ => *rng.pick(&[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 64]),
    };
    match ty {
        ti::INT => {
            RawAny::from_i64(ti::INT, if rng.below(2) == 0 { *rng.pick(EDGE_INTS) } else { rng.next_u64() as i64 })
        }
        ti::BOOL => RawAny::from_i64(ti::BOOL, rng.below(2) as i64),
        ti::FLOAT => {
            let v = if rng.below(2) == 0 { *rng.pick(EDGE_FLOATS) } else { f64::from_bits(rng.next_u64()) };
            let mut r = RawAny::NONE;
            r.type_index = ti::FLOAT;
            r.value.v_float64 = v;
            r
        }
        ti::OPAQUE_PTR => {
            keep.buffers.push(vec![0u8; 16]);
            RawAny::from_ptr(ti::OPAQUE_PTR, keep.buffers.last_mut().unwrap().as_mut_ptr().cast())
        }
        ti::DATA_TYPE => {
            let mut r = RawAny::NONE;
            r.type_index = ti::DATA_TYPE;
            r.value.v_dtype =
                DataType { code: rng.below(8) as u8, bits: rng.below(256) as u8, lanes: rng.below(4) as u16 };
            r
        }
        ti::DEVICE => {
            let mut r = RawAny::NONE;
            r.type_index = ti::DEVICE;
            r.value.v_device = Device { device_type: rng.below(16) as i32, device_id: rng.below(4) as i32 };
            r
        }
        ti::DL_TENSOR_PTR => RawAny::from_ptr(ti::DL_TENSOR_PTR, random_tensor(rng, keep).cast()),
        ti::RAW_STR => {
            let bytes: Vec<u8> = random_bytes(rng, 300).into_iter().filter(|&b| b != 0).collect();
            keep.cstrings.push(CString::new(bytes).unwrap());
            RawAny::from_ptr(ti::RAW_STR, keep.cstrings.last().unwrap().as_ptr() as *mut _)
        }
        ti::BYTE_ARRAY_PTR => {
            keep.buffers.push(random_bytes(rng, 300));
            let b = keep.buffers.last().unwrap();
            keep.arrays.push(Box::new(ByteArray::from_slice(b)));
            RawAny::from_ptr(ti::BYTE_ARRAY_PTR, (&**keep.arrays.last().unwrap() as *const ByteArray).cast_mut().cast())
        }
        ti::OBJECT_RVALUE_REF => {
            let obj = random_object(rng);
            let slot = Box::new(obj.view().object().unwrap().cast::<core::ffi::c_void>());
            keep.objects.push(obj);
            keep.slots.push(slot);
            RawAny::from_ptr(
                ti::OBJECT_RVALUE_REF,
                (&**keep.slots.last().unwrap() as *const *mut core::ffi::c_void).cast_mut().cast(),
            )
        }
        ti::SMALL_STR | ti::SMALL_BYTES => {
            let b = random_bytes(rng, 7);
            let mut r = RawAny::NONE;
            r.type_index = ty;
            r.small_len = b.len() as u32;
            let mut inline = [0u8; 8];
            inline[..b.len()].copy_from_slice(&b);
            r.value.v_bytes = inline;
            r
        }
        64 => {
            let obj = random_object(rng);
            let raw = *obj.as_raw();
            keep.objects.push(obj);
            raw
        }
        other => RawAny::from_i64(other, 0),
    }
}

fn counts(keep: &Keep) -> Vec<u32> {
    keep.objects.iter().map(|o| o.view().object().map_or(0, unsafe_count)).collect()
}

fn unsafe_count(p: *mut abi_core::ffi::ObjectHeader) -> u32 {
    // SAFETY: the object is kept alive by `Keep`.
    unsafe { abi_core::object::strong_count(p) }
}

/// What a call of one export may raise.
struct Allowed {
    name: String,
    /// Error kinds the function's doc names (as `ValueError`).
    documented: Vec<String>,
    /// The error type its metadata names (`abi.error`), whose kinds
    /// (`<crate>.<Type>.<Variant>`) it may raise.
    error_type: Option<String>,
}

impl Allowed {
    fn of(lib: &Library, name: &str) -> Allowed {
        let doc = lib.doc(name).expect("doc symbol").expect("doc call");
        let documented = doc
            .split('`')
            .skip(1)
            .step_by(2)
            .filter(|w| w.ends_with("Error") && w.chars().all(|c| c.is_ascii_alphanumeric()))
            .map(str::to_owned)
            .collect();
        let metadata = lib.metadata(name).expect("metadata symbol").expect("metadata call");
        let error_type = abi_core::Metadata::parse(&metadata).expect("metadata").error;
        Allowed { name: name.to_owned(), documented, error_type }
    }

    /// Why `e` is an error this call may raise, or `None`.
    fn reason(&self, e: &Error) -> Option<&'static str> {
        let (kind, msg) = (e.kind(), e.message());
        let shim = msg.starts_with(&format!("{}(", self.name));
        let argument = msg.contains(": argument `") || msg.contains(" takes ") || msg.contains("is a null pointer");
        if shim && argument && (kind == "TypeError" || kind == "ValueError") {
            Some("an argument error reported by the shim")
        } else if self.documented.iter().any(|d| d == kind) {
            Some("a kind the doc names")
        } else if self.error_type.as_ref().is_some_and(|t| kind.contains(&format!(".{t}."))) {
            Some("a kind of the error type it declares")
        } else if msg.contains(CALLBACK_REFUSES) || msg.contains(CALLBACK_PANICS) {
            Some("the error of a callback argument")
        } else {
            None
        }
    }

    fn check(&self, result: Result<Any, Error>, stats: &mut Stats) {
        let Err(e) = result else {
            stats.succeeded += 1;
            return;
        };
        let name = &self.name;
        assert!(!e.message().contains("raised no error"), "{name}: non-zero return without an error: {}", e.message());
        let reason = self.reason(&e);
        assert!(reason.is_some(), "{name}: undocumented {}: {}", e.kind(), e.message());
        *stats.errors.entry(reason.unwrap()).or_default() += 1;
    }
}

/// Outcomes of one library's calls, so a fuzzer that only ever fails (or never reaches
/// the functions) is noticed.
#[derive(Debug, Default)]
struct Stats {
    succeeded: usize,
    errors: std::collections::BTreeMap<&'static str, usize>,
}

impl Stats {
    fn assert_reached_both_outcomes(&self) {
        assert!(self.succeeded > 0, "no call succeeded: {self:?}");
        assert!(self.errors.get("an argument error reported by the shim") > Some(&0), "no argument error: {self:?}");
    }
}

const CALLBACK_REFUSES: &str = "callback refuses";
const CALLBACK_PANICS: &str = "callback panics";

fn hammer(package: &str, lib_name: &str, seed: u64, rounds: usize) -> Stats {
    enter_world();
    let lib = Library::open(fixture_library(package, lib_name)).unwrap();
    let exports = lib.export_metadata().unwrap();
    assert!(!exports.is_empty(), "{package} exports nothing");
    let mut rng = SplitMix64(seed);
    let mut stats = Stats::default();
    for (name, meta) in &exports {
        let bound = lib.get(name).unwrap();
        let n = meta.arg_names.as_ref().expect("arg_names").len();
        let allowed = Allowed::of(&lib, name);
        for _ in 0..rounds {
            let mut keep = Keep::default();
            let count = match rng.below(10) {
                0 => n + 1,
                1 => n.saturating_sub(1),
                _ => n,
            };
            let args: Vec<RawAny> = (0..count).map(|_| random_arg(&mut rng, &mut keep)).collect();
            let before = counts(&keep);
            // SAFETY: `args` holds `count` slots whose pointers `keep` keeps valid.
            let result = unsafe { bound.call_unchecked(args.as_ptr(), args.len() as i32) };
            allowed.check(result, &mut stats);
            assert_eq!(before, counts(&keep), "{name}: borrowed argument reference counts changed");
        }
        // Hostile counts and pointers, as C callers may send them.
        for (ptr, count) in
            [(core::ptr::null(), 0), (core::ptr::null(), 1), (core::ptr::null(), -1), (core::ptr::null(), i32::MIN)]
        {
            // SAFETY: the callee must reject these before reading any slot.
            allowed.check(unsafe { bound.call_unchecked(ptr, count) }, &mut stats);
        }
        assert!(abi_core::host::take_raised().is_none(), "{name}: an error leaked into this runtime");
    }
    stats
}

#[test]
fn mathlib_survives_hostile_calls() {
    hammer("abi-mathlib", "mathlib", 0xA11CE, 300).assert_reached_both_outcomes();
}

#[test]
fn signal_kit_survives_hostile_calls() {
    hammer("signal-kit", "signal_kit", 0xB0B, 200).assert_reached_both_outcomes();
}

#[test]
fn interop_lib_survives_hostile_calls() {
    hammer("abi-interop-lib", "abi_interop_lib", 0xC0FFEE, 200).assert_reached_both_outcomes();
}

#[test]
fn object_refs_are_exact_after_many_calls() {
    enter_world();
    let lib = Library::open(fixture_library("abi-mathlib", "mathlib")).unwrap();
    let total = lib.get("total").unwrap();
    let list = Any::from_value(vec![1.0f64, 2.0]).unwrap();
    let obj = list.to::<ObjectRef>().unwrap();
    let before = obj.strong_count();
    for _ in 0..1000 {
        let r = total.call_raw(&[*list.as_raw()]).unwrap();
        assert_eq!(r.to::<f64>().unwrap(), 3.0);
        // Wrong count: the list is still only borrowed.
        assert!(total.call_raw(&[*list.as_raw(), *list.as_raw()]).is_err());
    }
    assert_eq!(obj.strong_count(), before);
}

/// The type indices whose payload is a pointer and that a value of this runtime can carry
/// (the libraries' own object types are added where they are known). `OpaquePtr` is not
/// among them: a null `void*` is a legitimate value.
const POINTER_INDICES: &[i32] = &[
    ti::DL_TENSOR_PTR,
    ti::RAW_STR,
    ti::BYTE_ARRAY_PTR,
    ti::OBJECT_RVALUE_REF,
    ti::OBJECT,
    ti::STR,
    ti::BYTES,
    ti::ERROR,
    ti::FUNCTION,
    ti::SHAPE,
    ti::TENSOR,
    ti::ARRAY,
    ti::MAP,
    ti::MODULE,
    ti::LIST,
    ti::DICT,
    ti::BIG_INT,
];

fn null_at(index: i32) -> RawAny {
    RawAny::from_ptr(index, core::ptr::null_mut())
}

/// Values to fill the slots before the one under test: one of them converts to nearly
/// every parameter type.
fn candidates(extra: &[Any]) -> Vec<Any> {
    let any = |v: Result<Any, Error>| v.expect("conversion");
    let mut all = vec![
        any(Any::from_value(1i64)),
        any(Any::from_value(0.5f64)),
        any(Any::from_value(true)),
        any(Any::from_value("ab")),
        any(Any::from_value(b"ab".to_vec())),
        Any::NONE,
        any(Any::from_value(vec![1i64, 2])),
        any(Any::from_value(std::collections::HashMap::from([("k".to_owned(), 1i64)]))),
        Any::from(Shape::new(&[1])),
        Any::from(Tensor::from_vec(vec![1.0f64, 2.0], &[2]).unwrap()),
        Any::from(Tensor::from_vec(vec![1.0f32, 2.0], &[2]).unwrap()),
        Any::from(Function::from_closure(|args| Ok(args.first().map(|a| a.to_any()).transpose()?.unwrap_or_default()))),
        any(Any::from_value(DataType::new(2, 32))),
        any(Any::from_value(Device::CPU)),
        any(Any::from_value((1.0f64, 2.0f64))),
    ];
    all.extend(extra.iter().cloned());
    all
}

/// Whether `result` says slot `slot` was refused.
fn refused_at(result: &Result<Any, Error>, slot: usize) -> bool {
    matches!(result, Err(e) if e.message().contains(&format!("` (#{slot}) ")))
}

/// A prefix of `k` arguments the export accepts (each slot's first candidate the shim does
/// not refuse, with None after it), or `None` when some slot accepts no candidate.
fn accepted_prefix(bound: &abi_core::Bound, n: usize, k: usize, candidates: &[Any]) -> Option<Vec<RawAny>> {
    let mut prefix: Vec<RawAny> = Vec::new();
    for j in 0..k {
        let found = candidates.iter().find(|c| {
            let mut args = prefix.clone();
            args.push(*c.as_raw());
            args.resize(n, RawAny::NONE);
            !refused_at(&bound.call_raw(&args), j)
        })?;
        prefix.push(*found.as_raw());
    }
    Some(prefix)
}

/// Makes the objects library register its types (it does so at their first use when no
/// tvm-ffi runtime was there at its load).
fn register_object_types(lib: &Library) {
    if let Some(make) = lib.get("make_limited") {
        let args = [Any::from_value("r").unwrap(), Any::from_value(1i64).unwrap()];
        make.call_raw(&[*args[0].as_raw(), *args[1].as_raw()]).unwrap();
    }
}

/// Per null index: calls that reached the slot and were refused there.
fn null_arguments(package: &str, lib_name: &str, own_types: &[&str]) -> std::collections::BTreeMap<i32, usize> {
    enter_world();
    let lib = Library::open(fixture_library(package, lib_name)).unwrap();
    register_object_types(&lib);
    let api = abi_core::host::type_api();
    let mut indices = POINTER_INDICES.to_vec();
    for key in own_types {
        let mut index = -1;
        let key = abi_core::ffi::ByteArray::from_slice(key.as_bytes());
        // SAFETY: a valid byte array and out slot.
        assert_eq!(unsafe { (api.key_to_index)(&key, &mut index) }, 0, "{package}: a registered type");
        indices.push(index);
    }
    let extra: Vec<Any> = if package == "abi-objects-lib" {
        let make = lib.get("make_counter").unwrap();
        vec![make.call_raw(&[*Any::from_value("c").unwrap().as_raw()]).unwrap()]
    } else {
        Vec::new()
    };
    let candidates = candidates(&extra);
    let mut refused = std::collections::BTreeMap::new();
    for (name, meta) in lib.export_metadata().unwrap() {
        let bound = lib.get(&name).unwrap();
        let n = meta.arg_names.as_ref().expect("arg_names").len();
        let allowed = Allowed::of(&lib, &name);
        let mut stats = Stats::default();
        for slot in 0..n {
            let Some(prefix) = accepted_prefix(&bound, n, slot, &candidates) else { break };
            for &index in &indices {
                let mut args = prefix.clone();
                args.push(null_at(index));
                args.resize(n, RawAny::NONE);
                let result = bound.call_raw(&args);
                if refused_at(&result, slot) {
                    *refused.entry(index).or_default() += 1;
                }
                allowed.check(result, &mut stats);
            }
        }
        assert!(abi_core::host::take_raised().is_none(), "{name}: an error leaked into this runtime");
    }
    refused
}

#[test]
fn null_handles_are_refused_in_every_reachable_slot() {
    let mut total = std::collections::BTreeMap::<i32, usize>::new();
    for (package, lib_name, types) in [
        ("abi-mathlib", "mathlib", &[][..]),
        ("signal-kit", "signal_kit", &[]),
        ("abi-interop-lib", "abi_interop_lib", &[]),
        ("abi-objects-lib", "abi_objects_lib", &["mylib.Counter", "mylib.LimitedCounter"]),
    ] {
        for (index, n) in null_arguments(package, lib_name, types) {
            *total.entry(index).or_default() += n;
        }
    }
    // Each null kind reached a conversion that refused it, in many slots: a check that
    // went away would have crashed the process instead.
    for index in POINTER_INDICES {
        assert!(total.get(index) >= Some(&10), "null of index {index} refused only {:?} times", total.get(index));
    }
    assert!(total.len() >= POINTER_INDICES.len() + 2, "the libraries' own types were tried: {total:?}");
}

/// A null object handle plus a field's offset, as tvm_ffi hands a field accessor of an
/// instance made without its constructor: refused with a `TypeError` naming the type and
/// the field, for every reflected field, getter and setter.
#[test]
fn field_accessors_refuse_a_null_object() {
    enter_world();
    let lib = Library::open(fixture_library("abi-objects-lib", "abi_objects_lib")).unwrap();
    register_object_types(&lib);
    let api = abi_core::host::type_api();
    let mut checked = 0;
    for key in ["mylib.Counter", "mylib.LimitedCounter"] {
        let mut index = -1;
        let key_bytes = abi_core::ffi::ByteArray::from_slice(key.as_bytes());
        // SAFETY: a valid byte array and out slot.
        assert_eq!(unsafe { (api.key_to_index)(&key_bytes, &mut index) }, 0);
        // SAFETY: a registered index.
        let info = unsafe { &*(api.get_type_info)(index) };
        // SAFETY: `num_fields` records.
        let fields = unsafe { core::slice::from_raw_parts(info.fields, info.num_fields as usize) };
        for f in fields {
            // SAFETY: a text the table keeps.
            let name = String::from_utf8(unsafe { f.name.as_slice() }.to_vec()).unwrap();
            let addr = (f.offset as usize) as *mut core::ffi::c_void;
            let mut out = RawAny::NONE;
            // SAFETY: the accessor must refuse the address before reading it.
            let rc = unsafe { (f.getter.unwrap())(addr, &mut out) };
            assert_ne!(rc, 0, "{key}.{name}");
            let e = abi_core::host::take_raised().expect("an error is set");
            assert_eq!(e.kind(), "TypeError");
            assert!(
                e.message().starts_with(&format!("cannot read field `{name}` of `{key}`: the object handle is null")),
                "{}",
                e.message()
            );
            checked += 1;
            if !f.setter.is_null() {
                // SAFETY: a writable field's setter has this signature.
                let setter: abi_core::ffi::type_table::FieldSetter = unsafe { core::mem::transmute(f.setter) };
                let value = Any::from_value(1i64).unwrap();
                // SAFETY: as above.
                assert_ne!(unsafe { setter(addr, value.as_raw()) }, 0, "{key}.{name}");
                let e = abi_core::host::take_raised().expect("an error is set");
                assert!(e.message().starts_with(&format!("cannot write field `{name}` of `{key}`")), "{}", e.message());
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 7, "name, start; limit, label (get, set), refusals (get, set)");
}

static NULL_RESULT_INDEX: AtomicI32 = AtomicI32::new(0);

/// A callee returning a null handle under `NULL_RESULT_INDEX` (a malformed host function).
unsafe extern "C" fn returns_null(_: *mut core::ffi::c_void, _: *const RawAny, _: i32, out: *mut RawAny) -> i32 {
    // SAFETY: the caller passes a writable result slot.
    unsafe { *out = null_at(NULL_RESULT_INDEX.load(Ordering::SeqCst)) };
    0
}

/// A null object handle returned by a callback or an import: typed results refuse it,
/// untyped ones hold it as a value that owns nothing (cloned and dropped without a
/// dereference), and an export returning it passes it on unchanged.
#[test]
fn null_results_of_callbacks_and_imports_are_refused() {
    enter_world();
    let lib = Library::open(fixture_library("abi-interop-lib", "abi_interop_lib")).unwrap();
    let call_fn = lib.get("call_fn").unwrap();
    let f = Function::from_safe_call(returns_null);
    let callback = Any::from(f.clone());
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _g = LOCK.lock().unwrap();
    for &index in POINTER_INDICES.iter().filter(|&&i| ti::is_object(i)) {
        NULL_RESULT_INDEX.store(index, Ordering::SeqCst);
        let untyped = f.call_packed(&[]).unwrap();
        assert_eq!(untyped.type_index(), index);
        let copy = untyped.clone();
        drop((untyped, copy));
        let typed = abi_core::TypedFunction::<fn() -> String>::from_function(f.clone()).call().unwrap_err();
        assert!(typed.message().contains("null"), "{index}: {}", typed.message());
        let typed = abi_core::TypedFunction::<fn() -> Vec<i64>>::from_function(f.clone()).call().unwrap_err();
        assert!(typed.message().contains("null"), "{index}: {}", typed.message());
        let through = call_fn.call_raw(&[*callback.as_raw(), *Any::from_value(1i64).unwrap().as_raw()]).unwrap();
        assert_eq!(through.type_index(), index);
        assert!(through.to::<Tensor>().unwrap_err().message().contains("null"));
        assert!(through.to::<std::collections::HashMap<String, i64>>().unwrap_err().message().contains("null"));
    }
}
