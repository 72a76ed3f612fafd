// Results IREE's calling convention cannot carry: a string, an unsigned integer inside a
// tuple, a fallible unsigned.

#[abi_core::export_fn(iree)]
fn name() -> String {
    String::new()
}

#[abi_core::export_fn(iree)]
fn pair() -> (i32, u64) {
    (1, 2)
}

#[abi_core::export_fn(iree)]
fn fallible() -> abi_core::Result<u8> {
    Ok(1)
}

fn main() {}
