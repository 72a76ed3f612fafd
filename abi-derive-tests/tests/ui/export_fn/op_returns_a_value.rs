#![allow(unused)]
use abi_core::{HostTensor, HostTensorMut, Result};

#[abi_core::export_fn(op)]
fn total(x: HostTensor<'_, f32, 1>, #[abi(out = x)] y: HostTensorMut<'_, f32, 1>) -> Result<f32> {
    Ok(0.0)
}

fn main() {}
