#[abi_core::import(Math)]
extern "C" {
    #[abi(lazy)]
    fn add(a: i64, b: i64) -> i64;
}

fn main() {}
