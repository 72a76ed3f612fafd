// An op's scalar named by a path must be a fieldless enum (a string to torch and JAX).
use abi_core::{HostTensor, HostTensorMut, Result};

#[abi_core::export_fn(op)]
pub fn scale(x: HostTensor<'_, f64, 1>, label: String, #[abi(out = x)] mut y: HostTensorMut<'_, f64, 1>) -> Result<()> {
    let _ = label;
    y.as_mut_slice().copy_from_slice(x.as_slice());
    Ok(())
}

fn main() {}
