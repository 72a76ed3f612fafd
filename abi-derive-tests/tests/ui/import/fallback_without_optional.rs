fn local_add(a: i64, b: i64) -> i64 {
    a + b
}

#[abi_core::import(Math)]
extern "C" {
    #[abi(fallback = local_add)]
    fn add(a: i64, b: i64) -> i64;
}

fn main() {}
