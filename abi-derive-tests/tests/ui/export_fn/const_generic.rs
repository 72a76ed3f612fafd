#[abi_core::export_fn]
fn scaled<const N: i64>(x: i64) -> i64 {
    x * N
}

fn main() {}
