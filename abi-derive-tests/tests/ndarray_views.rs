//! The `ndarray` feature: typed tensor parameters viewed as `ndarray` arrays of their rank,
//! read and written in place, with the shape the caller passed.

use abi_core::{Any, AnyView, HostTensor, HostTensorMut, Result, Tensor};
use ndarray::{Axis, Ix2};

/// out = x @ w, with ndarray's views.
#[abi_core::export_fn]
fn matmul_into(x: HostTensor<'_, f64, 2>, w: HostTensor<'_, f64, 2>, mut out: HostTensorMut<'_, f64, 2>) {
    let product = x.as_array().dot(&w.as_array());
    out.as_array_mut().assign(&product);
}

/// Row sums, read back through the mutable view too.
#[abi_core::export_fn]
fn row_sums(mut m: HostTensorMut<'_, f32, 2>) -> Vec<f64> {
    m.as_array_mut().mapv_inplace(|v| v * 2.0);
    m.as_array().sum_axis(Axis(1)).iter().map(|&v| f64::from(v)).collect()
}

fn call(name: &str, args: &[AnyView<'_>]) -> Result<Any> {
    abi_core::find_export(name).unwrap().function().call_packed(args)
}

#[test]
fn views_have_the_callers_shape_and_write_in_place() {
    let x = Tensor::from_vec(vec![1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]).unwrap();
    let w = Tensor::from_vec(vec![1.0f64, 0.0, 0.0, 1.0, 1.0, 1.0], &[3, 2]).unwrap();
    let out = Tensor::from_vec(vec![0.0f64; 4], &[2, 2]).unwrap();
    call("matmul_into", &[Any::from(x).view(), Any::from(w).view(), Any::from(out.clone()).view()]).unwrap();
    assert_eq!(out.view().as_slice::<f64>().unwrap(), [4.0, 5.0, 10.0, 11.0]);

    let m = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[3, 2]).unwrap();
    let sums = call("row_sums", &[Any::from(m.clone()).view()]).unwrap().to::<Vec<f64>>().unwrap();
    assert_eq!(sums, [6.0, 14.0, 22.0]);
    assert_eq!(m.view().as_slice::<f32>().unwrap(), [2.0, 4.0, 6.0, 8.0, 10.0, 12.0]);

    let empty = Tensor::from_vec(Vec::<f32>::new(), &[0, 4]).unwrap();
    assert!(call("row_sums", &[Any::from(empty).view()]).unwrap().to::<Vec<f64>>().unwrap().is_empty());
}

#[test]
fn the_view_type_names_the_rank() {
    fn rank2(_: ndarray::ArrayView<'_, f64, Ix2>) {}
    let t = Tensor::from_vec(vec![0.0f64; 6], &[2, 3]).unwrap();
    let a = Any::from(t);
    let v = a.view();
    let x = <HostTensor<'_, f64, 2> as abi_core::FromArg<'_>>::from_arg(&v).unwrap();
    assert_eq!(x.as_array().dim(), (2, 3));
    rank2(x.as_array());
}
