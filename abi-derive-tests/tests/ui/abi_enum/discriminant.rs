#[derive(abi_core::AbiEnum)]
enum Level {
    Low = 1,
    High = 10,
}

fn main() {}
