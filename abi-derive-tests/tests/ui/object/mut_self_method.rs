#[path = "shared/counter.rs"]
mod counter;
use counter::Counter;

#[abi_core::methods]
impl Counter {
    pub fn reset(&mut self) {
        self.start = 0;
    }
}

fn main() {}
