//! How a library finds its runtime when a tvm-ffi runtime is loaded by the process itself
//! rather than by Python. Each scenario needs a fresh process (the runtime is decided once
//! per library) and the wheel's libtvm_ffi, so the tests are ignored by `cargo test` and
//! run one per process by scripts/test-host-bridge.sh with `ABI_TVM_FFI_LIBDIR` set.

use core::ffi::c_void;
use std::path::PathBuf;

use abi_core::ffi::ByteArray;
use abi_core::{Error, Function, Library, ObjectHandle, TypedFunction};
use abi_derive_tests::fixture_library;
use libloading::os::unix::{Library as Dl, RTLD_GLOBAL, RTLD_LAZY, RTLD_LOCAL};

fn libtvm_ffi() -> PathBuf {
    let dir = std::env::var_os("ABI_TVM_FFI_LIBDIR").expect("ABI_TVM_FFI_LIBDIR names the wheel's lib folder");
    PathBuf::from(dir).join("libtvm_ffi.so")
}

type MoveFromRaised = unsafe extern "C" fn(*mut *mut c_void);
type GetGlobal = unsafe extern "C" fn(*const ByteArray, *mut *mut c_void) -> i32;

/// The error tvm-ffi's own slot holds on this thread, taken with its C API.
fn take_from_tvm_ffi(tvm: &Dl) -> Option<Error> {
    // SAFETY: the documented signature of TVMFFIErrorMoveFromRaised.
    let take = unsafe { tvm.get::<MoveFromRaised>(b"TVMFFIErrorMoveFromRaised\0") }.unwrap();
    let mut out = core::ptr::null_mut();
    // SAFETY: writes an owned reference or null.
    unsafe { take(&mut out) };
    let obj = core::ptr::NonNull::new(out.cast())?;
    // SAFETY: an owned reference to an Error object.
    Error::from_object(unsafe { abi_core::ObjectRef::from_raw(obj) }).ok()
}

#[test]
#[ignore = "needs libtvm_ffi and a fresh process: run by scripts/test-host-bridge.sh"]
fn tvm_ffi_loaded_rtld_local_is_found_with_rtld_noload() {
    // Loaded RTLD_LOCAL before any abi call: RTLD_DEFAULT cannot see it, the RTLD_NOLOAD
    // fallback must.
    // SAFETY: loading the wheel's runtime runs its initialisers, as any host does.
    let tvm = unsafe { Dl::open(Some(libtvm_ffi()), RTLD_LAZY | RTLD_LOCAL) }.expect("load libtvm_ffi");
    assert!(abi_core::host::has_tvm_ffi_runtime(), "found through dlopen(libtvm_ffi.so, RTLD_NOLOAD)");

    // Our errors go to tvm-ffi's slot, read back with tvm-ffi's own API.
    abi_core::host::set_raised(Error::value_error("raised by abi"));
    let err = take_from_tvm_ffi(&tvm).expect("the error is in tvm-ffi's slot");
    assert_eq!((err.kind(), err.message()), ("ValueError", "raised by abi"));

    // Our globals go to tvm-ffi's registry.
    let f = TypedFunction::<fn(i64) -> i64>::new(|x| x + 1);
    f.as_function().register_global("host_bridge.inc", true).unwrap();
    // SAFETY: the documented signature of TVMFFIFunctionGetGlobal.
    let get = unsafe { tvm.get::<GetGlobal>(b"TVMFFIFunctionGetGlobal\0") }.unwrap();
    let name = ByteArray::from_slice(b"host_bridge.inc");
    let mut out = core::ptr::null_mut();
    // SAFETY: writes an owned reference or null.
    assert_eq!(unsafe { get(&name, &mut out) }, 0);
    let obj = core::ptr::NonNull::new(out.cast()).expect("registered in tvm-ffi's registry");
    // SAFETY: an owned reference to a Function object.
    let g = Function::from_object(unsafe { abi_core::ObjectRef::from_raw(obj) }).unwrap();
    assert_eq!(TypedFunction::<fn(i64) -> i64>::from_function(g).call(41).unwrap(), 42);

    // A library opened now is handed tvm-ffi's runtime; its errors land in tvm-ffi's slot
    // and come back to us.
    let math = Library::open(fixture_library("abi-mathlib", "mathlib")).unwrap();
    let a = abi_core::Any::from_value(1i64).unwrap();
    let b = abi_core::Any::from_value(0i64).unwrap();
    let err = math.get("divide").unwrap().call_raw(&[*a.as_raw(), *b.as_raw()]).unwrap_err();
    assert_eq!(err.kind(), "ValueError");
}

