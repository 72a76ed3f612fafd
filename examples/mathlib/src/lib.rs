//! A small math library exported through the packed ABI. Other Rust code imports it with
//! `#[abi_core::import]` (see the quickstart and the import tests).

use abi_core::{Error, Result, TypedFunction};

/// Adds two integers.
#[abi_core::export_fn]
pub fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Greets `name`.
#[abi_core::export_fn(name = "greet_v2")]
pub fn greet(name: &str) -> String {
    format!("hello, {name}")
}

/// Integer division; dividing by zero raises ValueError.
#[abi_core::export_fn]
pub fn divide(a: i64, b: i64) -> Result<i64> {
    if b == 0 {
        return Err(Error::value_error(format!("cannot divide {a} by zero")));
    }
    Ok(a / b)
}

/// Looks `key` up; a missing key raises a custom error kind.
#[abi_core::export_fn]
pub fn lookup(key: &str) -> Result<f64> {
    match key {
        "pi" => Ok(core::f64::consts::PI),
        "e" => Ok(core::f64::consts::E),
        _ => Err(Error::new(
            "LookupMissError",
            format!("no constant named {key:?}"),
        )),
    }
}

/// Applies `f` to each element of `xs`.
#[abi_core::export_fn]
pub fn map_ints(xs: Vec<i64>, f: TypedFunction<fn(i64) -> i64>) -> Result<Vec<i64>> {
    xs.into_iter().map(|x| f.call(x)).collect()
}

/// Sums a list of floats.
#[abi_core::export_fn]
pub fn total(xs: Vec<f64>) -> f64 {
    xs.iter().sum()
}
