#![allow(unused)]
use abi_core::{HostTensor, HostTensorMut};

#[abi_core::export_fn(op)]
fn label(x: HostTensor<'_, f32, 1>, name: String, #[abi(out = x)] y: HostTensorMut<'_, f32, 1>) {}

fn main() {}
