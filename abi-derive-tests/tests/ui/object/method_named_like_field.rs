#[derive(abi_core::Object)]
#[abi(type_key = "mylib.Counter")]
pub struct Counter {
    #[abi(get)]
    pub start: i64,
}

#[abi_core::methods]
impl Counter {
    pub fn start(&self) -> i64 {
        self.start
    }
}

fn main() {}
