#[abi_core::import(Math)]
extern "C" {
    #[abi(name = "add-v2")]
    fn add(a: i64, b: i64) -> i64;
}

fn main() {}
