// Typed tensors are TVM FFI parameters; an `iree` export cannot take them (yet).

#[abi_core::export_fn(iree)]
fn total(x: abi_core::HostTensor<'_, f32, 1>) -> f32 {
    x.as_slice().iter().sum()
}

fn main() {}
