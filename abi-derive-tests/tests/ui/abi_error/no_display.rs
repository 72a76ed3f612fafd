// The message of a derived error is its Display text: a type without one does not compile.
#[derive(Debug, abi_core::AbiError)]
enum KernelError {
    BadShape,
}

#[abi_core::export_fn]
fn check(n: i64) -> Result<i64, KernelError> {
    if n < 0 {
        Err(KernelError::BadShape)
    } else {
        Ok(n)
    }
}

fn main() {}
