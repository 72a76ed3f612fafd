// A default must be a value of its parameter's type: the error is on the literal.

#[abi_core::export_fn]
fn narrow(#[abi(default = 300)] n: u8) -> u8 {
    n
}

#[abi_core::export_fn]
fn wrong_kind(#[abi(default = "three")] n: i64) -> i64 {
    n
}

#[abi_core::export_fn]
fn unsigned(#[abi(default = -1)] n: u32) -> u32 {
    n
}

#[abi_core::export_fn]
fn option_inner(#[abi(default = 1.5)] n: Option<i64>) -> i64 {
    n.unwrap_or(0)
}

fn main() {}
