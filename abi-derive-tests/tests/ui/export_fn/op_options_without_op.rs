#![allow(unused)]
use abi_core::{HostTensor, HostTensorMut};

#[abi_core::export_fn(backward = copy_bwd)]
fn copy(x: HostTensor<'_, f32, 1>, #[abi(out = x)] y: HostTensorMut<'_, f32, 1>) {}

fn main() {}
