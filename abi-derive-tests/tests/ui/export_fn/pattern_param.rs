#[abi_core::export_fn]
fn sum((a, b): (i64, i64)) -> i64 {
    a + b
}

fn main() {}
