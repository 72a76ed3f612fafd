//! The floors every case is compared with: a direct Rust call, and hand-written minimal
//! packed shims (count check, type checks, result write; an error is raised on a cold path).

use core::ffi::c_void;
use core::mem::{align_of, size_of};
use core::ptr::NonNull;
use core::sync::atomic::AtomicU64;
use std::alloc::{alloc, dealloc, handle_alloc_error, Layout};

use abi_core::ffi::type_index as ti;
use abi_core::ffi::{ByteArray, ObjectHeader, DELETER_WEAK, INITIAL_REF_COUNT};
use abi_core::{Error, RawAny};

/// A plain Rust `add`, never inlined so the call is real.
#[inline(never)]
pub fn add_direct(a: i64, b: i64) -> i64 {
    a.wrapping_add(b)
}

#[cold]
#[inline(never)]
fn raise(message: &'static str) -> i32 {
    abi_core::host::set_raised(Error::type_error(message));
    -1
}

/// Hand-written packed shim for `add(i64, i64) -> i64`.
///
/// # Safety
/// The packed calling convention: `args` holds `num_args` slots, `result` is writable.
pub unsafe extern "C" fn hand_add(_: *mut c_void, args: *const RawAny, num_args: i32, result: *mut RawAny) -> i32 {
    if num_args != 2 {
        return raise("add takes 2 arguments");
    }
    // SAFETY: the caller passes two readable slots.
    let (a, b) = unsafe { (&*args, &*args.add(1)) };
    if a.type_index != ti::INT || b.type_index != ti::INT {
        return raise("add expects int arguments");
    }
    // SAFETY: the caller passes a writable result slot.
    unsafe { *result = RawAny::from_i64(ti::INT, a.i64().wrapping_add(b.i64())) };
    0
}

/// Hand-written packed shim for `mixed4(a: i64, b: f64, c: bool, d: i32) -> f64`, with
/// the same conversions the generated one performs (int accepted for float, range check
/// for i32).
///
/// # Safety
/// The packed calling convention: `args` holds `num_args` slots, `result` is writable.
pub unsafe extern "C" fn hand_mixed4(_: *mut c_void, args: *const RawAny, num_args: i32, result: *mut RawAny) -> i32 {
    if num_args != 4 {
        return raise("mixed4 takes 4 arguments");
    }
    // SAFETY: the caller passes four readable slots.
    let s = unsafe { core::slice::from_raw_parts(args, 4) };
    if s[0].type_index != ti::INT || s[2].type_index != ti::BOOL || s[3].type_index != ti::INT {
        return raise("mixed4 argument types");
    }
    let b = match s[1].type_index {
        ti::FLOAT => s[1].f64(),
        ti::INT => s[1].i64() as f64,
        _ => return raise("mixed4 expects a float"),
    };
    let Ok(d) = i32::try_from(s[3].i64()) else {
        return raise("mixed4 d out of range");
    };
    let value = crate::exported::mixed4_body(s[0].i64(), b, s[2].i64() != 0, d);
    // SAFETY: the caller passes a writable result slot.
    unsafe {
        *result = RawAny { type_index: ti::FLOAT, small_len: 0, value: abi_core::ffi::RawValue { v_float64: value } }
    };
    0
}

/// Hand-written IREE `begin_call` for `add_i32` (`0ii_i`): the floor of the generated
/// module's call path (buffer sizes checked, two i32 read, one written; a bare status).
///
/// # Safety
/// The IREE module interface: the spans' pointers are valid for their lengths.
pub unsafe extern "C" fn hand_iree_add(
    _: *mut c_void,
    _: *mut c_void,
    call: abi_core::iree::abi::FunctionCall,
) -> abi_core::iree::abi::Status {
    let (args, results) = (call.arguments, call.results);
    if args.data_length != 8 || results.data_length != 4 || args.data.is_null() || results.data.is_null() {
        return abi_core::iree::status::code::INVALID_ARGUMENT as usize;
    }
    // SAFETY: both spans have the sizes checked above.
    unsafe {
        let a = args.data.cast::<i32>().read_unaligned();
        let b = args.data.add(4).cast::<i32>().read_unaligned();
        results.data.cast::<i32>().write_unaligned(a.wrapping_add(b));
    }
    0
}

