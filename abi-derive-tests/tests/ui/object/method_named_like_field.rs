#[path = "shared/counter.rs"]
mod counter;
use counter::Counter;

#[abi_core::methods]
impl Counter {
    pub fn start(&self) -> i64 {
        self.start
    }
}

fn main() {}
