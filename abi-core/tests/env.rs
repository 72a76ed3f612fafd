//! The environment API in the embedded runtime (no tvm-ffi in this process): per-thread
//! streams with LIFO guards, the thread and process-wide allocator slots (thread first),
//! `Tensor::empty` through an allocator or a Rust allocation, and signal checks.

use core::ffi::c_void;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use abi_core::ffi::{code, device_type, DLManagedTensorVersioned, DLPackVersion, DLTensor, SetError};
use abi_core::{env, DataType, Device, Tensor};

const CUDA0: Device = Device::new(device_type::CUDA, 0);
const CUDA1: Device = Device::new(device_type::CUDA, 1);

fn fake(n: usize) -> env::Stream {
    env::Stream::from_ptr(n as *mut c_void)
}

#[test]
fn streams_are_per_thread_per_device_and_guards_restore_in_order() {
    assert!(env::stream(CUDA0).is_null(), "unset reads as null");
    {
        let _a = env::set_stream(CUDA0, fake(0x10));
        assert_eq!(env::stream(CUDA0), fake(0x10));
        assert!(env::stream(CUDA1).is_null(), "each device id has its own slot");
        {
            let _b = env::set_stream(CUDA0, fake(0x20));
            assert_eq!(env::stream(CUDA0), fake(0x20));
            std::thread::spawn(|| assert!(env::stream(CUDA0).is_null(), "another thread sees its own table"))
                .join()
                .unwrap();
        }
        assert_eq!(env::stream(CUDA0), fake(0x10), "the inner guard restored the outer stream");
    }
    assert!(env::stream(CUDA0).is_null());

    // Out of order: the first guard finds another stream in the slot and leaves it.
    let a = env::set_stream(CUDA1, fake(0x30));
    let b = env::set_stream(CUDA1, fake(0x40));
    drop(a);
    assert_eq!(env::stream(CUDA1), fake(0x40), "a guard restores only what it set");
    drop(b);
    assert_eq!(env::stream(CUDA1), fake(0x30), "the later guard restores what it found");
    let _c = env::set_stream(CUDA1, env::Stream::NULL);
}

#[test]
fn a_thread_keeps_the_streams_of_many_devices() {
    std::thread::spawn(|| {
        // More devices than the thread keeps in cells: the rest go to its list.
        let devices: Vec<Device> = (0..20).map(|id| Device::new(device_type::CUDA, id)).collect();
        let guards: Vec<_> = devices.iter().enumerate().map(|(i, &d)| env::set_stream(d, fake(100 + i))).collect();
        for (i, &d) in devices.iter().enumerate() {
            assert_eq!(env::stream(d), fake(100 + i), "{d}");
        }
        assert_eq!(env::stream(Device::new(device_type::ROCM, 3)), env::Stream::NULL);
        // A device in a cell and one in the list, replaced and restored.
        for &d in [devices[2], devices[15]].iter() {
            let guard = env::set_stream(d, fake(7));
            assert_eq!(env::stream(d), fake(7));
            drop(guard);
        }
        assert_eq!((env::stream(devices[2]), env::stream(devices[15])), (fake(102), fake(115)));
        drop(guards.into_iter().rev().collect::<Vec<_>>());
        assert!(devices.iter().all(|&d| env::stream(d) == env::Stream::NULL), "every guard restored null");
    })
    .join()
    .unwrap();
}

