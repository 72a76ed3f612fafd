// The import struct names nothing from the prelude and raises no warning of its own.
#![deny(warnings)]
#![no_implicit_prelude]

::core::include!("shared/shadows.rs");

#[::abi_core::export_fn]
pub fn add(a: i64, b: i64) -> i64 {
    a + b
}

fn local_sub(a: i64, b: i64) -> i64 {
    a - b
}

#[::abi_core::import(Math)]
extern "C" {
    /// Adds two integers.
    fn add(a: i64, b: i64) -> i64;
    #[abi(name = "add")]
    fn plus(a: i64, b: i64) -> i64;
    #[abi(optional, fallback = local_sub)]
    fn sub(a: i64, b: i64) -> i64;
    #[abi(optional)]
    fn greet(name: &str, times: ::std::vec::Vec<i64>) -> ::std::string::String;
}

fn main() {
    let math = ::std::result::Result::unwrap(Math::bind_linked());
    ::std::assert_eq!(::std::result::Result::unwrap(math.add(1, 2)), 3);
    ::std::assert_eq!(::std::result::Result::unwrap(math.plus(1, 2)), 3);
    ::std::assert!(!math.has_sub());
    ::std::assert_eq!(::std::result::Result::unwrap(math.sub(5, 2)), 3);
    ::std::assert!(!math.has_greet());
    ::std::assert!(::std::result::Result::is_err(&math.greet("x", ::std::vec![])));
}
