//! Functions usable from both worlds: each `#[export_fn(iree)]` is a TVM FFI export
//! (`tvm_ffi.load_module("libiree_kit.so").add_i32(40, 2)`) and a function of the IREE VM
//! module `kit` (`iree-run-module --module=libiree_kit.so --module=prog.vmfb`, where the
//! program declares `func.func private @kit.add_i32(i32, i32) -> i32`). Tensors cross too:
//! an IREE program passes `tensor<?xf32>` where a function takes `HostTensor<'_, f32, 1>`,
//! and gets a `Tensor` result back as a tensor of its own.

use abi_core::{Error, Result};
use abi_core::{HostTensor, Tensor};

abi_core::iree_module!("kit");

/// Adds two integers (wrapping, as IREE's own `arith.addi` does).
#[abi_core::export_fn(iree)]
fn add_i32(a: i32, b: i32) -> i32 {
    a.wrapping_add(b)
}

/// Two results: IREE functions may return several values.
#[abi_core::export_fn(iree)]
fn mix(a: i32, b: i64, c: f32) -> (f32, i64) {
    (a as f32 * c, b + a as i64)
}

/// `x` when it is not negative; a ValueError (INVALID_ARGUMENT under IREE) otherwise.
#[abi_core::export_fn(iree)]
fn checked(x: i64) -> Result<i64> {
    if x < 0 {
        return Err(Error::value_error(format!("x must not be negative, got {x}")));
    }
    Ok(x)
}

/// The `i`-th of three values; an IndexError (OUT_OF_RANGE) past the end.
#[abi_core::export_fn(iree)]
fn pick(i: i32) -> Result<f64> {
    const VALUES: [f64; 3] = [0.5, 1.5, 2.5];
    usize::try_from(i)
        .ok()
        .and_then(|i| VALUES.get(i).copied())
        .ok_or_else(|| Error::index_error(format!("index {i} is out of range for 3 values")))
}

/// The value stored under `key` (1 to 3); a KeyError (NOT_FOUND) otherwise.
#[abi_core::export_fn(iree)]
fn lookup(key: i32) -> Result<i64> {
    match key {
        1..=3 => Ok(i64::from(key) * 100),
        _ => Err(Error::key_error(format!("no value under key {key}"))),
    }
}

/// Small integers and bools: promoted to `i` on the IREE side, range-checked on the way in.
#[abi_core::export_fn(iree)]
fn widen(a: i8, b: i16, negate: bool) -> i64 {
    let sum = i64::from(a) + i64::from(b);
    if negate {
        -sum
    } else {
        sum
    }
}

/// Whether `x` is positive (a bool result is `i`, 0 or 1).
#[abi_core::export_fn(iree)]
fn is_positive(x: f64) -> bool {
    x > 0.0
}

/// No arguments, two results (`0v_ii`).
#[abi_core::export_fn(iree)]
fn pair() -> (i32, i32) {
    (7, -7)
}

/// No arguments and no results (`0v_v`): counts its calls.
#[abi_core::export_fn(iree)]
fn tick() {
    TICKS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
}

/// Calls of `tick` so far (a TVM FFI export only).
#[abi_core::export_fn]
fn ticks() -> i64 {
    TICKS.load(std::sync::atomic::Ordering::Relaxed)
}

static TICKS: std::sync::atomic::AtomicI64 = std::sync::atomic::AtomicI64::new(0);

/// Panics when `x` is 13 (a panic becomes an INTERNAL status, never an unwind into IREE).
#[abi_core::export_fn(iree)]
fn unlucky(x: i32) -> i32 {
    assert!(x != 13, "13 is unlucky");
    x
}

/// Sum of a float32 vector (an IREE program passes `tensor<?xf32>`).
#[abi_core::export_fn(iree)]
fn total(x: HostTensor<'_, f32, 1>) -> f32 {
    x.as_slice().iter().sum()
}

/// A new tensor for the program: each element times `k` (`tensor<?x?xf32>` result).
#[abi_core::export_fn(iree)]
fn scaled(x: HostTensor<'_, f32, 2>, k: f32) -> Result<Tensor> {
    let data = x.as_slice().iter().map(|v| v * k).collect();
    Tensor::from_vec(data, x.shape())
}

/// Row sums of an int32 matrix, as an int64 vector, and the number of rows.
#[abi_core::export_fn(iree)]
fn row_sums(m: HostTensor<'_, i32, 2>) -> Result<(Tensor, i64)> {
    let [rows, cols] = m.dims();
    let sums: Vec<i64> = m.as_slice().chunks(cols.max(1)).map(|r| r.iter().map(|&v| i64::from(v)).sum()).collect();
    // A matrix with no columns still has `rows` (zero) sums.
    let sums = if cols == 0 { vec![0; rows] } else { sums };
    Ok((Tensor::from_vec(sums, &[rows as i64])?, rows as i64))
}

/// Why `halve` refuses a number: an error type of the library's own.
#[derive(Debug)]
pub struct Odd(i64);

impl From<Odd> for Error {
    fn from(odd: Odd) -> Error {
        Error::value_error(format!("{} is odd", odd.0))
    }
}

/// Half of an even number; any error type that converts to `abi_core::Error` may be returned
/// (here a ValueError, INVALID_ARGUMENT under IREE).
#[abi_core::export_fn(iree)]
fn halve(x: i64) -> std::result::Result<i64, Odd> {
    if x % 2 != 0 {
        return Err(Odd(x));
    }
    Ok(x / 2)
}
