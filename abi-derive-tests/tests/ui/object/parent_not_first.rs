#[derive(abi_core::Object)]
#[abi(type_key = "mylib.Base")]
pub struct Base {
    #[abi(get)]
    pub start: i64,
}

#[derive(abi_core::Object)]
#[abi(type_key = "mylib.Child")]
#[repr(C)]
pub struct Child {
    #[abi(get)]
    pub extra: i64,
    #[abi(parent)]
    base: Base,
}

fn main() {}
