//! `crate = "..."` finds the runtime under another name.
extern crate abi_core as runtime;

#[runtime::export_fn(crate = "runtime")]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

fn main() {
    assert_eq!(add(1, 2), 3);
}
