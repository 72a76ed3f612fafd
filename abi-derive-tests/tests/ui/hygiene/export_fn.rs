// Generated code names nothing from the prelude: user items shadowing `Result`, `Ok`,
// `Some`, `Vec`, `String`, ... change nothing, and it raises no warning of its own.
#![deny(warnings)]
#![no_implicit_prelude]

::core::include!("shared/shadows.rs");

/// Adds two integers.
#[::abi_core::export_fn]
pub fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// A camel-case exported name is still a valid symbol, with no warning.
#[::abi_core::export_fn(name = "joinWords")]
pub fn join(a: &str, b: ::std::string::String) -> ::abi_core::Result<::std::string::String> {
    ::std::result::Result::Ok(::std::format!("{a} {b}"))
}

#[::abi_core::export_fn]
pub fn first(xs: ::std::vec::Vec<i64>) -> ::std::option::Option<i64> {
    ::std::iter::Iterator::next(&mut ::std::iter::IntoIterator::into_iter(xs))
}

fn main() {
    ::std::assert_eq!(add(1, 2), 3);
    ::std::assert!(::std::result::Result::is_ok(&join("a", ::std::string::String::new())));
    ::std::assert_eq!(first(::std::vec![4]), ::std::option::Option::Some(4));
}
