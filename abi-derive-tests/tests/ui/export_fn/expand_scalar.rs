#[abi_core::export_fn]
fn add(#[abi(expand)] a: i64, b: i64) -> i64 {
    a + b
}

fn main() {}
