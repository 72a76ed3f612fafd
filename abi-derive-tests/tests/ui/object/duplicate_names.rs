#[path = "shared/counter.rs"]
mod counter;
use counter::Counter;

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
