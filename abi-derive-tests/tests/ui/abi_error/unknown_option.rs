#[derive(Debug, abi_core::AbiError)]
#[abi(crate_ = "abi_core")]
enum KernelError {
    BadShape,
}

impl std::fmt::Display for KernelError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("kernel error")
    }
}

fn main() {}
