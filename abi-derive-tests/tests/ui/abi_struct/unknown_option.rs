#[derive(abi_core::AbiStruct)]
struct Point {
    #[abi(renamed = "X")]
    x: f64,
    y: f64,
}

fn main() {}
