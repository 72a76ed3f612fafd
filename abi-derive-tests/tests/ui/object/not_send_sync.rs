use std::cell::Cell;

#[derive(abi_core::Object)]
#[abi(type_key = "mylib.Counter")]
pub struct Counter {
    #[abi(get)]
    pub start: i64,
    value: Cell<i64>,
}

fn main() {}
