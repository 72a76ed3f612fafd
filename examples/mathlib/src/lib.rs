//! A small math library exported through the packed ABI. Other Rust code imports it with
//! `#[abi_core::import]` (see the quickstart and the import tests).

use std::collections::BTreeMap;

use abi_core::{Error, Result, TypedFunction};

/// Adds two integers; a sum outside the i64 range raises `ValueError`.
#[abi_core::export_fn]
pub fn add(a: i64, b: i64) -> Result<i64> {
    a.checked_add(b).ok_or_else(|| Error::value_error(format!("{a} + {b} overflows i64")))
}

/// Greets `name`.
#[abi_core::export_fn(name = "greet_v2")]
pub fn greet(name: &str) -> String {
    format!("hello, {name}")
}

/// Integer division; dividing by zero (or `-2**63` by `-1`) raises `ValueError`.
#[abi_core::export_fn]
pub fn divide(a: i64, b: i64) -> Result<i64> {
    if b == 0 {
        return Err(Error::value_error(format!("cannot divide {a} by zero")));
    }
    a.checked_div(b).ok_or_else(|| Error::value_error(format!("{a} / {b} overflows i64")))
}

/// Looks the constant `key` up (`"pi"` or `"e"`); another key raises the custom error kind `LookupMissError` (Python
/// raises it as `RuntimeError` unless a class is registered for it).
#[abi_core::export_fn]
pub fn lookup(key: &str) -> Result<f64> {
    match key {
        "pi" => Ok(core::f64::consts::PI),
        "e" => Ok(core::f64::consts::E),
        _ => Err(Error::new("LookupMissError", format!("no constant named {key:?}"))),
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

/// Greatest common divisor of `a` and `b`; also the global function `mathlib.gcd`, so
/// hosts find it by name (`tvm_ffi.get_global_func("mathlib.gcd")`) once the library is
/// loaded. Raises `ValueError` when the result (2^63) does not fit i64.
#[abi_core::export_fn(global = "mathlib.gcd")]
pub fn gcd(a: i64, b: i64) -> Result<i64> {
    let (mut a, mut b) = (a.unsigned_abs(), b.unsigned_abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    i64::try_from(a).map_err(|_| Error::value_error(format!("gcd {a} does not fit i64")))
}

/// Clamps `x` into `[lo, hi]`; also the global function `mathlib.clamp`. Raises
/// `ValueError` when `lo > hi` or a bound is NaN.
#[abi_core::export_fn(global = "mathlib.clamp")]
pub fn clamp(x: f64, lo: f64, hi: f64) -> Result<f64> {
    // A NaN bound is refused too (`f64::clamp` would panic on it).
    if lo.is_nan() || hi.is_nan() || lo > hi {
        return Err(Error::value_error(format!("empty range [{lo}, {hi}]")));
    }
    Ok(x.clamp(lo, hi))
}

/// A hook a host must register in the global function registry (e.g. with Python's
/// `tvm_ffi.register_global_func`), called from Rust through a typed wrapper.
#[abi_core::import(SquareHook)]
extern "C" {
    #[abi(name = "mathlib_square")]
    fn square(x: i64) -> i64;
}

/// A hook a host may register; [`describe`] has a default when it does not.
#[abi_core::import(DescribeHook)]
extern "C" {
    #[abi(optional, name = "mathlib_describe")]
    fn describe(x: f64, unit: &str) -> String;
}

/// Sums `square(x)` over `xs`, calling the registered global `mathlib_square`. Raises
/// `AttributeError` when it is not registered, and `ValueError` when the sum overflows i64.
#[abi_core::export_fn]
pub fn sum_of_squares(xs: Vec<i64>) -> Result<i64> {
    let hook = SquareHook::bind_globals()?;
    xs.into_iter().try_fold(0i64, |acc, x| {
        let sq = hook.square(x)?;
        acc.checked_add(sq).ok_or_else(|| Error::value_error(format!("{acc} + {sq} overflows i64")))
    })
}

/// Describes `x` with the registered global `mathlib_describe`, or a default text.
#[abi_core::export_fn]
pub fn describe(x: f64, unit: &str) -> Result<String> {
    let hooks = DescribeHook::bind_globals()?;
    if hooks.has_describe() {
        hooks.describe(x, unit)
    } else {
        Ok(format!("{x} {unit}"))
    }
}

/// Counts the words of `text` (a map result: it crosses to other libraries of the process).
#[abi_core::export_fn]
pub fn word_counts(text: &str) -> BTreeMap<String, i64> {
    let mut counts = BTreeMap::new();
    for word in text.split_whitespace() {
        *counts.entry(word.to_owned()).or_insert(0) += 1;
    }
    counts
}

/// Registers `name` in the global registry: a function multiplying its argument by `factor`.
#[abi_core::export_fn]
pub fn register_scaler(name: &str, factor: i64) -> Result<()> {
    let scale = TypedFunction::<fn(i64) -> i64>::new(move |x| x * factor);
    scale.as_function().register_global(name, true)
}

/// Returns a callback that panics when called (to show panics become exceptions: Python
/// raises `RuntimeError`).
#[abi_core::export_fn]
pub fn panicking_callback() -> TypedFunction<fn(i64) -> i64> {
    TypedFunction::<fn(i64) -> i64>::new(|x| panic!("callback refused {x}"))
}

/// A point in the plane; crosses the ABI as the tuple `(x, y)`.
#[derive(abi_core::AbiStruct, Debug, Clone, Copy, PartialEq)]
pub struct Point {
    /// Horizontal coordinate.
    pub x: f64,
    /// Vertical coordinate.
    pub y: f64,
}

/// A labelled, weighted point; nests a [`Point`].
#[derive(abi_core::AbiStruct, Debug, Clone, PartialEq)]
pub struct Marker {
    /// The label.
    pub label: String,
    /// Where it is.
    pub at: Point,
    /// Its weight, reflected as `w`.
    #[abi(rename = "w")]
    pub weight: i32,
}

/// Distance of `p` from the origin; `p` is a tuple `(x, y)`.
#[abi_core::export_fn]
pub fn norm(p: Point) -> f64 {
    p.x.hypot(p.y)
}

/// Distance of `p` from the origin; `p` arrives as two arguments `x, y`.
#[abi_core::export_fn]
pub fn norm_flat(#[abi(expand)] p: Point) -> f64 {
    p.x.hypot(p.y)
}

/// Moves a marker by `(dx, dy)` and renames it.
#[abi_core::export_fn]
pub fn move_marker(m: Marker, dx: f64, dy: f64, label: Option<String>) -> Marker {
    Marker { label: label.unwrap_or(m.label), at: Point { x: m.at.x + dx, y: m.at.y + dy }, weight: m.weight }
}

/// The centroid of `points`, or None for an empty list.
#[abi_core::export_fn]
pub fn centroid(points: Vec<Point>) -> Option<Point> {
    if points.is_empty() {
        return None;
    }
    let n = points.len() as f64;
    Some(Point { x: points.iter().map(|p| p.x).sum::<f64>() / n, y: points.iter().map(|p| p.y).sum::<f64>() / n })
}

/// The lower-left and upper-right corners of the box around `points`, or None for an empty
/// list (in Python, a pair of `Point`s).
#[abi_core::export_fn]
pub fn bounds(points: Vec<Point>) -> Option<(Point, Point)> {
    let first = *points.first()?;
    Some(points.iter().fold((first, first), |(lo, hi), p| {
        (Point { x: lo.x.min(p.x), y: lo.y.min(p.y) }, Point { x: hi.x.max(p.x), y: hi.y.max(p.y) })
    }))
}

/// The four corners of the box from `lo` to `hi`, counter-clockwise from `lo`.
#[abi_core::export_fn]
pub fn corners(lo: Point, hi: Point) -> Vec<Point> {
    vec![lo, Point { x: hi.x, y: lo.y }, hi, Point { x: lo.x, y: hi.y }]
}

/// `x` with `digits` decimals after scaling by `scale`, then `unit`; `plus` writes a `+`
/// on positive values, and `label` comes first when given. Every parameter after `x` has a
/// default, so callers name only what they change: `show(2.5, unit="m")`.
#[abi_core::export_fn]
pub fn show(
    x: f64,
    #[abi(default = 2)] digits: u8,
    #[abi(default = 1.0)] scale: f64,
    #[abi(default = "")] unit: &str,
    #[abi(default = false)] plus: bool,
    #[abi(default)] label: Option<String>,
) -> String {
    let value = x * scale;
    let sign = if plus && value > 0.0 { "+" } else { "" };
    let text = format!("{sign}{value:.prec$}{unit}", prec = usize::from(digits));
    match label {
        Some(label) => format!("{label}: {text}"),
        None => text,
    }
}

/// Sums of each `window` consecutive values (3 unless given; `None` sums them all; a
/// window below 1 raises `ValueError`).
#[abi_core::export_fn]
pub fn window_sums(xs: Vec<f64>, #[abi(default = 3)] window: Option<i64>) -> Result<Vec<f64>> {
    let window = match window {
        None => return Ok(vec![xs.iter().sum()]),
        Some(w) if w >= 1 => usize::try_from(w).unwrap_or(usize::MAX),
        Some(w) => return Err(Error::value_error(format!("window must be >= 1, got {w}"))),
    };
    Ok(xs.windows(window).map(|w| w.iter().sum()).collect())
}
