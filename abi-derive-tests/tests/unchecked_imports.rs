//! `#[abi(unchecked)]` imports: callees whose metadata has no signature (C++ packed
//! functions publish `{"type":"ffi.Function"}`, tvm-ffi's `testing.echo`) cannot be bound
//! with a checked declaration, not even `fn(Any) -> Any`; the unchecked form binds them,
//! and each call still converts its arguments and result as declared.

use abi_core::{Any, Function};

/// The metadata C++ publishes for a function registered as packed.
const UNTYPED: &str = r#"{"type_schema":"{\"type\":\"ffi.Function\"}"}"#;

fn register_echo(name: &str) {
    let echo = Function::from_closure(|args| args[0].to::<Any>());
    abi_core::host::register_global_with_info(name, echo, "Returns its argument.", UNTYPED, true).unwrap();
}

#[abi_core::import(Checked)]
extern "C" {
    #[abi(name = "unchecked_test.echo")]
    fn echo(x: Any) -> Any;
}

#[abi_core::import(Unchecked)]
extern "C" {
    /// As an `Any`.
    #[abi(name = "unchecked_test.echo", unchecked)]
    fn echo(x: Any) -> Any;
    /// Typed: the conversions still check each call.
    #[abi(name = "unchecked_test.echo", unchecked)]
    fn echo_int(x: i64) -> i64;
    /// The same callee declared with a result it does not give.
    #[abi(name = "unchecked_test.echo", unchecked)]
    fn echo_as_str(x: i64) -> String;
    #[abi(name = "unchecked_test.absent", unchecked, optional)]
    fn absent(x: i64) -> i64;
}

#[abi_core::import(UncheckedMissing)]
extern "C" {
    #[abi(name = "unchecked_test.nowhere", unchecked)]
    fn nowhere(x: i64) -> i64;
}

#[test]
fn a_checked_import_of_an_untyped_callee_is_refused() {
    register_echo("unchecked_test.echo");
    let err = Checked::bind_globals().expect_err("refused");
    assert!(err.message().contains("has no signature"), "{}", err.message());
}

#[test]
fn an_unchecked_import_binds_and_converts_each_call() {
    register_echo("unchecked_test.echo");
    let lib = Unchecked::bind_globals().unwrap();
    assert_eq!(lib.echo(Any::from_value(7i64).unwrap()).unwrap().to::<i64>().unwrap(), 7);
    assert_eq!(lib.echo_int(41).unwrap(), 41);
    let err = lib.echo_as_str(1).unwrap_err();
    assert_eq!(err.kind(), "TypeError", "{}", err.message());
    assert!(!lib.has_absent());
}

#[test]
fn an_unchecked_import_must_still_exist() {
    let err = UncheckedMissing::bind_globals().expect_err("missing");
    assert!(err.message().contains("missing: unchecked_test.nowhere"), "{}", err.message());
}
