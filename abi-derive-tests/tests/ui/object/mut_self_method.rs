#[derive(abi_core::Object)]
#[abi(type_key = "mylib.Counter")]
pub struct Counter {
    #[abi(get)]
    pub start: i64,
}

#[abi_core::methods]
impl Counter {
    pub fn reset(&mut self) {
        self.start = 0;
    }
}

fn main() {}