#[test]
fn uninit_tensors_are_written_before_they_are_read() {
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    for lent in [false, true] {
        let _guard = lent.then(|| env::set_tensor_allocator(Some(counting_alloc), false).unwrap());
        let mut t = Tensor::empty_uninit::<f32>(&[2, 3], Device::CPU).unwrap();
        assert_eq!((t.shape(), t.device()), (&[2i64, 3][..], Device::CPU));
        for (i, e) in t.as_uninit_mut().unwrap().iter_mut().enumerate() {
            e.write(i as f32);
        }
        // SAFETY: every element was written just above.
        let t = unsafe { t.assume_init() };
        assert_eq!(t.view().as_slice::<f32>().unwrap(), [0.0, 1.0, 2.0, 3.0, 4.0, 5.0], "allocator lent: {lent}");
        let filled = Tensor::empty_uninit::<i32>(&[4], Device::CPU).unwrap().fill(-7).unwrap();
        assert_eq!(filled.view().as_slice::<i32>().unwrap(), [-7; 4]);
        // The allocator's memory is 0xAA bytes until zeroed.
        let zeroed = Tensor::empty_uninit::<u8>(&[3], Device::CPU).unwrap().zeroed();
        assert_eq!(zeroed.view().as_slice::<u8>().unwrap(), [0; 3]);
    }
    let _guard = env::set_tensor_allocator(Some(counting_alloc), false).unwrap();
    let mut on_device = Tensor::empty_uninit::<f32>(&[2], Device::new(device_type::CUDA, 0)).unwrap();
    assert!(!on_device.data_ptr().is_null());
    let e = on_device.as_uninit_mut().unwrap_err();
    assert_eq!(e.message(), "tensor data on cuda:0 is not host-accessible");
    assert!(on_device.fill(1.0).is_err(), "no host writes to device memory");
}

#[test]
fn signals_are_never_pending_without_python() {
    assert!(env::check_signals().is_ok());
}

static ALLOCS: AtomicUsize = AtomicUsize::new(0);
static FREES: AtomicUsize = AtomicUsize::new(0);

/// A test allocator: a compact `Vec` per tensor, counted; device `cuda:7` fails.
unsafe extern "C" fn counting_alloc(
    prototype: *mut DLTensor,
    out: *mut *mut DLManagedTensorVersioned,
    ctx: *mut c_void,
    set_error: SetError,
) -> i32 {
    // SAFETY: the prototype of TVMFFIEnvTensorAlloc's contract: `ndim` dims.
    let p = unsafe { &*prototype };
    if p.device.device_id == 7 {
        // SAFETY: the error entry point with NUL-terminated texts.
        unsafe { set_error(ctx, c"MemoryError".as_ptr(), c"no memory on cuda:7".as_ptr()) };
        return -1;
    }
    // SAFETY: as above.
    let shape: Vec<i64> = unsafe { core::slice::from_raw_parts(p.shape, p.ndim as usize) }.to_vec();
    // Wrapping: an extent of 0 makes no bytes however large the others are.
    let bytes = shape.iter().fold(1i64, |n, &d| n.wrapping_mul(d)) as usize * (p.dtype.bits as usize / 8);
    struct Ctx {
        data: Vec<u64>,
        shape: Vec<i64>,
    }
    let mut ctx = Box::new(Ctx { data: vec![0xAAAA_AAAA_AAAA_AAAA; bytes.div_ceil(8)], shape });
    unsafe extern "C" fn deleter(m: *mut DLManagedTensorVersioned) {
        // SAFETY: made below with `Box::into_raw`, released once.
        let m = unsafe { Box::from_raw(m) };
        // SAFETY: as above.
        drop(unsafe { Box::from_raw(m.manager_ctx.cast::<Ctx>()) });
        FREES.fetch_add(1, Ordering::SeqCst);
    }
    let dl = DLTensor {
        data: ctx.data.as_mut_ptr().cast(),
        device: p.device,
        ndim: p.ndim,
        dtype: p.dtype,
        shape: ctx.shape.as_mut_ptr(),
        strides: core::ptr::null_mut(),
        byte_offset: 0,
    };
    let managed = Box::new(DLManagedTensorVersioned {
        version: DLPackVersion { major: 1, minor: 0 },
        manager_ctx: Box::into_raw(ctx).cast(),
        deleter: Some(deleter),
        flags: 0,
        dl_tensor: dl,
    });
    ALLOCS.fetch_add(1, Ordering::SeqCst);
    // SAFETY: writable by the contract.
    unsafe { *out = Box::into_raw(managed) };
    0
}

