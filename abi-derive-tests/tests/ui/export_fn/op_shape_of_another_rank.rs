#![allow(unused)]
use abi_core::{HostTensor, HostTensorMut};

#[abi_core::export_fn(op)]
fn widen(x: HostTensor<'_, f64, 2>, #[abi(out = [x.0])] y: HostTensorMut<'_, f64, 2>) {}

fn main() {}
