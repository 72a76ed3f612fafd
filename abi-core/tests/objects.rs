//! Reference counting: every owning handle and conversion adds or releases exactly one
//! strong reference, and `dec_ref` follows the strong/weak protocol of ABI.md section 2
//! (checked on hand-built headers with a recording deleter). Function closures, Tensor
//! owners and Error payloads have lifecycle tests in their own files.

use core::ffi::c_void;
use core::ptr::NonNull;
use core::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use abi_core::ffi::type_index as ti;
use abi_core::ffi::{ObjectHeader, DELETER_BOTH, DELETER_STRONG, DELETER_WEAK, INITIAL_REF_COUNT};
use abi_core::object;
use abi_core::ObjectHandle;
use abi_core::ObjectRef;
use abi_core::{Any, Array, FromArg, Function, RawAny, Shape, Str, Tensor};

/// The strong count of the object an Any holds.
fn count(a: &Any) -> u32 {
    let obj = a.view().object().expect("an object");
    // SAFETY: `a` keeps the object alive.
    unsafe { object::strong_count(obj) }
}

/// An object whose deleter records its flags instead of freeing anything.
#[repr(C)]
struct Probe {
    header: ObjectHeader,
    calls: Mutex<Vec<i32>>,
    /// Releases one weak unit from inside the Strong callback, as a payload holding a weak
    /// reference to its own object would.
    payload_holds_weak: bool,
}

unsafe extern "C" fn probe_deleter(obj: *mut c_void, flags: i32) {
    // SAFETY: only installed on `Probe` objects, which outlive every reference to them.
    let probe = unsafe { &*obj.cast::<Probe>() };
    probe.calls.lock().unwrap().push(flags);
    if flags == DELETER_STRONG && probe.payload_holds_weak {
        probe.header.combined_ref_count.fetch_sub(1 << 32, Ordering::AcqRel);
    }
}

impl Probe {
    fn new(count: u64, payload_holds_weak: bool) -> Box<Probe> {
        Box::new(Probe {
            header: ObjectHeader {
                combined_ref_count: AtomicU64::new(count),
                type_index: ti::DYN_OBJECT_BEGIN,
                padding: 0,
                deleter: Some(probe_deleter),
            },
            calls: Mutex::new(Vec::new()),
            payload_holds_weak,
        })
    }

    fn ptr(&self) -> NonNull<ObjectHeader> {
        // The whole object, not `&self.header`: the deleter reads past the header.
        NonNull::from(self).cast()
    }

    /// Takes ownership of one of the strong references the count says exist.
    fn adopt(&self) -> ObjectRef {
        // SAFETY: the Box outlives the handle; the test set the count to include this one.
        unsafe { ObjectRef::from_raw(self.ptr()) }
    }

    fn count(&self) -> u64 {
        self.header.combined_ref_count.load(Ordering::Acquire)
    }

    fn calls(&self) -> Vec<i32> {
        self.calls.lock().unwrap().clone()
    }
}

#[test]
fn last_release_of_a_fresh_object_calls_both() {
    let p = Probe::new(INITIAL_REF_COUNT, false);
    drop(p.adopt());
    assert_eq!(p.calls(), vec![DELETER_BOTH]);
    assert_eq!(DELETER_BOTH, 3);
}

#[test]
fn only_the_last_strong_reference_runs_the_deleter() {
    let p = Probe::new(0x1_0000_0003, false);
    let (a, b, c) = (p.adopt(), p.adopt(), p.adopt());
    assert_eq!(a.strong_count(), 3);
    drop(a);
    drop(b);
    assert!(p.calls().is_empty());
    assert_eq!(p.count(), INITIAL_REF_COUNT);
    drop(c);
    assert_eq!(p.calls(), vec![DELETER_BOTH]);
}

#[test]
fn an_outstanding_weak_reference_defers_the_free() {
    let p = Probe::new(0x2_0000_0001, false);
    drop(p.adopt());
    assert_eq!(p.calls(), vec![DELETER_STRONG], "payload destroyed, memory kept for the weak holder");
    assert_eq!(p.count(), 0x1_0000_0000, "the strong group's weak unit is released");
}

