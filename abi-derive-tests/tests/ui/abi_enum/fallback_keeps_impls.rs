// A refused enum still implements the traits, so the exports using it (a default naming a
// variant included) report nothing more.
#[derive(abi_core::AbiEnum, Clone, Copy)]
enum Mode {
    Fast = 1,
    Slow,
}

#[abi_core::export_fn]
fn run(mode: Mode) -> Mode {
    mode
}

#[abi_core::export_fn]
fn run_slow(#[abi(default = Mode::Slow)] mode: Mode) -> Mode {
    mode
}

fn main() {}
