#[derive(abi_core::AbiStruct)]
struct Point<'a> {
    #[abi(colour = "red")]
    x: f64,
    #[abi(rename = "")]
    y: f64,
    #[abi(rename = "x")]
    z: &'a str,
}

fn main() {}
