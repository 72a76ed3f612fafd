#[derive(abi_core::AbiStruct)]
struct Wrapper<T> {
    value: T,
}

fn main() {}
