#![allow(unused)]
use abi_core::{HostTensor, HostTensorMut};

#[abi_core::export_fn(op)]
fn copy(x: HostTensor<'_, f32, 2>, #[abi(out = [x.0, z.1])] y: HostTensorMut<'_, f32, 2>) {}

fn main() {}
