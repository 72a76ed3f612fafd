#[abi_core::import(Math)]
extern "C" {
    fn name() -> &'static str;
}

fn main() {}
