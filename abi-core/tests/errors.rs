//! Error objects: kinds, messages and Display; conversions from standard errors and from
//! conversion failures; the `update_backtrace` entry hosts call through the raw cell;
//! foreign Error objects; and the thread-local raised-error slot of the embedded runtime
//! (no tvm-ffi is loaded in a cargo test process).

use core::ffi::c_void;
use core::ptr::NonNull;
use core::sync::atomic::AtomicU64;

use abi_core::ffi::type_index as ti;
use abi_core::ffi::ByteArray;
use abi_core::ffi::{ObjectHeader, INITIAL_REF_COUNT};
use abi_core::host::{self, abi_error_move_from_raised, abi_error_set_raised};
use abi_core::ObjectHandle;
use abi_core::ObjectRef;
use abi_core::{AbiType, Any, ConvError, Error};

/// `update_backtrace(obj, *bytearray, mode)`, as hosts see it in the Error cell.
type UpdateBacktrace = unsafe extern "C" fn(*mut c_void, *const ByteArray, i32);

/// Reads the `update_backtrace` pointer at cell offset 48 and calls it.
fn update_backtrace(e: &Error, text: &[u8], mode: i32) {
    let obj = e.as_object().as_ptr().cast::<u8>();
    let arr = ByteArray::from_slice(text);
    // SAFETY: an Error object's cell (at +24) holds update_backtrace at offset 48; hosts call
    // it with the object itself and a byte array valid for the call.
    unsafe {
        let f = obj.add(24 + 48).cast::<UpdateBacktrace>().read();
        f(obj.cast(), &arr, mode);
    }
}

/// The backtrace bytes read through the cell (offset 32), checking the NUL after them.
fn raw_backtrace(e: &Error) -> Vec<u8> {
    // SAFETY: the cell's third byte array is NUL-terminated storage owned by the object.
    unsafe {
        let arr = e.as_object().as_ptr().cast::<u8>().add(24 + 32).cast::<ByteArray>().read();
        let all = core::slice::from_raw_parts(arr.data, arr.size + 1);
        assert_eq!(all[arr.size], 0, "backtrace stays NUL-terminated");
        all[..arr.size].to_vec()
    }
}

#[test]
fn constructors_name_their_kinds() {
    type Make = fn(String) -> Error;
    let cases: [(Make, &str); 8] = [
        (Error::runtime_error, "RuntimeError"),
        (Error::value_error, "ValueError"),
        (Error::type_error, "TypeError"),
        (Error::attribute_error, "AttributeError"),
        (Error::key_error, "KeyError"),
        (Error::index_error, "IndexError"),
        (Error::assertion_error, "AssertionError"),
        (Error::memory_error, "MemoryError"),
    ];
    for (make, kind) in cases {
        let e = make(format!("message for {kind}"));
        assert_eq!(e.kind(), kind);
        assert_eq!(e.message(), format!("message for {kind}"));
        assert_eq!(e.to_string(), format!("{kind}: message for {kind}"));
        assert_eq!(e.backtrace(), "");
        assert_eq!(e.as_object().type_index(), ti::ERROR);
    }
    let custom = Error::new("MyLibraryError", "custom kinds pass through");
    assert_eq!(custom.to_string(), "MyLibraryError: custom kinds pass through");
    assert_eq!(format!("{custom:?}"), "Error { kind: \"MyLibraryError\", message: \"custom kinds pass through\" }");
    let unicode = Error::value_error("ünïcödé and\nnewline");
    assert_eq!(unicode.message(), "ünïcödé and\nnewline");
}

#[test]
fn strings_become_runtime_errors() {
    let e: Error = "from &str".into();
    assert_eq!((e.kind(), e.message()), ("RuntimeError", "from &str"));
    let e: Error = String::from("from String").into();
    assert_eq!((e.kind(), e.message()), ("RuntimeError", "from String"));
}

fn parse_sum(a: &str, b: &str) -> abi_core::Result<i64> {
    Ok(a.parse::<i64>()? + b.parse::<i64>()?)
}

