#[derive(abi_core::AbiStruct)]
struct Named {
    name: String,
    value: f64,
}

#[abi_core::export_fn]
fn value(#[abi(expand)] n: Named) -> f64 {
    n.value
}

fn main() {}
