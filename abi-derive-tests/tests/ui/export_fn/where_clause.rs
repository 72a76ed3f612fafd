#[abi_core::export_fn]
fn add(a: i64, b: i64) -> i64
where
    i64: Copy,
{
    a + b
}

fn main() {}
