//! Rust bindings to `libcpplib.so` and the globals under `cpplib.`, written by `abi bindgen` from the metadata they publish:
//! every call is checked against it when bound. Do not edit; regenerate with
//! `abi bindgen libcpplib.so --globals cpplib. -o cpplib.rs`.

/// The exports of `libcpplib.so`.
#[abi_core::import(Cpplib)]
extern "C" {
    /// Calls f on x, then on the result.
    fn apply_twice(arg0: abi_core::Function, arg1: i64) -> i64;
    fn checked(arg0: i64) -> i64;
    fn label(arg0: &str, arg1: Option<i64>) -> String;
    fn scale(arg0: f64, arg1: f64) -> f64;
}

/// The global functions under `cpplib.`.
#[abi_core::import(CpplibGlobals)]
extern "C" {
    #[abi(name = "cpplib.mul")]
    fn mul(arg0: i64, arg1: i64) -> i64;
}
