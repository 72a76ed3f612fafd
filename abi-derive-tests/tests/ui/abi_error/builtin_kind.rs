// A derived kind renamed to a builtin one would be taken for it by every host.
#[derive(Debug, abi_core::AbiError)]
enum KernelError {
    #[abi(kind = "ValueError")]
    BadShape,
    #[abi(kind = "")]
    Empty,
    #[abi(kind = "mylib.Same")]
    One,
    #[abi(kind = "mylib.Same")]
    Two,
}

impl std::fmt::Display for KernelError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("kernel error")
    }
}

fn main() {}
