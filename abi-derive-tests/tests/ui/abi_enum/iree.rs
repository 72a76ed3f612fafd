// IREE's calling convention carries no strings, and a fieldless enum crosses as one.
#[derive(abi_core::AbiEnum, Clone, Copy)]
pub enum Mode {
    Fast,
    Slow,
}

#[abi_core::export_fn(iree)]
pub fn run(mode: Mode, n: i64) -> i64 {
    match mode {
        Mode::Fast => n,
        Mode::Slow => -n,
    }
}

#[abi_core::export_fn(iree)]
pub fn mode() -> Mode {
    Mode::Fast
}

fn main() {}
