#[path = "shared/counter.rs"]
mod counter;
use counter::Counter;

#[abi_core::methods]
impl Counter {
    #[abi(init)]
    pub fn new(start: i64) -> i64 {
        start
    }
}

fn main() {}
