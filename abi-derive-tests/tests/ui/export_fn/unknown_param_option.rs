#[abi_core::export_fn]
fn add(#[abi(flatten)] a: i64, b: i64) -> i64 {
    a + b
}

fn main() {}
