#[abi_core::export_fn]
struct Point {
    x: f64,
}

fn main() {}
