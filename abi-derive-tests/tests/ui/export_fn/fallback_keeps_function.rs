// An export error leaves the function itself in place: Rust callers report nothing more.
#[abi_core::export_fn(name = "add-two")]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

fn main() {
    assert_eq!(add(1, 2), 3);
}
