#[abi_core::import(Math)]
extern "C" {
    static VERSION: i32;
    fn add(a: i64, b: i64) -> i64;
}

fn main() {}
