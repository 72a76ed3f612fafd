#[path = "shared/counter.rs"]
mod counter;
use counter::Counter;

#[abi_core::methods]
impl Counter {
    pub fn generic<T: Into<i64>>(&self, x: T) -> i64 {
        x.into()
    }
    pub async fn later(&self) -> i64 {
        0
    }
    pub unsafe fn risky(&self) -> i64 {
        0
    }
    pub fn borrowed(&self) -> &str {
        "x"
    }
}

fn main() {}