#[test]
fn weak_reaching_zero_after_strong_frees() {
    let p = Probe::new(0x2_0000_0001, true);
    drop(p.adopt());
    assert_eq!(p.calls(), vec![DELETER_STRONG, DELETER_WEAK]);
    assert_eq!(p.count(), 0);
}

#[test]
fn inc_ref_and_dec_ref_leave_weak_bits_alone() {
    let p = Probe::new(0x5_0000_0001, false);
    let a = p.adopt();
    let b = a.clone();
    assert_eq!(p.count(), 0x5_0000_0002);
    assert_eq!(b.strong_count(), 2);
    drop(b);
    assert_eq!(p.count(), 0x5_0000_0001);
    // SAFETY: `a` keeps the probe alive.
    unsafe { object::inc_ref(p.ptr().as_ptr()) };
    assert_eq!(p.count(), 0x5_0000_0002);
    // SAFETY: releases the reference just added.
    unsafe { object::dec_ref(p.ptr().as_ptr()) };
    assert!(p.calls().is_empty());
    drop(a);
    assert_eq!(p.calls(), vec![DELETER_STRONG]);
}

#[test]
fn missing_deleter_is_tolerated() {
    let h = Box::new(ObjectHeader {
        combined_ref_count: AtomicU64::new(INITIAL_REF_COUNT),
        type_index: ti::DYN_OBJECT_BEGIN,
        padding: 0,
        deleter: None,
    });
    // SAFETY: the box outlives the handle, which owns the one strong reference.
    drop(unsafe { ObjectRef::from_raw(NonNull::from(&*h)) });
    assert_eq!(h.combined_ref_count.load(Ordering::Relaxed) & 0xffff_ffff, 0);
}

#[test]
fn any_of_a_dynamic_object_type_is_counted() {
    let p = Probe::new(INITIAL_REF_COUNT, false);
    let raw = RawAny::from_ptr(ti::DYN_OBJECT_BEGIN + 7, p.ptr().as_ptr().cast());
    // SAFETY: transfers the probe's one strong reference.
    let a = unsafe { Any::from_raw(raw) };
    let b = a.clone();
    assert_eq!(count(&a), 2);
    drop(a);
    assert!(p.calls().is_empty());
    drop(b);
    assert_eq!(p.calls(), vec![DELETER_BOTH]);
}

#[test]
fn plain_values_never_touch_what_they_point_to() {
    let p = Probe::new(INITIAL_REF_COUNT, false);
    for index in [ti::OPAQUE_PTR, ti::DL_TENSOR_PTR, ti::RAW_STR, ti::BYTE_ARRAY_PTR, ti::OBJECT - 1] {
        // SAFETY: non-object kinds are not reference counted.
        let a = unsafe { Any::from_raw(RawAny::from_ptr(index, p.ptr().as_ptr().cast())) };
        let b = a.clone();
        drop((a, b));
    }
    assert_eq!(p.count(), INITIAL_REF_COUNT);
    drop(p.adopt());
}

#[test]
fn any_clone_and_drop() {
    let a = Any::from_value("a string that is an object").unwrap();
    assert_eq!(count(&a), 1);
    let b = a.clone();
    let c = b.clone();
    assert_eq!(count(&a), 3);
    drop(b);
    assert_eq!(count(&a), 2);
    drop(c);
    assert_eq!(count(&a), 1);
    let raw = a.into_raw();
    // SAFETY: `raw` carries the reference `a` gave up.
    let back = unsafe { Any::from_raw(raw) };
    assert_eq!(count(&back), 1, "into_raw/from_raw neither add nor drop");
}

#[test]
fn views_borrow_and_to_any_adds_one() {
    let a = Any::from_value(Shape::new(&[1, 2, 3])).unwrap();
    let v = a.view();
    let v2 = v;
    assert_eq!(count(&a), 1, "views are borrowed");
    let owned = v2.to_any().unwrap();
    assert_eq!(count(&a), 2);
    assert_eq!(owned.as_raw().ptr(), a.as_raw().ptr());
    drop(owned);
    assert_eq!(count(&a), 1);
}

