#![allow(unused)]
use abi_core::HostTensorMut;

#[abi_core::export_fn(op, backward = relu_bwd)]
fn relu_(#[abi(inout)] x: HostTensorMut<'_, f32, 1>) {}

fn main() {}
