//! The floors every case is compared with: a direct Rust call, and hand-written minimal
//! packed shims (count check, type checks, result write; an error is raised on a cold path).

use core::ffi::c_void;
use core::mem::{align_of, size_of};
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
