// Defaults are literals on trailing parameters, never on expanded structs or IREE
// functions; a bare `default` (None) needs an Option.

#[derive(abi_core::AbiStruct)]
struct Point {
    x: f64,
    y: f64,
}

#[abi_core::export_fn]
fn not_trailing(#[abi(default = 1)] a: i64, b: i64) -> i64 {
    a + b
}

#[abi_core::export_fn]
fn bare_on_plain(#[abi(default)] a: i64) -> i64 {
    a
}

#[abi_core::export_fn]
fn expanded(#[abi(expand, default)] p: Point) -> f64 {
    p.x + p.y
}

#[abi_core::export_fn(iree)]
fn in_iree(a: i64, #[abi(default = 2)] b: i64) -> i64 {
    a * b
}

#[abi_core::export_fn]
fn not_a_literal(#[abi(default = 1 + 2)] a: i64) -> i64 {
    a
}

#[abi_core::export_fn]
fn not_python(#[abi(default = 'c')] a: char) -> i64 {
    a as i64
}

fn main() {}
