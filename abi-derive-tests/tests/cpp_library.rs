//! Typed imports against a library written with tvm-ffi's own C++ export macros
//! (tests/cpp/cpplib.cc, metadata on): a typed callback binds to its untyped `Function`
//! parameter, real mismatches are refused naming both signatures, and its C++ global's
//! published metadata is checked by `bind_globals()`. scripts/test-cpp-library.sh builds
//! the library and runs this with ABI_CPP_LIBRARY set.

use abi_core::{Library, TypedFunction};

#[abi_core::import(CppLib)]
extern "C" {
    fn apply_twice(f: TypedFunction<fn(i64) -> i64>, x: i64) -> i64;
    fn scale(x: f64, k: f64) -> f64;
    fn label(name: &str, n: Option<i64>) -> String;
    fn checked(x: i64) -> i64;
}

#[abi_core::import(CppWrong)]
extern "C" {
    fn scale(x: &str, k: f64) -> i64;
    fn apply_twice(f: TypedFunction<fn(i64) -> i64>) -> i64;
}

#[abi_core::import(CppGlobals)]
extern "C" {
    #[abi(name = "cpplib.mul")]
    fn mul(a: i64, b: i64) -> i64;
}

#[abi_core::import(CppGlobalsWrong)]
extern "C" {
    #[abi(name = "cpplib.mul")]
    fn mul(a: f64, b: i64) -> i64;
}

// One test: the library brings libtvm_ffi into the process, and this process's runtime
// must find it at its first use, which comes after the library is opened.
#[test]
#[ignore = "needs the C++ library: scripts/test-cpp-library.sh builds it and runs this"]
fn typed_imports_bind_to_a_cpp_macro_library() {
    let path = std::env::var("ABI_CPP_LIBRARY").expect("ABI_CPP_LIBRARY names the C++ library");
    let lib = Library::open(&path).unwrap();
    let cpp = CppLib::bind(&lib).unwrap();
    let inc = TypedFunction::<fn(i64) -> i64>::new(|x| x + 1);
    assert_eq!(cpp.apply_twice(inc, 5).unwrap(), 7);
    assert_eq!(cpp.scale(1.5, 2.0).unwrap(), 3.0);
    assert_eq!(cpp.label("a", Some(3)).unwrap(), "a#3");
    assert_eq!(cpp.label("a", None).unwrap(), "a");
    let e = cpp.checked(-1).unwrap_err();
    assert_eq!(e.kind(), "ValueError");
    assert!(e.message().contains("negative: -1"), "{}", e.message());

    let e = CppWrong::bind(&lib).map(|_| ()).unwrap_err();
    assert_eq!(e.kind(), "TypeError");
    let m = e.message();
    for part in [
        "signature mismatch for `scale`: declared scale(x: str, k: float) -> int",
        "publishes scale(_0: float, _1: float) -> float",
        "argument `x` (#0) is declared str but the callee takes float",
        "the result is declared int but the callee returns float",
        "signature mismatch for `apply_twice`: declared apply_twice(f: Callable[[int], int]) -> int",
        "publishes apply_twice(_0: Function, _1: int) -> int: it takes 2 arguments, not 1",
    ] {
        assert!(m.contains(part), "{part:?} not in {m}");
    }

    let globals = CppGlobals::bind_globals().unwrap();
    assert_eq!(globals.mul(6, 7).unwrap(), 42);
    let e = CppGlobalsWrong::bind_globals().map(|_| ()).unwrap_err();
    assert!(
        e.message().contains("declared cpplib.mul(a: float, b: int) -> int, but the global registry publishes cpplib.mul(_0: int, _1: int) -> int"),
        "{}",
        e.message()
    );
}
