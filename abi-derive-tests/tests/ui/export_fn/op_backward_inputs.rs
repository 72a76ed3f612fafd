// The backward's input tensors start with the forward's inputs: `w` stands where `k` belongs.
#![allow(unused)]
use abi_core::{HostTensor, HostTensorMut};

#[abi_core::export_fn(op, backward = scale_bwd)]
fn scale(x: HostTensor<'_, f64, 1>, k: HostTensor<'_, f64, 1>, #[abi(out = x)] y: HostTensorMut<'_, f64, 1>) {}

#[abi_core::export_fn(op)]
fn scale_bwd(
    x: HostTensor<'_, f64, 1>,
    w: HostTensor<'_, f64, 1>,
    dy: HostTensor<'_, f64, 1>,
    #[abi(out = x)] dx: HostTensorMut<'_, f64, 1>,
    #[abi(out = w)] dw: HostTensorMut<'_, f64, 1>,
) {
}

fn main() {}
