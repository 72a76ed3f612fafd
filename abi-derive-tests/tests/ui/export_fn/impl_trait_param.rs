#[abi_core::export_fn]
fn show(x: impl std::fmt::Display) -> String {
    x.to_string()
}

fn main() {}
