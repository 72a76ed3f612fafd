// Parameters IREE's calling convention cannot carry: unsigned integers, half floats,
// strings. Each is an error on that parameter.

#[abi_core::export_fn(iree)]
fn unsigned(a: i32, b: u32) -> i32 {
    a + b as i32
}

#[abi_core::export_fn(iree)]
fn text(s: &str) -> i64 {
    s.len() as i64
}

#[abi_core::export_fn(iree)]
fn half(x: half::f16) -> f32 {
    x.to_f32()
}

fn main() {}
