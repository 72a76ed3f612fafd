//! The zero-allocation promises, observed with a counting allocator: an exported shim's
//! success path with scalar and borrowed arguments, and typed import calls packing
//! scalars, short and medium strings, byte slices and tensor views on the stack, and an
//! IREE module's successful call.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use abi_core::{Any, Tensor, TensorView};
use abi_derive_tests::call_raw;

/// Counts allocations made by the current thread while `COUNTING` is set.
struct CountingAlloc;

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: forwards every call to the system allocator unchanged.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // `try_with`: thread-local storage may already be gone during thread teardown.
        let _ = COUNTING.try_with(|c| {
            if c.get() {
                let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
            }
        });
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

/// Allocations `f` makes on this thread.
fn allocations_in(f: impl FnOnce()) -> usize {
    ALLOCATIONS.with(|n| n.set(0));
    COUNTING.with(|c| c.set(true));
    f();
    COUNTING.with(|c| c.set(false));
    ALLOCATIONS.with(|n| n.get())
}

#[abi_core::export_fn]
pub fn add(a: i64, b: i64) -> i64 {
    a.wrapping_add(b)
}

#[abi_core::export_fn]
pub fn weigh(name: &str, data: &[u8], t: TensorView<'_>, scale: f64) -> f64 {
    (name.len() + data.len() + t.numel()) as f64 * scale
}

/// Also a function of this binary's IREE module.
#[abi_core::export_fn(iree)]
pub fn add_i32(a: i32, b: i32) -> i32 {
    a.wrapping_add(b)
}

abi_core::iree_module!("noalloc");

#[abi_core::import(Local)]
extern "C" {
    fn add(a: i64, b: i64) -> i64;
    fn weigh(name: &str, data: &[u8], t: TensorView<'_>, scale: f64) -> f64;
}

#[test]
fn export_shim_success_path_allocates_nothing() {
    assert_eq!(allocations_in(|| drop(std::hint::black_box(Box::new(1u64)))), 1, "the counter counts");
    let shim = abi_core::find_export("add").unwrap().safe_call;
    let (a, b) = (Any::from_value(40i64).unwrap(), Any::from_value(2i64).unwrap());
    let raw = [*a.as_raw(), *b.as_raw()];
    // SAFETY: two live Int slots.
    unsafe { call_raw(shim, &raw) }.unwrap(); // warm: host bridge resolution happens once
    let n = allocations_in(|| {
        for _ in 0..1000 {
            // SAFETY: as above.
            let r = unsafe { call_raw(shim, &raw) }.unwrap();
            assert_eq!(r.to::<i64>().unwrap(), 42);
        }
    });
    assert_eq!(n, 0, "the add shim allocated");

    let tensor = Tensor::from_vec(vec![0u8; 16], &[16]).unwrap();
    let args = [
        Any::from_value("a string long enough to be a Str object").unwrap(),
        Any::from_value(vec![7u8; 100]).unwrap(),
        Any::from_value(tensor).unwrap(),
        Any::from_value(0.5f64).unwrap(),
    ];
    let raw: Vec<_> = args.iter().map(|a| *a.as_raw()).collect();
    let shim = abi_core::find_export("weigh").unwrap().safe_call;
    let n = allocations_in(|| {
        // SAFETY: four live slots borrowed from `args`.
        let r = unsafe { call_raw(shim, &raw) }.unwrap();
        assert_eq!(r.to::<f64>().unwrap(), (39 + 100 + 16) as f64 * 0.5);
    });
    assert_eq!(n, 0, "borrowed arguments were copied");
}

#[test]
fn import_calls_pack_scalars_and_borrowed_arguments_on_the_stack() {
    let local = Local::bind_linked().unwrap();
    assert_eq!(local.add(1, 2).unwrap(), 3); // warm
    let n = allocations_in(|| {
        for i in 0..1000 {
            assert_eq!(local.add(i, 1).unwrap(), i + 1);
        }
    });
    assert_eq!(n, 0, "scalar import calls allocated");

    let tensor = Tensor::from_vec(vec![1.0f32; 8], &[8]).unwrap();
    let medium = "m".repeat(200); // longer than the inline form, within the stack copy
    let n = allocations_in(|| {
        for name in ["short", medium.as_str()] {
            let w = local.weigh(name, &[1, 2, 3], tensor.view(), 2.0).unwrap();
            assert_eq!(w, (name.len() + 3 + 8) as f64 * 2.0);
        }
    });
    assert_eq!(n, 0, "borrowed import arguments allocated");
}

#[test]
fn iree_module_call_success_path_allocates_nothing() {
    use abi_core::iree::abi::{linkage, ByteSpan, Function, FunctionCall, StringView};
    let mut module = std::ptr::null_mut();
    // SAFETY: no parameters and a writable output.
    assert_eq!(unsafe { abi_core::iree::module::create("noalloc", 1, 0, std::ptr::null(), &mut module) }, 0);
    // SAFETY: a live module.
    let m = unsafe { &*module };
    let mut function = Function { module: std::ptr::null_mut(), linkage: 0, ordinal: 0 };
    let name = StringView { data: "add_i32".as_ptr(), size: 7 };
    // SAFETY: a live module; no expected signature.
    assert_eq!(unsafe { (m.lookup_function)(m.self_, linkage::EXPORT, name, std::ptr::null(), &mut function) }, 0);
    let mut args = [0u8; 8];
    args[..4].copy_from_slice(&40i32.to_le_bytes());
    args[4..].copy_from_slice(&2i32.to_le_bytes());
    let mut results = [0u8; 4];
    let call = FunctionCall {
        function,
        arguments: ByteSpan { data: args.as_mut_ptr(), data_length: 8 },
        results: ByteSpan { data: results.as_mut_ptr(), data_length: 4 },
    };
    let n = allocations_in(|| {
        for _ in 0..1000 {
            // SAFETY: a live module and buffers of the convention's sizes.
            assert_eq!(unsafe { (m.begin_call)(m.self_, std::ptr::null_mut(), call) }, 0);
        }
    });
    assert_eq!(i32::from_le_bytes(results), 42);
    assert_eq!(n, 0, "the IREE call allocated");
    // SAFETY: destroyed once, as the host does.
    unsafe { (m.destroy)(m.self_) };
}
