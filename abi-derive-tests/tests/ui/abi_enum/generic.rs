use std::marker::PhantomData;

#[derive(abi_core::AbiEnum)]
enum Tagged<T> {
    A,
    B,
    #[allow(dead_code)]
    Never(PhantomData<T>),
}

fn main() {}
