#![allow(unused)]
use abi_core::{HostTensor, HostTensorMut};

#[abi_core::export_fn(op)]
fn flat(x: HostTensor<'_, f32, 2>, #[abi(out = x)] y: HostTensorMut<'_, f32, 1>) {}

fn main() {}
