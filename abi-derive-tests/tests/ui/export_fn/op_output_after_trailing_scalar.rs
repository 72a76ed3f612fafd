#![allow(unused)]
use abi_core::{HostTensor, HostTensorMut};

#[abi_core::export_fn(op)]
fn split(
    x: HostTensor<'_, f32, 1>,
    #[abi(out = x)] lo: HostTensorMut<'_, f32, 1>,
    at: i64,
    #[abi(out = x)] hi: HostTensorMut<'_, f32, 1>,
) {
}

fn main() {}
