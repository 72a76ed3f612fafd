#[abi_core::import(Math)]
extern "C" {
    fn id<T>(x: T) -> T;
}

fn main() {}
