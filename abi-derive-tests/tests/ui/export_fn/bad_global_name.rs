// A global name is dot-separated identifiers: the error points at the literal.
#[abi_core::export_fn(global = "mylib..add")]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

#[abi_core::export_fn(global = "my lib.sub")]
fn sub(a: i64, b: i64) -> i64 {
    a - b
}

#[abi_core::export_fn(global = "mylib.mul", global = "mylib.times")]
fn mul(a: i64, b: i64) -> i64 {
    a * b
}

fn main() {}
