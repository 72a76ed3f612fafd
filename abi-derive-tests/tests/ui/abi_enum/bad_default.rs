#[derive(abi_core::AbiEnum, Clone, Copy)]
#[abi(rename_all = "lowercase")]
pub enum Interp {
    Nearest,
    Bilinear,
}

#[abi_core::export_fn]
pub fn resize(#[abi(default = "linear")] mode: Interp) -> Interp {
    mode
}

#[abi_core::export_fn]
pub fn pick(#[abi(default = Interp::Cubic)] mode: Interp) -> Interp {
    mode
}

fn main() {}
