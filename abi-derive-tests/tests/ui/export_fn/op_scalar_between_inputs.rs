#![allow(unused)]
use abi_core::{HostTensor, HostTensorMut};

#[abi_core::export_fn(op)]
fn axpy(x: HostTensor<'_, f32, 1>, alpha: f32, y: HostTensor<'_, f32, 1>, #[abi(out = x)] z: HostTensorMut<'_, f32, 1>) {}

fn main() {}
