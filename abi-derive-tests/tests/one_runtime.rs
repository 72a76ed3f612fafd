//! One runtime per process with no tvm-ffi host: this test program and the two cdylibs it
//! opens (examples/mathlib and the interop fixture) share the program's error slot, global
//! registry and embedded maps through the runtime table `Library::open` hands over, so
//! maps, arrays, strings, functions, errors and globals cross in both directions.

use std::collections::{BTreeMap, HashMap};

use abi_core::ffi::{HostApi, RuntimeTable, ATTACH_ALREADY_RUNNING, ATTACH_OK, ATTACH_VERSION_MISMATCH};
use abi_core::{Function, Library, TypedFunction};
use abi_derive_tests::fixture_library;

#[abi_core::import(Math)]
extern "C" {
    fn word_counts(text: &str) -> BTreeMap<String, i64>;
    fn register_scaler(name: &str, factor: i64);
    fn sum_of_squares(xs: Vec<i64>) -> i64;
    fn map_ints(xs: Vec<i64>, f: TypedFunction<fn(i64) -> i64>) -> Vec<i64>;
    fn divide(a: i64, b: i64) -> i64;
    #[abi(name = "greet_v2")]
    fn greet(name: &str) -> String;
    fn panicking_callback() -> TypedFunction<fn(i64) -> i64>;
}

#[abi_core::import(Interop)]
extern "C" {
    fn echo_map(x: HashMap<String, i64>) -> HashMap<String, i64>;
    fn echo_strs(x: Vec<String>) -> Vec<String>;
    fn call_fn(f: Function, x: i64) -> abi_core::Any;
}

fn libraries() -> (Math, Interop) {
    let math = Library::open(fixture_library("abi-mathlib", "mathlib")).expect("open mathlib");
    let interop = Library::open(fixture_library("abi-interop-lib", "abi_interop_lib")).expect("open interop");
    (Math::bind(&math).expect("bind mathlib"), Interop::bind(&interop).expect("bind interop"))
}

#[test]
fn there_is_no_tvm_ffi_host() {
    assert!(!abi_core::host::has_tvm_ffi_runtime());
}

#[test]
fn maps_cross_from_the_program_and_between_libraries() {
    let (math, interop) = libraries();
    let m = HashMap::from([("a".to_owned(), 1), ("bb".to_owned(), 2)]);
    assert_eq!(interop.echo_map(m.clone()).unwrap(), m, "a map built by the program, read by a library");
    let counts = math.word_counts("to be or not to be").unwrap();
    assert_eq!(counts, BTreeMap::from([("be".into(), 2), ("not".into(), 1), ("or".into(), 1), ("to".into(), 2)]));
    // A map object made by mathlib, passed as it is to the interop library.
    let math_lib = Library::open(fixture_library("abi-mathlib", "mathlib")).unwrap();
    let interop_lib = Library::open(fixture_library("abi-interop-lib", "abi_interop_lib")).unwrap();
    let text = abi_core::Any::from_value("x y x").unwrap();
    let map = math_lib.get("word_counts").unwrap().call_raw(&[*text.as_raw()]).unwrap();
    assert_eq!(map.type_index(), abi_core::ffi::type_index::MAP);
    let echoed = interop_lib.get("echo_map").unwrap().call_raw(&[*map.as_raw()]).unwrap();
    assert_eq!(echoed.to::<HashMap<String, i64>>().unwrap(), HashMap::from([("x".to_owned(), 2), ("y".to_owned(), 1)]));
}

#[test]
fn arrays_strings_functions_and_errors_cross_both_ways() {
    let (math, interop) = libraries();
    let words = vec!["α".to_owned(), "a much longer string than seven bytes".to_owned()];
    assert_eq!(interop.echo_strs(words.clone()).unwrap(), words);
    assert_eq!(math.greet("Ada").unwrap(), "hello, Ada");

    // A program closure called by a library; its error comes back with its kind.
    let fails = TypedFunction::<fn(i64) -> i64>::new(|x| {
        if x == 3 {
            panic!("three is not allowed")
        }
        x * 10
    });
    assert_eq!(math.map_ints(vec![1, 2], fails.clone()).unwrap(), [10, 20]);
    let err = math.map_ints(vec![1, 3], fails).unwrap_err();
    assert!(err.message().contains("three is not allowed"), "{err:?}");

    // A library's error, raised in the shared slot, read by the program.
    let err = math.divide(1, 0).unwrap_err();
    assert_eq!(err.kind(), "ValueError");
    assert!(err.message().contains("cannot divide 1 by zero"), "{}", err.message());

    // A function made by mathlib, called by the interop library: its panic is an error of
    // the call made from the program.
    let bomb = math.panicking_callback().unwrap();
    let err = interop.call_fn(bomb.as_function().clone(), 5).unwrap_err();
    assert!(err.message().contains("callback refused 5"), "{}", err.message());
}

