#![allow(unused)]
use abi_core::HostTensorMut;

#[abi_core::export_fn(op)]
fn fill(step: f64, #[abi(out = [step])] y: HostTensorMut<'_, f32, 1>) {}

fn main() {}
