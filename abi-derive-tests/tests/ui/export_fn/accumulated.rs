// Every independent mistake is reported at once, each on its own token.
#[abi_core::export_fn(name = "9lives", speed = "fast")]
async fn everything<T>(_x: &mut i64, (_a, _b): (i64, i64), #[abi(lazy)] _c: i64) -> &'static str {
    ""
}

fn main() {}
