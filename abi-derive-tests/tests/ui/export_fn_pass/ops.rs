//! Ops `#[export_fn(op)]` accepts: every rule form, scalars in each place they may stand,
//! strided and device tensors, a backward named by a path into another module, and an
//! in-place op (with its JAX-order entry point).
use abi_core::{DeviceTensor, DeviceTensorMut, HostTensor, HostTensorMut, Result, StridedTensor, StridedTensorMut};

#[abi_core::export_fn(op, backward = grads::scale_bwd)]
pub fn scale(
    flag: bool,
    x: StridedTensor<'_, f64, 2>,
    k: f64,
    #[abi(out = x)] y: StridedTensorMut<'_, f64, 2>,
    n: i32,
) -> Result<()> {
    let _ = (flag, x, k, y, n);
    Ok(())
}

mod grads {
    use abi_core::{StridedTensor, StridedTensorMut};

    #[abi_core::export_fn(op)]
    pub fn scale_bwd(
        flag: bool,
        x: StridedTensor<'_, f64, 2>,
        dy: StridedTensor<'_, f64, 2>,
        k: f64,
        #[abi(out = x)] dx: StridedTensorMut<'_, f64, 2>,
        n: i32,
    ) {
        let _ = (flag, x, k, n, dy, dx);
    }
}

#[abi_core::export_fn(op)]
fn outer(a: HostTensor<'_, f32, 1>, b: HostTensor<'_, f32, 1>, n: i64, #[abi(out = [a.0, b.0, n, 2])] c: HostTensorMut<'_, f32, 4>) {
    let _ = (a, b, n, c);
}

#[abi_core::export_fn(op)]
fn gpu_copy(x: DeviceTensor<'_, f32, 1>, #[abi(out = x)] mut y: DeviceTensorMut<'_, f32, 1>) {
    let _ = (x.data_ptr(), y.data_ptr());
}

#[abi_core::export_fn(op)]
fn clamp_(lo: f32, #[abi(inout)] mut x: HostTensorMut<'_, f32, 1>, hi: f32) {
    x.as_mut_slice().iter_mut().for_each(|v| *v = v.clamp(lo, hi));
}

fn main() {
    let _ = (scale, outer, gpu_copy, clamp_);
    assert!(abi_core::find_export("clamp___jax").is_some());
    assert_eq!(abi_core::find_export("scale_bwd").map(|e| e.name()), Some("scale_bwd"));
}