#[test]
fn globals_registered_anywhere_are_seen_everywhere() {
    let (math, _interop) = libraries();
    // Registered by the program, used by mathlib's bind_globals().
    TypedFunction::<fn(i64) -> i64>::new(|x| x * x).as_function().register_global("mathlib_square", true).unwrap();
    assert_eq!(math.sum_of_squares(vec![1, 2, 3]).unwrap(), 14);
    // Registered by mathlib, called by the program.
    math.register_scaler("one_runtime.triple", 3).unwrap();
    let triple = Function::get_global("one_runtime.triple").expect("registered by the library");
    assert_eq!(TypedFunction::<fn(i64) -> i64>::from_function(triple).call(14).unwrap(), 42);
}

fn table_entry(lib: &Library) -> unsafe extern "C" fn(*const RuntimeTable, *mut u32) -> i32 {
    // Open the same file with libloading to reach its attach entry.
    let raw = unsafe { libloading::Library::new(lib.path()) }.unwrap();
    // SAFETY: abi_runtime_attach has this signature (docs/ABI.md section 9).
    let f = unsafe {
        *raw.get::<unsafe extern "C" fn(*const RuntimeTable, *mut u32) -> i32>(b"abi_runtime_attach").unwrap()
    };
    core::mem::forget(raw);
    f
}

unsafe extern "C" fn foreign_set(_: *mut core::ffi::c_void) {}
unsafe extern "C" fn foreign_take(out: *mut *mut core::ffi::c_void) {
    // SAFETY: the caller passes a writable pointer.
    unsafe { *out = core::ptr::null_mut() }
}
unsafe extern "C" fn foreign_get(_: *const abi_core::ffi::ByteArray, out: *mut *mut core::ffi::c_void) -> i32 {
    // SAFETY: the caller passes a writable pointer.
    unsafe { *out = core::ptr::null_mut() };
    0
}
unsafe extern "C" fn foreign_put(_: *const abi_core::ffi::type_table::MethodInfo, _: i32) -> i32 {
    0
}

#[test]
fn attaching_refuses_another_version_and_a_second_runtime() {
    let math = Library::open(fixture_library("abi-mathlib", "mathlib")).unwrap();
    let attach = table_entry(&math);
    static MARK: u8 = 0;
    let foreign = RuntimeTable {
        version: abi_shared::RUNTIME_TABLE_VERSION,
        size: size_of::<RuntimeTable>() as u32,
        api: HostApi {
            error_set_raised: foreign_set,
            error_move_from_raised: foreign_take,
            function_get_global: foreign_get,
            function_set_global: foreign_put,
        },
        map_mark: &MARK,
        // Only the header and the error entries matter here; the type table is the
        // program's own.
        types: abi_core::__private::own_runtime_table().types,
        env: abi_core::__private::own_runtime_table().env,
    };
    let mut theirs = 0;
    // SAFETY: a valid table; the entry only reads it.
    assert_eq!(unsafe { attach(&foreign, &mut theirs) }, ATTACH_ALREADY_RUNNING, "already attached to ours");
    assert_eq!(theirs, abi_shared::RUNTIME_TABLE_VERSION);
    let newer = RuntimeTable { version: abi_shared::RUNTIME_TABLE_VERSION + 1, ..foreign };
    // SAFETY: as above.
    assert_eq!(unsafe { attach(&newer, &mut theirs) }, ATTACH_VERSION_MISMATCH);
    // SAFETY: a null table is refused without being read.
    assert_eq!(unsafe { attach(core::ptr::null(), core::ptr::null_mut()) }, ATTACH_VERSION_MISMATCH);
    // Opening the library again hands over the same runtime, which it accepts.
    assert!(Library::open(math.path()).is_ok());
    // SAFETY: the table of the runtime it already uses.
    let ours = unsafe { attach(&abi_core::__private::own_runtime_table(), &mut theirs) };
    assert_eq!(ours, ATTACH_OK);
    // An opener built before the environment entries were appended hands a shorter table
    // of the same version: accepted (only its prefix is read); shorter still is refused.
    let older = RuntimeTable {
        size: abi_core::ffi::RUNTIME_TABLE_BASE_SIZE as u32,
        ..abi_core::__private::own_runtime_table()
    };
    // SAFETY: a valid table, of which the entry reads `size` bytes.
    assert_eq!(unsafe { attach(&older, &mut theirs) }, ATTACH_OK);
    let truncated = RuntimeTable { size: abi_core::ffi::RUNTIME_TABLE_BASE_SIZE as u32 - 8, ..older };
    // SAFETY: as above.
    assert_eq!(unsafe { attach(&truncated, &mut theirs) }, ATTACH_VERSION_MISMATCH);
}
