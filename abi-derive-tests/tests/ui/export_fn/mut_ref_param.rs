#[abi_core::export_fn]
fn bump(x: &mut i64) {
    *x += 1;
}

fn main() {}