/// The start of a Str object as [`hand_greet`] builds it: header, byte array, then the
/// bytes and a NUL in the same allocation.
#[repr(C)]
struct HandStr {
    header: ObjectHeader,
    array: ByteArray,
}

fn hand_str_layout(len: usize) -> Layout {
    Layout::from_size_align(size_of::<HandStr>() + len + 1, align_of::<HandStr>()).expect("string too long")
}

unsafe extern "C" fn hand_str_deleter(obj: *mut c_void, flags: i32) {
    if flags & DELETER_WEAK != 0 {
        // SAFETY: made by `hand_greet` with the layout of this (unchanged) size.
        unsafe { dealloc(obj.cast(), hand_str_layout((*obj.cast::<HandStr>()).array.size)) };
    }
}

/// Hand-written packed shim for `greet(name: &str) -> String` (inline-string arguments
/// only): the String's bytes copied into a new Str object in one allocation, as a careful
/// author would write it without the toolkit.
///
/// # Safety
/// The packed calling convention: `args` holds `num_args` slots, `result` is writable.
pub unsafe extern "C" fn hand_greet(_: *mut c_void, args: *const RawAny, num_args: i32, result: *mut RawAny) -> i32 {
    if num_args != 1 {
        return raise("greet takes 1 argument");
    }
    // SAFETY: the caller passes one readable slot.
    let a = unsafe { &*args };
    if a.type_index != ti::SMALL_STR {
        return raise("greet expects a short str");
    }
    let Ok(name) = core::str::from_utf8(&a.bytes()[..(a.small_len as usize).min(ti::SMALL_STR_MAX_LEN)]) else {
        return raise("greet expects UTF-8");
    };
    let s = crate::exported::greet(name);
    let layout = hand_str_layout(s.len());
    // SAFETY: the layout has a non-zero size; the block holds the head, the bytes and a NUL.
    unsafe {
        let raw = alloc(layout);
        if raw.is_null() {
            handle_alloc_error(layout);
        }
        let data = raw.add(size_of::<HandStr>());
        core::ptr::copy_nonoverlapping(s.as_ptr(), data, s.len());
        *data.add(s.len()) = 0;
        raw.cast::<HandStr>().write(HandStr {
            header: ObjectHeader {
                combined_ref_count: AtomicU64::new(INITIAL_REF_COUNT),
                type_index: ti::STR,
                padding: 0,
                deleter: Some(hand_str_deleter),
            },
            array: ByteArray { data, size: s.len() },
        });
        *result = RawAny::from_ptr(ti::STR, raw.cast());
    }
    0
}

/// A symbol of the libtvm_ffi this process loaded (`icount --tvm-ffi`), for the cases that
/// call it directly.
fn tvm_ffi_symbol<T: Copy>(name: &[u8]) -> T {
    use libloading::os::unix::Library;
    let this = Library::this();
    // SAFETY: the caller names a function of libtvm_ffi and its C type; loaded for good.
    let f = unsafe { this.get::<T>(name) }.unwrap_or_else(|e| panic!("libtvm_ffi is not loaded: {e}"));
    *f
}

/// `TVMFFIEnvGetStream(device_type, device_id)`.
pub type EnvGetStream = unsafe extern "C" fn(i32, i32) -> *mut c_void;

/// libtvm_ffi's `TVMFFIEnvGetStream`.
pub fn tvm_ffi_env_get_stream() -> EnvGetStream {
    tvm_ffi_symbol(b"TVMFFIEnvGetStream\0")
}

/// `TVMFFIEnvTensorAlloc(prototype, out)`.
type EnvTensorAlloc = unsafe extern "C" fn(*mut abi_core::DLTensor, *mut *mut c_void) -> i32;

