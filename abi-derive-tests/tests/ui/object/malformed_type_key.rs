#[derive(abi_core::Object)]
#[abi(type_key = "my lib.Counter")]
pub struct Counter {
    #[abi(get)]
    pub start: i64,
}

#[derive(abi_core::Object)]
#[abi(type_key = "Counter")]
pub struct NoNamespace {
    #[abi(get)]
    pub start: i64,
}

fn main() {}
