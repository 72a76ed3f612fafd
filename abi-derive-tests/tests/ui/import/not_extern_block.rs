#[abi_core::import(Math)]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

fn main() {}
