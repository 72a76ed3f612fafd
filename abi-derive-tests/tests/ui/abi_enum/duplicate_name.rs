#[derive(abi_core::AbiEnum)]
#[abi(rename_all = "lowercase")]
enum Mode {
    Fast,
    #[abi(rename = "fast")]
    Quick,
    FAST,
}

fn main() {}