#[test]
#[ignore = "needs libtvm_ffi and a fresh process: run by scripts/test-host-bridge.sh"]
fn a_tvm_ffi_runtime_loaded_after_the_first_call_is_not_adopted() {
    // The first use decides: no tvm-ffi yet, so the embedded runtime.
    assert!(!abi_core::host::has_tvm_ffi_runtime());
    // SAFETY: loading the wheel's runtime runs its initialisers, as any host does.
    let tvm = unsafe { Dl::open(Some(libtvm_ffi()), RTLD_LAZY | RTLD_GLOBAL) }.expect("load libtvm_ffi");
    assert!(!abi_core::host::has_tvm_ffi_runtime(), "decided once, at the first use");

    // Errors stay in the embedded slot; tvm-ffi's slot stays empty.
    abi_core::host::set_raised(Error::type_error("embedded"));
    assert!(take_from_tvm_ffi(&tvm).is_none());
    assert_eq!(abi_core::host::take_raised().unwrap().message(), "embedded");

    // A library opened afterwards is attached to the embedded runtime, not to tvm-ffi,
    // even though tvm-ffi is now visible to it: one runtime per process.
    let math = Library::open(fixture_library("abi-mathlib", "mathlib")).unwrap();
    math.get("register_scaler")
        .unwrap()
        .call_raw(&[
            *abi_core::Any::from_value("host_bridge.late").unwrap().as_raw(),
            *abi_core::Any::from_value(2i64).unwrap().as_raw(),
        ])
        .unwrap();
    assert!(abi_core::host::embedded_global_names().contains(&"host_bridge.late".to_owned()));
}

/// A global every libtvm_ffi registers and the embedded runtime does not.
#[abi_core::import(LateGlobals)]
extern "C" {
    #[abi(name = "ffi.MapSize")]
    fn map_size(map: abi_core::Any) -> i64;
}

#[test]
#[ignore = "needs libtvm_ffi and a fresh process: run by scripts/test-host-bridge.sh"]
fn globals_missing_because_tvm_ffi_came_late_say_so() {
    assert!(!abi_core::host::has_tvm_ffi_runtime());
    let err = LateGlobals::bind_globals().unwrap_err();
    assert!(!err.message().contains("libtvm_ffi was loaded after"), "{}", err.message());
    assert!(err.message().contains("registry: no tvm-ffi runtime is loaded in this process"), "{}", err.message());
    assert_the_bindgen_chapter_quotes_the_cause(err.message());
    // SAFETY: loading the wheel's runtime runs its initialisers, as any host does.
    let _tvm = unsafe { Dl::open(Some(libtvm_ffi()), RTLD_LAZY | RTLD_GLOBAL) }.expect("load libtvm_ffi");
    let err = LateGlobals::bind_globals().unwrap_err();
    assert!(
        err.message().starts_with(
            "cannot bind LateGlobals from the global registry: libtvm_ffi was loaded after this process's first \
             abi call"
        ),
        "{}",
        err.message()
    );
    assert!(err.message().ends_with("before the first abi call; missing: ffi.MapSize"), "{}", err.message());
    assert_the_bindgen_chapter_quotes_the_cause(err.message());
}

/// docs/guide/bindgen.md quotes the cause a bind error leads with (between `registry: ` and
/// `; missing`) word for word.
fn assert_the_bindgen_chapter_quotes_the_cause(message: &str) {
    let words = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
    let cause = message.split_once("registry: ").and_then(|(_, rest)| rest.split_once("; missing")).map(|(c, _)| c);
    let cause = cause.unwrap_or_else(|| panic!("no cause in: {message}"));
    let chapter = std::fs::read_to_string(abi_derive_tests::workspace_root().join("docs/guide/bindgen.md")).unwrap();
    assert!(words(&chapter).contains(&words(cause)), "docs/guide/bindgen.md does not quote: {cause}");
}

#[test]
#[ignore = "needs libtvm_ffi and a fresh process: run by scripts/test-host-bridge.sh"]
fn a_library_with_object_types_opened_after_a_late_tvm_ffi_is_refused_saying_why() {
    assert!(!abi_core::host::has_tvm_ffi_runtime());
    // SAFETY: loading the wheel's runtime runs its initialisers, as any host does.
    let _tvm = unsafe { Dl::open(Some(libtvm_ffi()), RTLD_LAZY | RTLD_GLOBAL) }.expect("load libtvm_ffi");
    // Its object types are registered with tvm-ffi as it loads (so Python would see them),
    // which settles its runtime before this process can hand it the embedded one.
    let err = Library::open(fixture_library("abi-objects-lib", "abi_objects_lib")).unwrap_err();
    assert_eq!(err.kind(), "RuntimeError");
    assert!(
        err.message().contains("registered its object types with the tvm-ffi runtime loaded into this process after"),
        "{}",
        err.message()
    );
    assert!(err.message().contains("load libtvm_ffi before the first abi call"), "{}", err.message());
    // A library without object types still joins the embedded runtime.
    Library::open(fixture_library("abi-mathlib", "mathlib")).unwrap();
}
