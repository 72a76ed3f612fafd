//! Randomized, seeded calls of every exported shim of the example libraries with hostile
//! argument arrays: type indices from the whole `i32` range (assigned plain-data indices
//! with random payloads, pointer kinds with valid pointers as the contract requires of
//! callers; unassigned and negative plain-data indices with random bits; real objects of
//! every built-in type and of unassigned object indices), wrong counts, null `args`,
//! negative counts. Properties: the process survives; a non-zero return always has an
//! error, and that error is one the call may raise: an argument error the shim reports
//! (naming the signature), an error kind the function's doc names, or the error a
//! callback argument raised; borrowed arguments keep their reference counts; results are
//! owned and released cleanly.

use std::ffi::CString;

use abi_core::ffi::type_index as ti;
use abi_core::ffi::ByteArray;
use abi_core::DLTensor;
use abi_core::{
    Any, Array, Bytes, DataType, Device, Error, Function, Library, Map, ObjectRef, RawAny, Shape, Str, Tensor,
};
use abi_derive_tests::fixture_library;

/// SplitMix64: small, seedable, good enough to spread inputs.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
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

fn random_bytes(rng: &mut Rng, max: u64) -> Vec<u8> {
    let len = rng.below(max + 1) as usize;
    (0..len)
        .map(|_| match rng.below(4) {
            0 => 0xFF,                     // never valid UTF-8
            1 => *rng.pick(b"ab\xc3\xa9"), // sometimes a split multi-byte char
            _ => b'a' + rng.below(26) as u8,
        })
        .collect()
}

fn random_object(rng: &mut Rng) -> Any {
    let any = |v: Result<Any, Error>| v.expect("conversion");
    match rng.below(11) {
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
        _ => Any::from(Tensor::from_vec(vec![7u8; 12], &[2, 2, 3]).unwrap()),
    }
}

fn random_tensor(rng: &mut Rng, keep: &mut Keep) -> *mut DLTensor {
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
fn unassigned_index(rng: &mut Rng, object: bool) -> i32 {
    match (object, rng.below(3)) {
        (false, 0) => (ti::UNCHANGED + 1) + rng.below((ti::OBJECT - ti::UNCHANGED - 1) as u64) as i32,
        (false, _) => -1 - rng.below(i32::MAX as u64 + 1) as i32,
        (true, 0) => (ti::BIG_INT + 1) + rng.below((ti::DYN_OBJECT_BEGIN - ti::BIG_INT - 1) as u64) as i32,
        (true, _) => ti::DYN_OBJECT_BEGIN + rng.below((i32::MAX - ti::DYN_OBJECT_BEGIN) as u64 + 1) as i32,
    }
}

fn random_arg(rng: &mut Rng, keep: &mut Keep) -> RawAny {
    let ty = match rng.below(10) {
        // A plain-data index nothing assigns, with random payload bits.
        0 => return RawAny::from_i64(unassigned_index(rng, false), rng.next() as i64),
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
        ti::INT => RawAny::from_i64(ti::INT, if rng.below(2) == 0 { *rng.pick(EDGE_INTS) } else { rng.next() as i64 }),
        ti::BOOL => RawAny::from_i64(ti::BOOL, rng.below(2) as i64),
        ti::FLOAT => {
            let v = if rng.below(2) == 0 { *rng.pick(EDGE_FLOATS) } else { f64::from_bits(rng.next()) };
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
        Allowed { name: name.to_owned(), documented }
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
    let lib = Library::open(fixture_library(package, lib_name)).unwrap();
    let exports = lib.export_metadata().unwrap();
    assert!(!exports.is_empty(), "{package} exports nothing");
    let mut rng = Rng(seed);
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
