struct Opaque;

#[abi_core::export_fn]
fn take(x: i64, o: Opaque) -> i64 {
    let _ = o;
    x
}

fn main() {}
