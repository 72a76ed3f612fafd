#[abi_core::export_fn]
unsafe fn read(p: i64) -> i64 {
    p
}

fn main() {}