#[test]
fn conversions_from_borrowed_views_own_one_reference() {
    let a = Any::from_value(Str::new("borrowed then owned")).unwrap();
    let v = a.view();
    let s = <Str as FromArg>::from_arg(&v).unwrap();
    assert_eq!(count(&a), 2);
    let o = <ObjectRef as FromArg>::from_arg(&v).unwrap();
    let any = <Any as FromArg>::from_arg(&v).unwrap();
    assert_eq!(count(&a), 4);
    drop((s, o, any));
    assert_eq!(count(&a), 1);
    // A failed conversion leaves the count alone.
    assert!(<Shape as FromArg>::from_arg(&v).is_err());
    assert!(<Vec<i64> as FromArg>::from_arg(&v).is_err());
    assert_eq!(count(&a), 1);

    let t = Any::from_value(Tensor::from_vec(vec![1u8; 4], &[4]).unwrap()).unwrap();
    let tv = t.view();
    let view = <abi_core::TensorView as FromArg>::from_arg(&tv).unwrap();
    assert_eq!(count(&t), 1, "a TensorView borrows");
    let owned = <Tensor as FromArg>::from_arg(&tv).unwrap();
    assert_eq!(count(&t), 2);
    assert_eq!(view.numel(), owned.view().numel());
}

#[test]
fn into_any_moves_the_reference() {
    let s = Str::new("moved");
    let raw = s.as_object().as_ptr();
    let probe = s.clone();
    assert_eq!(probe.as_object().strong_count(), 2);
    let a = Any::from_value(s).unwrap();
    assert_eq!(probe.as_object().strong_count(), 2, "the handle's reference moved into the Any");
    assert_eq!(a.as_raw().ptr().cast::<ObjectHeader>(), raw);
    drop(a);
    assert_eq!(probe.as_object().strong_count(), 1);
}

#[test]
fn array_elements_hold_one_reference_each() {
    let elem = Any::from_value("element object, long").unwrap();
    let arr = Array::new(vec![elem.clone(), elem.clone(), Any::from_value(3i64).unwrap()]);
    assert_eq!(count(&elem), 3);
    let arr2 = arr.clone();
    assert_eq!(count(&elem), 3, "cloning the array does not touch elements");
    let views = arr.as_slice();
    assert_eq!(views[0].raw().ptr(), elem.as_raw().ptr());
    let strings: Vec<String> = arr.as_slice()[..2].iter().map(|v| v.to::<String>().unwrap()).collect();
    assert_eq!(strings, ["element object, long"; 2]);
    drop(arr);
    assert_eq!(count(&elem), 3);
    drop(arr2);
    assert_eq!(count(&elem), 1);

    // Nested: an array inside an array is released with its parent.
    let inner = Any::from_value(Array::new(vec![elem.clone()])).unwrap();
    let outer = Array::new(vec![inner.clone()]);
    drop(inner);
    assert_eq!(count(&elem), 2);
    drop(outer);
    assert_eq!(count(&elem), 1);
}

#[test]
fn object_ref_round_trips() {
    let s = Str::new("object ref");
    let o = s.as_object().clone();
    assert_eq!(o.strong_count(), 2);
    assert_eq!(o.type_index(), ti::STR);
    let raw = o.into_raw();
    // SAFETY: `raw` carries the reference given up by `into_raw`.
    let o = unsafe { ObjectRef::from_raw(raw) };
    assert_eq!(o.strong_count(), 2);
    // SAFETY: `o` keeps the object alive.
    let extra = unsafe { ObjectRef::from_borrowed(raw) };
    assert_eq!(o.strong_count(), 3);
    let a = Any::from(extra);
    assert_eq!(a.type_index(), ti::STR);
    drop((a, o));
    assert_eq!(s.as_object().strong_count(), 1);
}

#[test]
fn refcounts_are_atomic_across_threads() {
    let a = Any::from_value(Function::from_closure(|_| Ok(Any::NONE))).unwrap();
    // Miri checks every access of every round for races: a tenth of the rounds there
    // (scripts/test-miri.sh).
    let rounds = if cfg!(miri) { 2_000 } else { 20_000 };
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| {
                for _ in 0..rounds {
                    let b = a.clone();
                    let c = b.view().to_any().unwrap();
                    drop((b, c));
                }
            });
        }
    });
    assert_eq!(count(&a), 1);
}
