struct NotAbi;

#[abi_core::import(Math)]
extern "C" {
    fn make() -> NotAbi;
}

fn main() {}
