#[derive(abi_core::AbiStruct)]
struct Point {
    #[abi(rename = "x coordinate")]
    x: f64,
    y: f64,
}

fn main() {}
