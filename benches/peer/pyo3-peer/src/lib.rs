//! The functions of `benches/peer/abi-peer` (the same bodies) through PyO3 and rust-numpy,
//! as the abi3 extension module `pyo3_peer`: `benches/python/peer.py` calls both from Python
//! and counts instructions per call.

use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::prelude::*;

/// `a + b`.
#[pyfunction]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// `a + b + c`, `c` defaulting to 1 (called as `add_kw(1, b=2)`).
#[pyfunction]
#[pyo3(signature = (a, b, c=1))]
fn add_kw(a: i64, b: i64, c: i64) -> i64 {
    a + b + c
}

/// `"hello, " + name`: a string result longer than 7 bytes.
#[pyfunction]
fn greet(name: &str) -> String {
    format!("hello, {name}")
}

/// The sum of a float32 vector, accumulated in f64 (also called with a read-only array).
#[pyfunction]
fn total(x: PyReadonlyArray1<'_, f32>) -> PyResult<f64> {
    Ok(x.as_slice()?.iter().map(|&v| f64::from(v)).sum())
}

/// A new float32 vector `x + 1`.
#[pyfunction]
fn plus_one<'py>(py: Python<'py>, x: PyReadonlyArray1<'py, f32>) -> PyResult<Bound<'py, PyArray1<f32>>> {
    Ok(PyArray1::from_vec(py, x.as_slice()?.iter().map(|v| v + 1.0).collect()))
}

/// The op's functional call written as PyO3 would: the same as `plus_one`.
#[pyfunction]
fn plus_one_op<'py>(py: Python<'py>, x: PyReadonlyArray1<'py, f32>) -> PyResult<Bound<'py, PyArray1<f32>>> {
    plus_one(py, x)
}

#[pymodule]
fn pyo3_peer(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(add, m)?)?;
    m.add_function(wrap_pyfunction!(add_kw, m)?)?;
    m.add_function(wrap_pyfunction!(greet, m)?)?;
    m.add_function(wrap_pyfunction!(total, m)?)?;
    m.add_function(wrap_pyfunction!(plus_one, m)?)?;
    m.add_function(wrap_pyfunction!(plus_one_op, m)?)?;
    Ok(())
}
