#![allow(unused)]
use abi_core::{DeviceTensorMut, HostTensor};

#[abi_core::export_fn(op)]
fn upload(x: HostTensor<'_, f32, 1>, #[abi(out = x)] y: DeviceTensorMut<'_, f32, 1>) {}

fn main() {}
