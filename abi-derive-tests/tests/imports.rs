//! Typed imports through a real cdylib (examples/mathlib), the global registry and linked
//! exports: success, callee errors with kinds, missing and optional imports, signature
//! mismatches caught at bind time, typed callbacks.

use abi_core::{Function, Library, TypedFunction};
use abi_derive_tests::fixture_library;

fn mathlib() -> Library {
    Library::open(fixture_library("abi-mathlib", "mathlib")).expect("open mathlib")
}

fn local_fast_add(a: i64, b: i64) -> i64 {
    a + b + 1000
}

/// The math library as its users see it.
#[abi_core::import(MathLib)]
extern "C" {
    /// Adds two integers.
    fn add(a: i64, b: i64) -> i64;
    #[abi(name = "greet_v2")]
    fn greet(name: &str) -> String;
    fn divide(a: i64, b: i64) -> i64;
    fn lookup(key: &str) -> f64;
    fn map_ints(xs: Vec<i64>, f: TypedFunction<fn(i64) -> i64>) -> Vec<i64>;
    fn total(xs: Vec<f64>) -> f64;
    #[abi(optional)]
    fn fast_add(a: i64, b: i64) -> i64;
    #[abi(optional, name = "fast_add", fallback = local_fast_add)]
    fn fast_add_or_local(a: i64, b: i64) -> i64;
}

/// Declarations that leave out trailing parameters the callee gives defaults.
#[abi_core::import(Shortened)]
extern "C" {
    /// `show(x, digits=2, scale=1.0, unit="", plus=False, label=None)`, the first two only.
    fn show(x: f64, digits: u8) -> String;
    /// Every parameter.
    #[abi(name = "show")]
    fn show_all(x: f64, digits: u8, scale: f64, unit: &str, plus: bool, label: Option<String>) -> String;
    /// `window_sums(xs, window=3)` with `xs` only.
    fn window_sums(xs: Vec<f64>) -> Vec<f64>;
}

/// Leaving out a parameter that has no default is refused when bound.
#[abi_core::import(TooShort)]
extern "C" {
    fn add(a: i64) -> i64;
}

/// More parameters than the callee takes, defaults or not, are refused too.
#[abi_core::import(TooLong)]
extern "C" {
    fn window_sums(xs: Vec<f64>, window: Option<i64>, extra: i64) -> Vec<f64>;
}

#[abi_core::import(Missing)]
extern "C" {
    fn add(a: i64, b: i64) -> i64;
    fn subtract(a: i64, b: i64) -> i64;
    fn multiply(a: i64, b: i64) -> i64;
}

#[abi_core::import(Mismatched)]
extern "C" {
    fn add(a: &str, b: i64) -> i64;
    #[abi(name = "greet_v2")]
    fn greet(name: &str) -> i64;
}

#[test]
fn calls_succeed_with_typed_results() {
    let math = MathLib::bind(&mathlib()).unwrap();
    assert_eq!(math.add(1, 2).unwrap(), 3);
    assert_eq!(math.add(i64::MAX, 0).unwrap(), i64::MAX);
    assert_eq!(math.greet("rust").unwrap(), "hello, rust");
    let long = "a name well beyond the small-string limit";
    assert_eq!(math.greet(long).unwrap(), format!("hello, {long}"));
    let huge = "x".repeat(10_000);
    assert_eq!(math.greet(&huge).unwrap().len(), 7 + 10_000);
    assert_eq!(math.total(vec![0.5, 1.5, 2.0]).unwrap(), 4.0);
    assert_eq!(math.divide(7, 2).unwrap(), 3);
}

#[test]
fn callee_errors_keep_kind_and_message() {
    let math = MathLib::bind(&mathlib()).unwrap();
    let e = math.divide(1, 0).unwrap_err();
    assert_eq!((e.kind(), e.message()), ("ValueError", "cannot divide 1 by zero"));
    let e = math.lookup("tau").unwrap_err();
    assert_eq!((e.kind(), e.message()), ("LookupMissError", "no constant named \"tau\""));
    assert_eq!(math.lookup("pi").unwrap(), core::f64::consts::PI);
    assert!(abi_core::host::take_raised().is_none(), "the error was taken, nothing pending");
}

#[test]
fn optional_imports_report_absence_and_fall_back() {
    let math = MathLib::bind(&mathlib()).unwrap();
    assert!(!math.has_fast_add());
    let e = math.fast_add(1, 2).unwrap_err();
    assert_eq!(e.kind(), "AttributeError");
    assert_eq!(e.message(), "optional import `fast_add` of MathLib is not available");
    assert_eq!(math.fast_add_or_local(1, 2).unwrap(), 1003);
}

#[test]
fn missing_imports_are_listed_together() {
    let e = Missing::bind(&mathlib()).unwrap_err();
    assert_eq!(e.kind(), "AttributeError");
    assert!(e.message().ends_with("; missing: subtract, multiply"), "{}", e.message());
}

#[test]
fn mismatched_declarations_fail_at_bind_time_with_both_signatures() {
    let e = Mismatched::bind(&mathlib()).unwrap_err();
    assert_eq!(e.kind(), "TypeError");
    let m = e.message();
    assert!(m.contains("signature mismatch for `add`: declared add(a: str, b: int) -> int"), "{m}");
    assert!(
        m.contains("publishes add(a: int, b: int) -> int: argument `a` (#0) is declared str but the callee takes int"),
        "{m}"
    );
    assert!(m.contains("signature mismatch for `greet_v2`: declared greet_v2(name: str) -> int"), "{m}");
    assert!(m.contains("the result is declared int but the callee returns str"), "{m}");
}

