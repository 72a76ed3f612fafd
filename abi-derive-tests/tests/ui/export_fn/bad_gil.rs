#[abi_core::export_fn(gil = "drop")]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

fn main() {}
