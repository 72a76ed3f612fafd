//! The `#[export_fn]` functions under measurement.

use std::sync::atomic::{AtomicI64, Ordering};

use abi_core::{Result, TensorView, TypedFunction};

/// Adds two integers.
#[abi_core::export_fn]
pub fn add(a: i64, b: i64) -> i64 {
    a.wrapping_add(b)
}

/// Adds two i32: also a function of this binary's IREE module `bench`.
#[abi_core::export_fn(iree)]
pub fn add_i32(a: i32, b: i32) -> i32 {
    a.wrapping_add(b)
}

abi_core::iree_module!("bench");

/// The body shared by the generated and the hand-written `mixed4` shims.
#[inline(always)]
pub fn mixed4_body(a: i64, b: f64, c: bool, d: i32) -> f64 {
    if c {
        a as f64 + b + d as f64
    } else {
        b
    }
}

/// Four mixed scalar arguments.
#[abi_core::export_fn]
pub fn mixed4(a: i64, b: f64, c: bool, d: i32) -> f64 {
    mixed4_body(a, b, c, d)
}

/// Sixteen integer arguments.
#[abi_core::export_fn]
#[allow(clippy::too_many_arguments)]
pub fn sum16(
    a0: i64,
    a1: i64,
    a2: i64,
    a3: i64,
    a4: i64,
    a5: i64,
    a6: i64,
    a7: i64,
    a8: i64,
    a9: i64,
    a10: i64,
    a11: i64,
    a12: i64,
    a13: i64,
    a14: i64,
    a15: i64,
) -> i64 {
    a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10 + a11 + a12 + a13 + a14 + a15
}

/// Length of a borrowed string (small inline, or a Str object).
#[abi_core::export_fn]
pub fn str_len(s: &str) -> i64 {
    s.len() as i64
}

/// A short string in and out: the floor a fieldless enum's round trip is held to.
#[abi_core::export_fn]
pub fn str_echo(s: &str) -> String {
    s.to_owned()
}

/// A fieldless enum: one name inline (7 bytes), one a static Str object (8 bytes).
#[derive(abi_core::AbiEnum, Debug, Clone, Copy)]
#[abi(rename_all = "lowercase")]
pub enum Mode {
    /// "nearest".
    Nearest,
    /// "bilinear".
    Bilinear,
}

/// A fieldless enum in and out: its name looked up, and made again with no allocation.
#[abi_core::export_fn]
pub fn enum_echo(m: Mode) -> Mode {
    m
}

/// A body's error of a standard kind: the floor a derived error type is held to.
#[abi_core::export_fn]
pub fn fail_value(n: i64) -> abi_core::Result<i64> {
    Err(abi_core::Error::value_error(format!("bad {n}")))
}

/// A derived error type: its kind static text, its message its `Display`.
#[derive(Debug, abi_core::AbiError)]
pub enum BenchError {
    /// A refused value.
    #[abi(base = ValueError)]
    Bad(i64),
}

impl std::fmt::Display for BenchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BenchError::Bad(n) => write!(f, "bad {n}"),
        }
    }
}

/// A body's error of a derived kind.
#[abi_core::export_fn]
pub fn fail_derived(n: i64) -> Result<i64, BenchError> {
    Err(BenchError::Bad(n))
}

/// A string result (a new Str object per call).
#[abi_core::export_fn]
pub fn greet(name: &str) -> String {
    let mut s = String::with_capacity(7 + name.len());
    s.push_str("hello, ");
    s.push_str(name);
    s
}

/// Two fields.
#[derive(abi_core::AbiStruct, Debug, Clone, Copy)]
pub struct P2 {
    /// x
    pub x: f64,
    /// y
    pub y: f64,
}

/// Four fields.
#[derive(abi_core::AbiStruct, Debug, Clone, Copy)]
pub struct P4 {
    /// x
    pub x: f64,
    /// y
    pub y: f64,
    /// z
    pub z: f64,
    /// w
    pub w: f64,
}

/// A 2-field struct as a tuple (an Array object).
#[abi_core::export_fn]
pub fn norm2(p: P2) -> f64 {
    p.x * p.x + p.y * p.y
}

/// A 2-field struct expanded into two slots.
#[abi_core::export_fn]
pub fn norm2_flat(#[abi(expand)] p: P2) -> f64 {
    p.x * p.x + p.y * p.y
}

/// A 4-field struct as a tuple.
#[abi_core::export_fn]
pub fn norm4(p: P4) -> f64 {
    p.x * p.x + p.y * p.y + p.z * p.z + p.w * p.w
}

/// A 4-field struct expanded into four slots.
#[abi_core::export_fn]
pub fn norm4_flat(#[abi(expand)] p: P4) -> f64 {
    p.x * p.x + p.y * p.y + p.z * p.z + p.w * p.w
}

/// A tensor view argument.
#[abi_core::export_fn]
pub fn tensor_len(t: TensorView<'_>) -> i64 {
    t.numel() as i64
}

/// An untyped tensor argument read as a slice: the floor of the typed ones.
#[abi_core::export_fn]
pub fn tensor_slice_len(t: TensorView<'_>) -> Result<i64> {
    Ok(t.as_slice::<f32>()?.len() as i64)
}

/// A typed tensor argument, checked by the shim.
#[abi_core::export_fn]
pub fn host_tensor_len(t: abi_core::HostTensor<'_, f32, 2>) -> i64 {
    t.as_slice().len() as i64
}

/// A typed tensor beside a mutable one: the shim's overlap check runs.
#[abi_core::export_fn]
pub fn host_tensor_into(x: abi_core::HostTensor<'_, f32, 2>, mut out: abi_core::HostTensorMut<'_, f32, 2>) -> i64 {
    out.as_mut_slice()[0] = x.as_slice()[0];
    out.numel() as i64
}

/// Calls a typed callback once.
#[abi_core::export_fn]
pub fn call_cb(f: TypedFunction<fn(i64) -> i64>, x: i64) -> Result<i64> {
    f.call(x)
}

/// One i64 argument (the floor of an object argument).
#[abi_core::export_fn]
pub fn echo_i64(x: i64) -> i64 {
    x
}

/// A counter object, shaped like the objects issue's `mylib.Counter`.
#[derive(abi_core::Object, Debug)]
#[abi(type_key = "bench.Counter")]
pub struct Counter {
    /// The starting value.
    #[abi(get)]
    pub start: i64,
    value: AtomicI64,
}

#[abi_core::methods]
impl Counter {
    /// A counter starting at `start`.
    #[abi(init)]
    pub fn new(start: i64) -> Counter {
        Counter { start, value: AtomicI64::new(start) }
    }

    /// The current value.
    pub fn value(&self) -> i64 {
        self.value.load(Ordering::Relaxed)
    }
}

/// A borrowed object argument.
#[abi_core::export_fn]
pub fn counter_value(c: &Counter) -> i64 {
    c.value()
}
