//! One environment per process with no tvm-ffi host: the stream and the tensor allocator
//! this test program sets are the ones a library it opened (examples/tensor-kit) sees,
//! through the runtime table `Library::open` hands over; each thread has its own.

use core::ffi::c_void;
use std::sync::atomic::{AtomicUsize, Ordering};

use abi_core::ffi::{device_type, DLManagedTensorVersioned, DLPackVersion, DLTensor, SetError};
use abi_core::{env, Device, Library, Tensor};
use abi_derive_tests::fixture_library;

#[abi_core::import(Kit)]
extern "C" {
    fn current_stream(device: Device) -> i64;
    fn ones(n: i64) -> Tensor;
    fn spin(n: i64) -> i64;
}

fn kit() -> Kit {
    let lib = Library::open(fixture_library("tensor-kit", "tensor_kit")).expect("open tensor-kit");
    Kit::bind(&lib).expect("bind tensor-kit")
}

static ALLOCS: AtomicUsize = AtomicUsize::new(0);

/// A counting allocator over a leaked `Vec` per tensor (freed by its deleter).
unsafe extern "C" fn counting(
    prototype: *mut DLTensor,
    out: *mut *mut DLManagedTensorVersioned,
    _ctx: *mut c_void,
    _set_error: SetError,
) -> i32 {
    // SAFETY: the allocator contract: a prototype with `ndim` dims, a writable `out`.
    unsafe {
        let p = &*prototype;
        let mut shape = core::slice::from_raw_parts(p.shape, p.ndim as usize).to_vec().into_boxed_slice();
        let n = shape.iter().product::<i64>() as usize;
        let data = Box::into_raw(vec![0u32; n.max(1)].into_boxed_slice());
        unsafe extern "C" fn deleter(m: *mut DLManagedTensorVersioned) {
            // SAFETY: made below, released once.
            unsafe {
                let m = Box::from_raw(m);
                let (data, shape) = *Box::from_raw(m.manager_ctx.cast::<(*mut [u32], Box<[i64]>)>());
                drop((Box::from_raw(data), shape));
            }
        }
        let dl = DLTensor {
            data: data.cast(),
            shape: shape.as_mut_ptr(),
            strides: core::ptr::null_mut(),
            byte_offset: 0,
            ..*p
        };
        let ctx = Box::into_raw(Box::new((data, shape))).cast();
        let version = DLPackVersion { major: 1, minor: 0 };
        *out = Box::into_raw(Box::new(DLManagedTensorVersioned {
            version,
            manager_ctx: ctx,
            deleter: Some(deleter),
            flags: 0,
            dl_tensor: dl,
        }));
    }
    ALLOCS.fetch_add(1, Ordering::SeqCst);
    0
}

#[test]
fn the_library_sees_the_programs_stream_and_allocator() {
    assert!(!abi_core::host::has_tvm_ffi_runtime());
    let kit = kit();
    let cuda = Device::new(device_type::CUDA, 3);
    assert_eq!(kit.current_stream(cuda).unwrap(), 0);
    {
        let _guard = env::set_stream(cuda, env::Stream::from_ptr(0xBEEF as *mut c_void));
        assert_eq!(kit.current_stream(cuda).unwrap(), 0xBEEF, "the library reads the program's table");
        let other = std::thread::spawn(move || kit_on_thread(cuda)).join().unwrap();
        assert_eq!(other, 0, "another thread has its own");
    }
    assert_eq!(kit.current_stream(cuda).unwrap(), 0);

    let before = ALLOCS.load(Ordering::SeqCst);
    let plain = kit.ones(3).unwrap();
    assert_eq!(ALLOCS.load(Ordering::SeqCst), before, "no allocator: a Rust allocation");
    assert_eq!(plain.view().as_slice::<f32>().unwrap(), [1.0; 3]);
    {
        let _guard = env::set_tensor_allocator(Some(counting), false).unwrap();
        let t = kit.ones(4).unwrap();
        assert_eq!(ALLOCS.load(Ordering::SeqCst), before + 1, "the library allocated through the program's allocator");
        assert_eq!(t.view().as_slice::<f32>().unwrap(), [1.0; 4]);
    }
    assert_eq!(kit.spin(10_000).unwrap(), 10_000, "no signals without Python");
}

fn kit_on_thread(device: Device) -> i64 {
    kit().current_stream(device).unwrap()
}
