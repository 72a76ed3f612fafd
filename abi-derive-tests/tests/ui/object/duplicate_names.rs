#[derive(abi_core::Object)]
#[abi(type_key = "mylib.Counter")]
pub struct Counter {
    #[abi(get)]
    pub start: i64,
}

#[abi_core::methods]
impl Counter {
    #[abi(init)]
    pub fn new(start: i64) -> Counter {
        Counter { start }
    }
    #[abi(init)]
    pub fn zero() -> Counter {
        Counter { start: 0 }
    }
}

fn main() {}
