#[derive(abi_core::AbiStruct)]
struct Named {
    name: &'static str,
    id: i64,
}

fn main() {}
