#[abi_core::export_fn]
fn numbers(n: i64) -> impl Iterator<Item = i64> {
    0..n
}

fn main() {}
