// The backward takes the forward's scalars with their types: `n` is an int in the forward.
#![allow(unused)]
use abi_core::{HostTensor, HostTensorMut};

#[abi_core::export_fn(op, backward = shift_bwd)]
fn shift(x: HostTensor<'_, f64, 1>, n: i64, #[abi(out = x)] y: HostTensorMut<'_, f64, 1>) {}

#[abi_core::export_fn(op)]
fn shift_bwd(x: HostTensor<'_, f64, 1>, dy: HostTensor<'_, f64, 1>, n: f64, #[abi(out = x)] dx: HostTensorMut<'_, f64, 1>) {}

fn main() {}
