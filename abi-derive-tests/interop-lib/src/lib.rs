//! Interop fixture: one export per supported type, loaded by the Python and C++ suites.

use std::collections::HashMap;

use abi_core::{Any, DataType, Device, Error, FunctionRef, Result, Shape, Tensor, TensorView};
use half::{bf16, f16};

macro_rules! echo {
    ($($name:ident: $t:ty),* $(,)?) => {$(
        #[doc = concat!("Returns its `", stringify!($t), "` argument unchanged.")]
        #[abi_core::export_fn]
        pub fn $name(x: $t) -> $t {
            x
        }
    )*};
}

echo! {
    echo_bool: bool, echo_i8: i8, echo_i16: i16, echo_i32: i32, echo_i64: i64,
    echo_u8: u8, echo_u16: u16, echo_u32: u32, echo_u64: u64,
    echo_f32: f32, echo_f64: f64, echo_f16: f16, echo_bf16: bf16,
    echo_string: String, echo_bytes: Vec<u8>, echo_opt: Option<i64>, echo_pair: (i64, String),
    echo_ints: Vec<i64>, echo_strs: Vec<String>, echo_map: HashMap<String, i64>, echo_any: Any,
    echo_dtype: DataType, echo_device: Device, echo_shape: Shape, echo_tensor: Tensor,
}

/// Adds two integers.
#[abi_core::export_fn]
pub fn add(a: i64, b: i64) -> i64 {
    a.wrapping_add(b)
}

/// Greets `name` (borrowed, zero-copy).
#[abi_core::export_fn]
pub fn greet(name: &str) -> String {
    format!("hello, {name}")
}

/// Length in bytes of a borrowed byte string.
#[abi_core::export_fn]
pub fn byte_len(data: &[u8]) -> usize {
    data.len()
}

/// Sum of a float64 tensor's elements.
#[abi_core::export_fn]
pub fn tensor_sum(x: TensorView<'_>) -> Result<f64> {
    Ok(x.as_slice::<f64>()?.iter().sum())
}

/// Calls `f(x)` and returns what it returns; its failure comes back unchanged.
#[abi_core::export_fn]
pub fn call_fn(f: FunctionRef<'_>, x: i64) -> Result<Any> {
    let x = Any::from_value(x)?;
    f.call_packed(&[x.view()])
}

/// Raises an error of `kind` with `message`.
#[abi_core::export_fn]
pub fn raise_kind(kind: &str, message: &str) -> Result<()> {
    Err(Error::new(kind, message))
}

/// Panics with `message`.
#[abi_core::export_fn]
pub fn panics(message: &str) -> i64 {
    panic!("{message}")
}

/// Takes no arguments.
#[abi_core::export_fn]
pub fn zero_args() -> i64 {
    42
}

/// A new shape from `dims`.
#[abi_core::export_fn]
pub fn make_shape(dims: Vec<i64>) -> Shape {
    Shape::new(&dims)
}
