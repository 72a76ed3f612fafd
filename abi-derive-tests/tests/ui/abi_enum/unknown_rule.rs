#[derive(abi_core::AbiEnum)]
#[abi(rename_all = "Lowercase")]
enum Mode {
    Fast,
}

#[derive(abi_core::AbiEnum)]
#[abi(rename_al = "lowercase")]
enum Other {
    #[abi(name = "x")]
    Slow,
}

fn main() {}
