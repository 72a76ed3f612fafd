#[derive(abi_core::AbiStruct)]
struct Named {
    name: &'static str,
    id: i64,
}

// One mistake, one error: the lifetime only serves the borrowed field.
#[derive(abi_core::AbiStruct)]
struct Borrowed<'a> {
    name: &'a str,
}

fn main() {}
