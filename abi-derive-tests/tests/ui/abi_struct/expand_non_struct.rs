#[abi_core::export_fn]
fn twice(#[abi(expand)] x: f64) -> f64 {
    x * 2.0
}

fn main() {}