#[test]
fn std_errors_convert_with_kinds() {
    assert_eq!(parse_sum("2", "40").unwrap(), 42);
    let e = parse_sum("2", "forty").unwrap_err();
    assert_eq!((e.kind(), e.message()), ("ValueError", "invalid digit found in string"));

    let e: Error = "x".parse::<f64>().unwrap_err().into();
    assert_eq!((e.kind(), e.message()), ("ValueError", "invalid float literal"));
    let e: Error = u8::try_from(300i32).unwrap_err().into();
    assert_eq!(e.kind(), "ValueError");
    let e: Error = String::from_utf8(vec![0xff]).unwrap_err().into();
    assert_eq!(e.kind(), "ValueError");
    let e: Error = "maybe".parse::<bool>().unwrap_err().into();
    assert_eq!((e.kind(), e.message()), ("ValueError", "provided string was not `true` or `false`"));
    let e: Error = <[u8; 2]>::try_from(&[1u8, 2, 3][..]).unwrap_err().into();
    assert_eq!(e.kind(), "ValueError");
    let e: Error = std::io::Error::new(std::io::ErrorKind::NotFound, "no such file").into();
    assert_eq!((e.kind(), e.message()), ("RuntimeError", "no such file"));
}

#[test]
fn conversion_errors_map_to_kinds() {
    let int = <i32 as AbiType>::DESC;
    let mismatch = ConvError::mismatch(int, ti::SMALL_STR);
    let cases: Vec<(ConvError, &str, &str)> = vec![
        (mismatch.clone(), "TypeError", "expected int, got str"),
        (
            ConvError::Length { what: "tuple", expected: 2, got: 3 },
            "TypeError",
            "expected tuple of length 2, got length 3",
        ),
        (ConvError::InvalidUtf8, "ValueError", "invalid UTF-8 in string"),
        (
            ConvError::Element { index: 4, inner: Box::new(ConvError::InvalidUtf8) },
            "ValueError",
            "element 4: invalid UTF-8 in string",
        ),
        (
            ConvError::Field { owner: "Point", field: "x", inner: Box::new(mismatch) },
            "TypeError",
            "Point.x: expected int, got str",
        ),
    ];
    for (conv, kind, message) in cases {
        assert_eq!(conv.kind(), kind);
        assert_eq!(conv.to_string(), message);
        let e = Error::from(conv);
        assert_eq!((e.kind(), e.message()), (kind, message));
    }
    let original = Error::key_error("kept as is");
    let ptr = original.as_object().as_ptr();
    let back = Error::from(ConvError::from(original));
    assert_eq!(back.as_object().as_ptr(), ptr, "ConvError::Other carries the same object");
    assert_eq!(back.as_object().strong_count(), 1);
}

#[test]
fn update_backtrace_replace_and_append() {
    let e = Error::with_backtrace("RuntimeError", "msg", "frame A\n");
    assert_eq!(e.backtrace(), "frame A\n");
    update_backtrace(&e, b"frame B\n", 1);
    assert_eq!(e.backtrace(), "frame A\nframe B\n");
    assert_eq!(raw_backtrace(&e), b"frame A\nframe B\n");
    update_backtrace(&e, b"replaced", 0);
    assert_eq!(e.backtrace(), "replaced");
    assert_eq!(raw_backtrace(&e), b"replaced");
    update_backtrace(&e, b"", 1);
    assert_eq!(e.backtrace(), "replaced");
    update_backtrace(&e, b"", 0);
    assert_eq!(e.backtrace(), "");
    for i in 0..100 {
        update_backtrace(&e, format!("{i},").as_bytes(), 1);
    }
    assert!(e.backtrace().starts_with("0,1,2,") && e.backtrace().ends_with("98,99,"));
    // Kind and message are untouched by backtrace updates.
    assert_eq!((e.kind(), e.message()), ("RuntimeError", "msg"));
}

#[test]
fn update_backtrace_ignores_a_null_array() {
    let e = Error::with_backtrace("RuntimeError", "msg", "kept");
    let obj = e.as_object().as_ptr().cast::<u8>();
    // SAFETY: as in `update_backtrace`, with a null byte array the function must ignore.
    unsafe {
        let f = obj.add(24 + 48).cast::<UpdateBacktrace>().read();
        f(obj.cast(), core::ptr::null(), 1);
    }
    assert_eq!(e.backtrace(), "kept");
}

#[test]
fn update_backtrace_from_many_threads() {
    let e = Error::with_backtrace("RuntimeError", "msg", "");
    std::thread::scope(|s| {
        for t in 0..4 {
            let e = &e;
            s.spawn(move || {
                for _ in 0..250 {
                    update_backtrace(e, &[b'a' + t], 1);
                }
            });
        }
    });
    let bt = raw_backtrace(&e);
    assert_eq!(bt.len(), 1000);
    for t in 0..4u8 {
        assert_eq!(bt.iter().filter(|&&b| b == b'a' + t).count(), 250);
    }
}

/// An Error object made by a foreign library: header and the three byte arrays.
#[repr(C)]
struct ForeignError {
    header: ObjectHeader,
    kind: ByteArray,
    message: ByteArray,
    backtrace: ByteArray,
}