/// An allocator that answers with another dtype than asked (the counting one's memory,
/// retyped as int8).
unsafe extern "C" fn wrong_dtype_alloc(
    prototype: *mut DLTensor,
    out: *mut *mut DLManagedTensorVersioned,
    ctx: *mut c_void,
    set_error: SetError,
) -> i32 {
    // SAFETY: forwarded from the caller.
    let rc = unsafe { counting_alloc(prototype, out, ctx, set_error) };
    // SAFETY: a tensor the counting allocator just made.
    unsafe { (**out).dl_tensor.dtype = DataType { code: code::INT, bits: 8, lanes: 1 } };
    rc
}

#[test]
fn what_the_allocator_returns_is_checked() {
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let frees = FREES.load(Ordering::SeqCst);
    let _guard = env::set_tensor_allocator(Some(wrong_dtype_alloc), false).unwrap();
    let e = Tensor::empty::<f32>(&[4], Device::CPU).unwrap_err();
    assert_eq!(e.kind(), "RuntimeError");
    assert!(e.message().starts_with("the tensor allocator returned TensorView(int8, [4]"), "{}", e.message());
    assert!(e.message().ends_with("for a compact float32 [4] on cpu:0"), "{}", e.message());
    assert_eq!(FREES.load(Ordering::SeqCst), frees + 1, "the refused tensor was released");
}

/// The allocator tests share the process-wide slot: one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

