#![allow(unused)]
use abi_core::{HostTensor, HostTensorMut};

#[abi_core::export_fn(op, backward = scale_bwd)]
fn scale(x: HostTensor<'_, f64, 1>, k: HostTensor<'_, f64, 1>, #[abi(out = x)] y: HostTensorMut<'_, f64, 1>) {}

/// Forgets the gradient of `k`.
#[abi_core::export_fn(op)]
fn scale_bwd(
    x: HostTensor<'_, f64, 1>,
    k: HostTensor<'_, f64, 1>,
    dy: HostTensor<'_, f64, 1>,
    #[abi(out = x)] dx: HostTensorMut<'_, f64, 1>,
) {
}

fn main() {}
