#[derive(abi_core::AbiStruct)]
struct Point {
    x: f64,
    #[abi(rename = "x")]
    y: f64,
}

fn main() {}
