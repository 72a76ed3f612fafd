#[derive(abi_core::Object)]
#[abi(type_key = "mylib.Holder")]
pub struct Holder<T> {
    pub value: T,
}

fn main() {}
