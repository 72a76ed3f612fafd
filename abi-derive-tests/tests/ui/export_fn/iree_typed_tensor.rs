// An `iree` export takes tensors as `HostTensor` (read: program tensors are values, and its
// module maps them into host memory, compact). Tensors written in place, device tensors,
// untyped views, strided forms and converting ones are TVM FFI parameters only: each is an
// error on that parameter.

#[abi_core::export_fn(iree)]
fn in_place(x: abi_core::HostTensorMut<'_, f32, 1>) {
    let _ = x;
}

#[abi_core::export_fn(iree)]
fn on_device(x: abi_core::DeviceTensor<'_, f32, 1>) -> i64 {
    x.numel() as i64
}

#[abi_core::export_fn(iree)]
fn untyped(x: abi_core::TensorView<'_>) -> i64 {
    x.numel() as i64
}

#[abi_core::export_fn(iree)]
fn strided(x: abi_core::StridedTensor<'_, f32, 2>) -> i64 {
    x.numel() as i64
}

#[abi_core::export_fn(iree)]
fn strided_out(x: abi_core::StridedTensorMut<'_, f32, 2>) {
    let _ = x;
}

#[abi_core::export_fn(iree)]
fn converted(x: abi_core::HostTensorAs<'_, f32, 1>) -> i64 {
    x.numel() as i64
}

fn main() {}
