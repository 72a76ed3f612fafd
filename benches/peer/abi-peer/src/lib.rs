//! The functions of `benches/peer/pyo3-peer` (the same bodies, there through PyO3 and
//! rust-numpy) as `#[abi_core::export_fn]` exports: `benches/python/peer.py` calls both from
//! Python, this one through the package `abi stubs` writes, and counts instructions per call.

use abi_core::{Error, HostTensor, HostTensorMut, Result, Tensor};

/// `a + b`.
#[abi_core::export_fn]
pub fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// `a + b + c`, `c` defaulting to 1 (called as `add_kw(1, b=2)`).
#[abi_core::export_fn]
pub fn add_kw(a: i64, b: i64, #[abi(default = 1)] c: i64) -> i64 {
    a + b + c
}

/// `"hello, " + name`: a string result longer than 7 bytes.
#[abi_core::export_fn]
pub fn greet(name: &str) -> String {
    format!("hello, {name}")
}

/// The sum of a float32 vector, accumulated in f64 (also called with a read-only array).
#[abi_core::export_fn]
pub fn total(x: HostTensor<'_, f32, 1>) -> f64 {
    x.as_slice().iter().map(|&v| f64::from(v)).sum()
}

/// A new float32 vector `x + 1`.
#[abi_core::export_fn]
pub fn plus_one(x: HostTensor<'_, f32, 1>) -> Result<Tensor> {
    Tensor::from_vec(x.as_slice().iter().map(|v| v + 1.0).collect(), x.shape())
}

/// `y = x + 1`, `y` allocated by the caller (the package: `out = x`).
#[abi_core::export_fn(op)]
pub fn plus_one_op(x: HostTensor<'_, f32, 1>, #[abi(out = x)] mut y: HostTensorMut<'_, f32, 1>) -> Result<()> {
    if y.shape() != x.shape() {
        return Err(Error::value_error(format!("`y` has shape {:?}, expected {:?}", y.shape(), x.shape())));
    }
    for (o, v) in y.as_mut_slice().iter_mut().zip(x.as_slice()) {
        *o = v + 1.0;
    }
    Ok(())
}
