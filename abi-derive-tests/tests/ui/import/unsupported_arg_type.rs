struct NotAbi;

#[abi_core::import(Math)]
extern "C" {
    fn consume(x: NotAbi) -> i64;
}

fn main() {}
