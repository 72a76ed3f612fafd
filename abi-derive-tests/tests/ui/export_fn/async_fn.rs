#[abi_core::export_fn]
async fn fetch(url: String) -> String {
    url
}

fn main() {}
