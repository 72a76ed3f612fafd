#![allow(unused)]
use abi_core::{HostTensor, HostTensorMut};

#[abi_core::export_fn(op)]
fn copy(x: HostTensor<'_, f32, 1>, #[abi(out = x)] y: HostTensor<'_, f32, 1>, #[abi(out = x, inout)] z: HostTensorMut<'_, f32, 1>) {}

fn main() {}
