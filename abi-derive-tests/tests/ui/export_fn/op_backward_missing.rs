#![allow(unused)]
use abi_core::{HostTensor, HostTensorMut};

#[abi_core::export_fn(op, backward = double_bwd)]
fn double(x: HostTensor<'_, f64, 1>, #[abi(out = x)] y: HostTensorMut<'_, f64, 1>) {}

/// Not an op.
#[abi_core::export_fn]
fn double_bwd(x: HostTensor<'_, f64, 1>, dy: HostTensor<'_, f64, 1>, dx: HostTensorMut<'_, f64, 1>) {}

fn main() {}
