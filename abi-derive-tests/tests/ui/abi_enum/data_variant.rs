#[derive(abi_core::AbiEnum)]
enum Shape {
    Circle { r: f64 },
    Rect(f64, f64),
    Empty,
}

fn main() {}
