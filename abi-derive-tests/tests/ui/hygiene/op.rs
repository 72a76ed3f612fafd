// An op's generated code (its description, rule checks, backward check and JAX-order
// entry point) names nothing from the prelude and raises no warning of its own.
#![deny(warnings)]
#![no_implicit_prelude]

::core::include!("shared/shadows.rs");

use ::abi_core::{HostTensor, HostTensorMut};

/// y = x * k.
#[::abi_core::export_fn(op, backward = scale_bwd)]
pub fn scale(x: HostTensor<'_, f64, 1>, k: f64, #[abi(out = [x.0])] mut y: HostTensorMut<'_, f64, 1>) {
    for (o, v) in ::std::iter::Iterator::zip(y.as_mut_slice().iter_mut(), x.as_slice()) {
        *o = v * k;
    }
}

/// dx = dy * k.
#[::abi_core::export_fn(op)]
pub fn scale_bwd(
    x: HostTensor<'_, f64, 1>,
    dy: HostTensor<'_, f64, 1>,
    k: f64,
    #[abi(out = x)] mut dx: HostTensorMut<'_, f64, 1>,
) -> ::abi_core::Result<()> {
    let _ = x;
    for (o, v) in ::std::iter::Iterator::zip(dx.as_mut_slice().iter_mut(), dy.as_slice()) {
        *o = v * k;
    }
    ::std::result::Result::Ok(())
}

/// x = -x, in place.
#[::abi_core::export_fn(op)]
fn negate_(#[abi(inout)] mut x: HostTensorMut<'_, f32, 1>) {
    for v in x.as_mut_slice() {
        *v = -*v;
    }
}

fn main() {
    let _ = (scale, scale_bwd, negate_);
}
