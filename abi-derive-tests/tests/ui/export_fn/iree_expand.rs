// `#[abi(expand)]` structs have no IREE meaning.

#[derive(abi_core::AbiStruct)]
struct Point {
    x: f64,
    y: f64,
}

#[abi_core::export_fn(iree)]
fn norm(#[abi(expand)] p: Point) -> f64 {
    (p.x * p.x + p.y * p.y).sqrt()
}

fn main() {}
