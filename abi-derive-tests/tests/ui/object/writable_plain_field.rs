#[derive(abi_core::Object)]
#[abi(type_key = "mylib.Counter")]
pub struct Counter {
    #[abi(get, set)]
    pub start: i64,
}

fn main() {}
