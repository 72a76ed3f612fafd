#[derive(Debug, abi_core::AbiError)]
enum KernelError {
    #[abi(base = OSError)]
    Io,
    #[abi(base = std::ValueError)]
    Pathy,
    #[abi(bse = ValueError)]
    Typo,
}

impl std::fmt::Display for KernelError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("kernel error")
    }
}

fn main() {}
