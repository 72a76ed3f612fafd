#![allow(unused)]
use abi_core::HostTensorMut;

#[abi_core::export_fn(op)]
fn fill(n: i64, #[abi(out = n)] y: HostTensorMut<'_, f32, 1>) {}

fn main() {}
