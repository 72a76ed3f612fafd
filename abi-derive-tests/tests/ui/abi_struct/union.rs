#[derive(abi_core::AbiStruct)]
union Bits {
    i: i64,
    f: f64,
}

fn main() {}