#[test]
fn tensor_empty_uses_the_allocator_and_zeroes_host_memory() {
    let _serial = SERIAL.lock().unwrap();
    let (a0, f0) = (ALLOCS.load(Ordering::SeqCst), FREES.load(Ordering::SeqCst));
    {
        let _guard = env::set_tensor_allocator(Some(counting_alloc), false).unwrap();
        assert!(env::tensor_allocator().is_some());
        let mut t = Tensor::empty::<f32>(&[2, 3], Device::CPU).unwrap();
        assert_eq!(ALLOCS.load(Ordering::SeqCst), a0 + 1);
        assert_eq!(t.view().shape(), [2, 3]);
        assert_eq!(t.view().as_slice::<f32>().unwrap(), [0.0; 6], "host memory is zero-filled");
        t.as_mut_slice::<f32>().unwrap().copy_from_slice(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let shared = t.clone();
        assert!(t.as_mut_slice::<f32>().is_err(), "a shared tensor is not writable");
        assert_eq!(shared.view().as_slice::<f32>().unwrap()[5], 6.0);
        drop((t, shared));
        assert_eq!(FREES.load(Ordering::SeqCst), f0 + 1, "the deleter ran with the last reference");

        // A device tensor comes from the allocator too, left as allocated.
        let d = Tensor::empty::<u8>(&[5], CUDA1).unwrap();
        assert_eq!((d.view().device(), d.view().dtype().to_string()), (CUDA1, "uint8".to_owned()));
        let e = Tensor::empty::<f32>(&[4], Device::new(device_type::CUDA, 7)).unwrap_err();
        assert_eq!((e.kind(), e.message()), ("MemoryError", "no memory on cuda:7"));
        std::thread::spawn(|| assert!(env::tensor_allocator().is_none(), "the thread slot is per thread"))
            .join()
            .unwrap();
    }
    assert!(env::tensor_allocator().is_none(), "the guard restored the thread's slot");
    assert_eq!(ALLOCS.load(Ordering::SeqCst), a0 + 2);
}

#[test]
fn without_an_allocator_cpu_tensors_are_rust_allocations_and_device_ones_fail() {
    let _serial = SERIAL.lock().unwrap();
    let t = Tensor::empty::<i64>(&[3, 0], Device::CPU).unwrap();
    assert_eq!((t.view().shape(), t.view().numel()), (&[3i64, 0][..], 0));
    let t = Tensor::empty::<u16>(&[4], Device::CPU).unwrap();
    assert_eq!(t.view().as_slice::<u16>().unwrap(), [0; 4]);
    let e = Tensor::empty::<f32>(&[4], CUDA0).unwrap_err();
    assert_eq!(e.kind(), "RuntimeError");
    assert!(e.message().starts_with("Tensor::empty on cuda:0 needs the caller's tensor allocator"), "{}", e.message());
    assert_eq!(Tensor::empty::<f64>(&[0, 5], Device::CPU).unwrap().view().shape(), [0, 5]);
}

/// Asserts that `result` failed with `kind` and `message`.
fn expect_error<T>(result: abi_core::Result<T>, kind: &str, message: &str) {
    match result {
        Err(e) => assert_eq!((e.kind(), e.message()), (kind, message)),
        Ok(_) => panic!("expected {kind}: {message}"),
    }
}

#[test]
fn sizes_no_allocation_can_have_are_value_errors_and_refused_allocations_memory_errors() {
    let _serial = SERIAL.lock().unwrap();
    // More bytes than any allocation may hold (isize::MAX), elements or bytes overflowing, a
    // negative extent: the request is invalid, a ValueError, whatever the allocator.
    let limit = "more than 9223372036854775807 bytes, the most one allocation can hold";
    let invalid: [(&[i64], String); 4] = [
        (&[1 << 62], format!("shape [4611686018427387904] of float32 is too large: {limit}")),
        (&[1 << 61], format!("shape [2305843009213693952] of float32 is too large: {limit}")),
        (&[1 << 62, 4], format!("shape [4611686018427387904, 4] of float32 is too large: {limit}")),
        (&[3, -1], "shape [3, -1] has a negative extent".to_owned()),
    ];
    for with_allocator in [false, true] {
        let _guard = with_allocator.then(|| env::set_tensor_allocator(Some(counting_alloc), false).unwrap());
        let allocs = ALLOCS.load(Ordering::SeqCst);
        for (shape, message) in &invalid {
            expect_error(Tensor::empty::<f32>(shape, Device::CPU), "ValueError", message);
            expect_error(Tensor::empty_uninit::<f32>(shape, Device::CPU), "ValueError", message);
        }
        assert_eq!(ALLOCS.load(Ordering::SeqCst), allocs, "an invalid size never reaches the allocator");
        // Sizes are multiplied out extent by extent: a 0 first makes no elements; an
        // overflow before a 0 is too large (numpy refuses both).
        let none = Tensor::empty::<f32>(&[0, 1 << 62, 1 << 62], Device::CPU).unwrap();
        assert_eq!(none.view().numel(), 0);
        let e = Tensor::empty::<f32>(&[1 << 62, 1 << 62, 0], Device::CPU).unwrap_err();
        assert!(e.message().ends_with(limit), "{}", e.message());
    }
    // A size that can be asked for but that no memory holds (2**60 bytes, beyond any
    // address space; Miri cannot attempt it): a MemoryError.
    if !cfg!(miri) {
        let message = "cannot allocate 1152921504606846976 bytes for a float32 tensor of shape [288230376151711744]";
        expect_error(Tensor::empty::<f32>(&[1 << 58], Device::CPU), "MemoryError", message);
        expect_error(Tensor::empty_uninit::<f32>(&[1 << 58], Device::CPU), "MemoryError", message);
    }
}

#[test]
fn the_process_wide_allocator_serves_threads_without_their_own() {
    let _serial = SERIAL.lock().unwrap();
    let guard = env::set_tensor_allocator(Some(counting_alloc), true).unwrap();
    std::thread::spawn(|| {
        assert!(env::tensor_allocator().is_some(), "another thread falls back to the process-wide slot");
        let t = Tensor::empty::<f64>(&[2], Device::CPU).unwrap();
        assert_eq!(t.view().dtype(), abi_core::DataType::new(code::FLOAT, 64));
    })
    .join()
    .unwrap();
    drop(guard);
    // The guard restores the thread slot only: clear the process-wide one for other tests.
    let _clear = env::set_tensor_allocator(None, true).unwrap();
}
