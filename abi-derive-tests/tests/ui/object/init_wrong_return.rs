#[derive(abi_core::Object)]
#[abi(type_key = "mylib.Counter")]
pub struct Counter {
    #[abi(get)]
    pub start: i64,
}

#[abi_core::methods]
impl Counter {
    #[abi(init)]
    pub fn new(start: i64) -> i64 {
        start
    }
}

fn main() {}
