// The backward's enum scalar is the forward's enum: another enum of the same shape is not.
#![allow(unused)]
use abi_core::{HostTensor, HostTensorMut};

#[derive(abi_core::AbiEnum, Clone, Copy)]
enum Mode {
    Fast,
    Slow,
}

#[derive(abi_core::AbiEnum, Clone, Copy)]
enum Speed {
    Fast,
    Slow,
}

#[abi_core::export_fn(op, backward = shift_bwd)]
fn shift(x: HostTensor<'_, f64, 1>, mode: Mode, #[abi(out = x)] y: HostTensorMut<'_, f64, 1>) {}

#[abi_core::export_fn(op)]
fn shift_bwd(x: HostTensor<'_, f64, 1>, dy: HostTensor<'_, f64, 1>, mode: Speed, #[abi(out = x)] dx: HostTensorMut<'_, f64, 1>) {}

fn main() {}
