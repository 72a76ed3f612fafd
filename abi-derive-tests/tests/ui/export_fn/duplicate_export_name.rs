#[abi_core::export_fn]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

mod v2 {
    #[abi_core::export_fn(name = "add")]
    fn add_checked(a: i64, b: i64) -> i64 {
        a.saturating_add(b)
    }
}

fn main() {}