#[test]
fn foreign_error_objects_are_read_through_the_cell() {
    let foreign = Box::new(ForeignError {
        header: ObjectHeader {
            combined_ref_count: AtomicU64::new(INITIAL_REF_COUNT + 1),
            type_index: ti::ERROR,
            padding: 0,
            deleter: None,
        },
        kind: ByteArray::from_slice(b"\xffKind"),
        message: ByteArray::from_slice(b"from C++"),
        backtrace: ByteArray::from_slice(b""),
    });
    // SAFETY: the box outlives the handle; the count includes the reference adopted here.
    let obj = unsafe { ObjectRef::from_raw(NonNull::from(&*foreign).cast()) };
    let e = Error::from_object(obj).unwrap();
    assert_eq!(e.kind(), "<invalid utf-8>");
    assert_eq!(e.message(), "from C++");
    assert_eq!(e.backtrace(), "");
    drop(e);

    let not_error = Any::from_value("not an error object").unwrap().to::<ObjectRef>().unwrap();
    let back = Error::from_object(not_error).unwrap_err();
    assert_eq!((back.type_index(), back.strong_count()), (ti::STR, 1));
}

#[test]
fn errors_travel_through_any() {
    let e = Error::attribute_error("no attribute `x`");
    let ptr = e.as_object().as_ptr();
    let a = Any::from_value(e).unwrap();
    assert_eq!(a.type_index(), ti::ERROR);
    let back = a.to::<Error>().unwrap();
    assert_eq!(back.as_object().as_ptr(), ptr);
    assert_eq!(back.as_object().strong_count(), 2);
    assert_eq!(back.to_string(), "AttributeError: no attribute `x`");
}

#[test]
fn raised_slot_is_thread_local_and_taken_once() {
    assert!(!host::has_tvm_ffi_runtime(), "cargo test processes load no tvm-ffi");
    assert!(host::take_raised().is_none());
    let e = Error::value_error("raised here");
    let ptr = e.as_object().as_ptr();
    host::set_raised(e);
    let other_thread = std::thread::spawn(|| host::take_raised().map(|e| e.to_string())).join().unwrap();
    assert_eq!(other_thread, None, "the slot belongs to the raising thread");
    let taken = host::take_raised().unwrap();
    assert_eq!(taken.as_object().as_ptr(), ptr);
    assert_eq!(taken.as_object().strong_count(), 1);
    assert!(host::take_raised().is_none(), "taking empties the slot");

    host::set_raised(Error::type_error("first"));
    host::set_raised(Error::type_error("second"));
    assert_eq!(host::take_raised().unwrap().message(), "second", "a later error replaces an earlier one");
}

#[test]
fn failure_without_a_raised_error_is_reported() {
    assert!(host::take_raised().is_none());
    let e = host::take_raised_after(-7);
    assert_eq!((e.kind(), e.message()), ("RuntimeError", "call failed with code -7 but raised no error"));
}

#[test]
fn c_entry_points_move_errors() {
    let e = Error::key_error("through C");
    // SAFETY: a live Error object, borrowed by the call.
    unsafe { abi_error_set_raised(e.as_object().as_ptr().cast()) };
    assert_eq!(e.as_object().strong_count(), 2, "the slot holds its own reference");
    let mut out: *mut c_void = core::ptr::null_mut();
    // SAFETY: `out` is a valid pointer.
    unsafe { abi_error_move_from_raised(&mut out) };
    assert_eq!(out.cast::<ObjectHeader>(), e.as_object().as_ptr());
    // SAFETY: the entry point handed over one owned reference.
    let moved = Error::from_object(unsafe { ObjectRef::from_raw(NonNull::new(out.cast()).unwrap()) }).unwrap();
    assert_eq!(moved.message(), "through C");
    drop(moved);
    assert_eq!(e.as_object().strong_count(), 1);

    let mut out: *mut c_void = NonNull::<u8>::dangling().as_ptr().cast();
    // SAFETY: as above; nothing is raised so null comes back.
    unsafe { abi_error_move_from_raised(&mut out) };
    assert!(out.is_null());
    // SAFETY: null arguments must be ignored.
    unsafe {
        abi_error_set_raised(core::ptr::null_mut());
        abi_error_move_from_raised(core::ptr::null_mut());
    }
    // A non-Error object is not raised.
    let s = abi_core::Str::new("not an error");
    // SAFETY: a live object.
    unsafe { abi_error_set_raised(s.as_object().as_ptr().cast()) };
    assert!(host::take_raised().is_none());
    assert_eq!(s.as_object().strong_count(), 1);
}
