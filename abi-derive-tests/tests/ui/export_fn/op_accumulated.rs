#![allow(unused)]
use abi_core::{HostTensor, HostTensorMut};

// Several broken rules, reported together.
#[abi_core::export_fn(op)]
fn many(x: HostTensor<'_, f32, 1>, tag: &str, #[abi(out = w)] y: HostTensorMut<'_, f32, 1>, z: HostTensorMut<'_, f32, 1>) -> i64 {
    0
}

fn main() {}
