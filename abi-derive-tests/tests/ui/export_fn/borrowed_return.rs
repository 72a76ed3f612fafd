#[abi_core::export_fn]
fn first_word(s: &str) -> &str {
    s.split(' ').next().unwrap_or("")
}

fn main() {}
