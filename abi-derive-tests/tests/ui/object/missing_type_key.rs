#[derive(abi_core::Object)]
pub struct Counter {
    #[abi(get)]
    pub start: i64,
}

fn main() {}
