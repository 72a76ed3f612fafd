#![allow(unused)]
use abi_core::{HostTensor, HostTensorMut};

#[abi_core::export_fn(op)]
fn copy(x: HostTensor<'_, f32, 1>, #[abi(out = [x.0, "n"])] y: HostTensorMut<'_, f32, 1>) {}

fn main() {}
