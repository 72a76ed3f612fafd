#[abi_core::import]
extern "C" {
    fn add(a: i64, b: i64) -> i64;
}

fn main() {}