#[test]
fn typed_callbacks_cross_the_library_boundary() {
    let math = MathLib::bind(&mathlib()).unwrap();
    let double = TypedFunction::<fn(i64) -> i64>::new(|x| x * 2);
    assert_eq!(math.map_ints(vec![1, 2, 3], double).unwrap(), vec![2, 4, 6]);
}

#[test]
fn library_metadata_is_readable_without_a_host() {
    let lib = mathlib();
    let meta = lib.metadata("add").unwrap().unwrap();
    assert!(meta.starts_with(r#"{"type_schema":"#), "{meta}");
    assert_eq!(
        lib.doc("divide").unwrap().unwrap(),
        "Integer division; dividing by zero (or `-2**63` by `-1`) raises `ValueError`."
    );
    let all = lib.exports_json().unwrap();
    for name in ["add", "greet_v2", "divide", "lookup", "map_ints", "total"] {
        assert!(all.contains(&format!("\"{name}\":{{\"type_schema\"")), "{name} in {all}");
    }
    assert!(lib.get("nope").is_none());
}

#[abi_core::export_fn]
fn linked_scale(x: f64, k: f64) -> f64 {
    x * k
}

#[abi_core::export_fn]
fn linked_next(x: u64) -> u64 {
    x.wrapping_add(1)
}

#[abi_core::import(Linked)]
extern "C" {
    fn linked_scale(x: f64, k: f64) -> f64;
    fn linked_next(x: u64) -> u64;
}

#[abi_core::import(Globals)]
extern "C" {
    fn test_triple(x: i64) -> i64;
}

#[test]
fn linked_exports_and_global_registry_bind_too() {
    let linked = Linked::bind_linked().unwrap();
    assert_eq!(linked.linked_scale(1.5, 4.0).unwrap(), 6.0);
    // An int where a float is declared is accepted (as tvm-ffi's C++ does).
    let triple = TypedFunction::<fn(i64) -> i64>::new(|x| x * 3);
    triple.as_function().register_global("test_triple", true).unwrap();
    let g = Globals::bind_globals().unwrap();
    assert_eq!(g.test_triple(5).unwrap(), 15);
    let e = Globals::bind_globals()
        .map(|_| ())
        .and_then(|_| Function::get_global("test_triple").unwrap().call_packed(&[abi_core::AnyView::NONE]).map(|_| ()));
    let e = e.unwrap_err();
    assert_eq!(e.kind(), "TypeError");
    assert!(e.message().contains("callback argument #0: expected int, got None"), "{}", e.message());
}

#[test]
fn u64_values_beyond_i64_cross_an_import_both_ways() {
    // Past i64::MAX they travel as BigInt objects, as argument and as result.
    let linked = Linked::bind_linked().unwrap();
    assert_eq!(linked.linked_next(1 << 62).unwrap(), (1 << 62) + 1);
    assert_eq!(linked.linked_next(1 << 63).unwrap(), (1 << 63) + 1);
    assert_eq!(linked.linked_next(i64::MAX as u64).unwrap(), 1 << 63);
    assert_eq!(linked.linked_next(u64::MAX).unwrap(), 0);
}

#[test]
fn an_import_may_leave_out_trailing_parameters_that_have_defaults() {
    let lib = mathlib();
    let short = Shortened::bind(&lib).unwrap();
    assert_eq!(short.show(2.5, 1).unwrap(), "2.5");
    assert_eq!(short.show_all(2.5, 0, 2.0, "m", true, Some("L".into())).unwrap(), "L: +5m");
    assert_eq!(short.window_sums(vec![1.0, 2.0, 3.0, 4.0]).unwrap(), vec![6.0, 9.0]);
    let e = TooShort::bind(&lib).unwrap_err();
    assert!(e.message().contains("it takes 2 arguments, not 1"), "{}", e.message());
    let e = TooLong::bind(&lib).unwrap_err();
    assert!(e.message().contains("it takes 1 to 2 arguments (the rest have defaults), not 3"), "{}", e.message());
}

/// mathlib's `Point { x, y }` hand-edited with its fields swapped: the kinds agree, the
/// values would not.
#[derive(abi_core::AbiStruct, Debug, Clone, Copy, PartialEq)]
pub struct Swapped {
    pub y: f64,
    pub x: f64,
}

/// The same fields in mathlib's order, under another name: a rename binds.
#[derive(abi_core::AbiStruct, Debug, Clone, Copy, PartialEq)]
pub struct Renamed {
    pub x: f64,
    pub y: f64,
}

#[abi_core::import(SwappedFields)]
extern "C" {
    fn centroid(points: Vec<Swapped>) -> Option<Swapped>;
}

#[abi_core::import(RenamedStruct)]
extern "C" {
    fn centroid(points: Vec<Renamed>) -> Option<Renamed>;
}

#[test]
fn a_struct_whose_fields_differ_from_the_callees_is_refused_at_bind_time_with_both_lists() {
    let e = SwappedFields::bind(&mathlib()).unwrap_err();
    assert_eq!(e.kind(), "TypeError");
    let m = e.message();
    let why = "struct `Swapped` is declared with fields (y, x) but the callee's `Point` has (x, y)";
    assert!(m.contains(&format!("argument `points` (#0): {why}")), "{m}");
    assert!(m.contains(&format!("the result: {why}")), "{m}");
    let renamed = RenamedStruct::bind(&mathlib()).unwrap();
    let c = renamed.centroid(vec![Renamed { x: 0.0, y: 2.0 }, Renamed { x: 2.0, y: 4.0 }]).unwrap();
    assert_eq!(c, Some(Renamed { x: 1.0, y: 3.0 }));
}
