#![allow(unused)]
use abi_core::{HostTensor, HostTensorMut};

#[abi_core::export_fn(op)]
fn rows(x: HostTensor<'_, f32, 2>, #[abi(out = [x.2])] y: HostTensorMut<'_, f32, 1>) {}

fn main() {}
