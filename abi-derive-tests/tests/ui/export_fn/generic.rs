#[abi_core::export_fn]
fn first<T: Clone>(items: Vec<T>) -> i64 {
    items.len() as i64
}

fn main() {}
