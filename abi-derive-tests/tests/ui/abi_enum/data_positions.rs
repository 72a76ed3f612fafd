// An enum with data crosses as a tuple: not through IREE's calling convention, not as an
// op's scalar (torch and JAX take strings and numbers there), and a string default does
// not name one of its values, nor does a variant's path.
use abi_core::{HostTensor, HostTensorMut, Result};

#[derive(abi_core::AbiEnum)]
pub enum Shape {
    Circle { r: f64 },
    Empty,
}

#[abi_core::export_fn(iree)]
pub fn area(s: Shape) -> f64 {
    let _ = s;
    0.0
}

#[abi_core::export_fn(op)]
pub fn scale(x: HostTensor<'_, f64, 1>, s: Shape, #[abi(out = x)] mut y: HostTensorMut<'_, f64, 1>) -> Result<()> {
    let _ = s;
    y.as_mut_slice().copy_from_slice(x.as_slice());
    Ok(())
}

#[abi_core::export_fn]
pub fn fill(#[abi(default = "empty")] s: Shape) -> f64 {
    let _ = s;
    0.0
}

#[abi_core::export_fn]
pub fn pick(#[abi(default = Shape::Empty)] s: Shape) -> f64 {
    let _ = s;
    0.0
}

fn main() {}
