#![allow(unused)]
use abi_core::{HostTensor, HostTensorMut};

#[abi_core::export_fn(op)]
fn add(a: HostTensor<'_, f32, 1>, #[abi(out = a)] c: HostTensorMut<'_, f32, 1>, b: HostTensor<'_, f32, 1>) {}

fn main() {}
