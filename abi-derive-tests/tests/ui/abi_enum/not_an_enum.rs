#[derive(abi_core::AbiEnum)]
struct Mode {
    fast: bool,
}

#[derive(abi_core::AbiEnum)]
enum Never {}

#[derive(abi_core::AbiEnum)]
enum Blank {
    #[abi(rename = "")]
    Nothing,
}

fn main() {}