/// What `Tensor::FromEnvAlloc` does in C++: the runtime's `TVMFFIEnvTensorAlloc` with a
/// prototype of `n` float32 on the CPU, then the new Tensor object released.
pub fn alloc_by_hand(alloc: EnvTensorAllocFn, n: i64) {
    let mut shape = [n];
    let mut prototype = abi_core::DLTensor {
        data: core::ptr::null_mut(),
        device: abi_core::Device::CPU,
        ndim: 1,
        dtype: abi_core::DataType { code: abi_core::ffi::code::FLOAT, bits: 32, lanes: 1 },
        shape: shape.as_mut_ptr(),
        strides: core::ptr::null_mut(),
        byte_offset: 0,
    };
    let mut out: *mut c_void = core::ptr::null_mut();
    // SAFETY: the entry point as its header declares it; the prototype lives for the call.
    let rc = unsafe { (alloc.0)(&mut prototype, &mut out) };
    assert_eq!(rc, 0);
    let obj = NonNull::new(out.cast::<ObjectHeader>()).expect("a tensor");
    // SAFETY: an owned reference, released here.
    drop(unsafe { abi_core::ObjectRef::from_raw(obj) });
}

/// libtvm_ffi's `TVMFFIEnvTensorAlloc`.
#[derive(Clone, Copy, Debug)]
pub struct EnvTensorAllocFn(EnvTensorAlloc);

/// The runtime's `TVMFFIEnvTensorAlloc`: libtvm_ffi's when it is loaded, else the embedded
/// runtime's, as its runtime table publishes it.
pub fn env_tensor_alloc() -> EnvTensorAllocFn {
    EnvTensorAllocFn(abi_core::__private::own_runtime_table().env.tensor_alloc.expect("an environment API"))
}

/// A DLPack allocator of host memory (a Rust `Vec` per tensor), as a framework lends one:
/// what the `Tensor::empty` cases allocate through.
///
/// # Safety
/// `DLPackManagedTensorAllocator`'s contract: `prototype` has `ndim` dimensions, `out` is
/// writable.
pub unsafe extern "C" fn vec_tensor_alloc(
    prototype: *mut abi_core::DLTensor,
    out: *mut *mut abi_core::ffi::DLManagedTensorVersioned,
    _error_ctx: *mut c_void,
    _set_error: abi_core::ffi::SetError,
) -> i32 {
    use abi_core::ffi::{DLManagedTensorVersioned, DLPackVersion};
    struct Owned {
        data: Vec<u64>,
        shape: Vec<i64>,
    }
    unsafe extern "C" fn deleter(m: *mut DLManagedTensorVersioned) {
        // SAFETY: made below with `Box::into_raw`, released once.
        let m = unsafe { Box::from_raw(m) };
        // SAFETY: as above.
        drop(unsafe { Box::from_raw(m.manager_ctx.cast::<Owned>()) });
    }
    // SAFETY: the contract: `ndim` dimensions.
    let p = unsafe { &*prototype };
    // SAFETY: as above.
    let shape: Vec<i64> = unsafe { core::slice::from_raw_parts(p.shape, p.ndim as usize) }.to_vec();
    let bytes = shape.iter().product::<i64>() as usize * (p.dtype.bits as usize * p.dtype.lanes as usize).div_ceil(8);
    let mut owned = Box::new(Owned { data: Vec::with_capacity(bytes.div_ceil(8)), shape });
    let dl = abi_core::DLTensor {
        data: owned.data.as_mut_ptr().cast(),
        device: p.device,
        ndim: p.ndim,
        dtype: p.dtype,
        shape: owned.shape.as_mut_ptr(),
        strides: core::ptr::null_mut(),
        byte_offset: 0,
    };
    let managed = Box::new(DLManagedTensorVersioned {
        version: DLPackVersion { major: 1, minor: 0 },
        manager_ctx: Box::into_raw(owned).cast(),
        deleter: Some(deleter),
        flags: 0,
        dl_tensor: dl,
    });
    // SAFETY: writable by the contract.
    unsafe { *out = Box::into_raw(managed) };
    0
}
