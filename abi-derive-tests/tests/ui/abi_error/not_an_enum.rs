#[derive(Debug, abi_core::AbiError)]
struct Oops {
    message: String,
}

#[derive(Debug, abi_core::AbiError)]
enum Never {}

#[derive(Debug, abi_core::AbiError)]
enum Generic<T> {
    Held(T),
}

fn main() {}
