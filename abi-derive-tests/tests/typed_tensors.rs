//! Typed tensor parameters through an export's shim: the body runs only with the dtype,
//! rank, device and layout its types name; a mismatch names the function and the
//! parameter; both tensor forms (a Tensor object, a bare `DLTensor*` as Apache TVM's TIR
//! passes) are accepted.

use abi_core::ffi::{code, device_type};
use abi_core::{
    Any, AnyView, DLTensor, DataType, Device, DeviceTensor, Error, HostTensor, HostTensorAs, Metadata, Result, Tensor,
    TensorView,
};

/// out[i][j] = x[i][j] * w[j].
#[abi_core::export_fn]
fn scale_rows(x: HostTensor<'_, f32, 2>, w: HostTensor<'_, f32, 1>) -> Result<Tensor> {
    let [rows, cols] = x.dims();
    if w.numel() != cols {
        return Err(Error::value_error(format!("w has {} elements for {cols} columns", w.numel())));
    }
    let out: Vec<f32> =
        x.as_slice().chunks(cols.max(1)).flat_map(|row| row.iter().zip(w.as_slice()).map(|(a, b)| a * b)).collect();
    Tensor::from_vec(out, &[rows as i64, cols as i64])
}

/// The device type and the address a kernel would launch on.
#[abi_core::export_fn]
fn launch(x: DeviceTensor<'_, f32, 1>) -> (i64, i64) {
    (x.device().device_type as i64, x.data_ptr() as i64)
}

/// The mean of a float32 vector, taking any dtype numpy's same_kind casting takes to float32.
#[abi_core::export_fn]
fn mean_as(x: HostTensorAs<'_, f32, 1>) -> (f32, bool) {
    (x.as_slice().iter().sum::<f32>() / x.numel().max(1) as f32, x.is_converted())
}

fn call(name: &str, args: &[AnyView<'_>]) -> Result<Any> {
    abi_core::find_export(name).unwrap().function().call_packed(args)
}

#[test]
fn the_body_sees_checked_slices() {
    let x = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]).unwrap();
    let w = Tensor::from_vec(vec![1.0f32, 10.0, 100.0], &[3]).unwrap();
    let (xa, wa) = (Any::from(x.clone()), Any::from(w.clone()));
    let out = call("scale_rows", &[xa.view(), wa.view()]).unwrap().to::<Tensor>().unwrap();
    assert_eq!(out.view().as_slice::<f32>().unwrap(), [1.0, 20.0, 300.0, 4.0, 50.0, 600.0]);
    assert_eq!(out.view().shape(), [2, 3]);

    // The same tensors as bare DLTensor pointers (type index 7).
    let (xv, wv) = (x.view(), w.view());
    let xs = abi_core::IntoArg::into_slot(xv).unwrap();
    let ws = abi_core::IntoArg::into_slot(wv).unwrap();
    // SAFETY: the slots point at DLTensors that `x` and `w` keep alive for the call.
    let (xs, ws) = unsafe { (AnyView::from_raw(xs), AnyView::from_raw(ws)) };
    let out = call("scale_rows", &[xs, ws]).unwrap().to::<Tensor>().unwrap();
    assert_eq!(out.view().as_slice::<f32>().unwrap()[5], 600.0);
}

#[test]
fn mismatches_name_the_function_the_parameter_and_both_types() {
    let x = Any::from(Tensor::from_vec(vec![1.0f32; 6], &[2, 3]).unwrap());
    let w64 = Any::from(Tensor::from_vec(vec![1.0f64; 3], &[3]).unwrap());
    let e = call("scale_rows", &[x.view(), w64.view()]).unwrap_err();
    assert_eq!(e.kind(), "TypeError");
    assert_eq!(
        e.message(),
        "scale_rows(x: Tensor[f32, 2], w: Tensor[f32, 1]) -> Tensor: argument `w` (#1) expected a tensor of dtype float32 \
         and rank 1, got dtype float64 and rank 1 (shape [3])"
    );
    let e = call("scale_rows", &[x.view(), x.view()]).unwrap_err();
    assert!(
        e.message()
            .contains("argument `w` (#1) expected a tensor of dtype float32 and rank 1, got dtype float32 and rank 2"),
        "{}",
        e.message()
    );
    let e = call("scale_rows", &[abi_core::IntoAny::into_any(3i64).unwrap().view(), x.view()]).unwrap_err();
    assert!(e.message().ends_with("argument `x` (#0) expected Tensor[f32, 2], got int"), "{}", e.message());
}

#[test]
fn device_tensors_take_any_device_and_give_no_host_access() {
    let mut data = [0f32; 4];
    let mut shape = [4i64];
    let dl = DLTensor {
        data: data.as_mut_ptr().cast(),
        device: Device::new(device_type::CUDA, 0),
        ndim: 1,
        dtype: DataType { code: code::FLOAT, bits: 32, lanes: 1 },
        shape: shape.as_mut_ptr(),
        strides: core::ptr::null_mut(),
        byte_offset: 0,
    };
    // SAFETY: `dl` and what it points to live until the end of the test.
    let slot = abi_core::IntoArg::into_slot(unsafe { TensorView::from_dl(&dl) }).unwrap();
    // SAFETY: as above.
    let view = unsafe { AnyView::from_raw(slot) };
    let out = call("launch", &[view]).unwrap().to::<(i64, i64)>().unwrap();
    assert_eq!(out, (device_type::CUDA as i64, data.as_ptr() as i64));
    let e = call("scale_rows", &[view, view]).unwrap_err();
    assert_eq!(e.kind(), "TypeError", "rank first: {}", e.message());
    let x = Any::from(Tensor::from_vec(vec![1.0f32; 2], &[2]).unwrap());
    assert_eq!(call("launch", &[x.view()]).unwrap().to::<(i64, i64)>().unwrap().0, device_type::CPU as i64);
}

#[test]
fn a_converting_parameter_takes_other_dtypes_and_says_so() {
    let exact = Any::from(Tensor::from_vec(vec![1.0f32, 2.0], &[2]).unwrap());
    assert_eq!(call("mean_as", &[exact.view()]).unwrap().to::<(f64, bool)>().unwrap(), (1.5, false));
    let wide = Any::from(Tensor::from_vec(vec![1.0f64, 2.5], &[2]).unwrap());
    assert_eq!(call("mean_as", &[wide.view()]).unwrap().to::<(f64, bool)>().unwrap(), (1.75, true));
    let ints = Any::from(Tensor::from_vec(vec![4i64, 6], &[2]).unwrap());
    assert_eq!(call("mean_as", &[ints.view()]).unwrap().to::<(f64, bool)>().unwrap(), (5.0, true));
    let complex = Any::from(Tensor::from_vec(vec![1.0f32, 2.0], &[1, 2]).unwrap());
    let e = call("mean_as", &[complex.view()]).unwrap_err();
    assert_eq!(
        e.message(),
        "mean_as(x: Tensor[f32, 1]) -> tuple[float, bool]: argument `x` (#0) expected a tensor of dtype float32 or one \
         numpy's same_kind casting takes to it, and rank 1, got dtype float32 and rank 2 (shape [1, 2])"
    );
    let meta = Metadata::parse(abi_core::find_export("mean_as").unwrap().metadata_json()).unwrap();
    let schema = meta.type_schema.unwrap();
    assert_eq!(schema.params[0].to_json(), r#"{"type":"ffi.Tensor","dtype":"float32","ndim":1,"cast":"same_kind"}"#);
}

/// The exports above, imported with typed tensors as parameters: the declared dtype and
/// rank are checked against the callee's when bound.
#[abi_core::import(ScaleRows)]
extern "C" {
    fn scale_rows(x: HostTensor<'_, f32, 2>, w: HostTensor<'_, f32, 1>) -> Tensor;
    fn launch(x: DeviceTensor<'_, f32, 1>) -> (i64, i64);
}

/// The same callee declared with another dtype.
#[abi_core::import(ScaleRowsF64)]
extern "C" {
    fn scale_rows(x: HostTensor<'_, f64, 2>, w: HostTensor<'_, f32, 1>) -> Tensor;
}

#[test]
fn typed_tensors_are_import_arguments_checked_when_bound() {
    let lib = ScaleRows::bind_linked().unwrap();
    let x = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]).unwrap();
    let w = Tensor::from_vec(vec![1.0f32, 10.0, 100.0], &[3]).unwrap();
    let (xt, wt) = (HostTensor::new(x.view()).unwrap(), HostTensor::new(w.view()).unwrap());
    let out = lib.scale_rows(xt, wt).unwrap();
    assert_eq!(out.view().as_slice::<f32>().unwrap(), [1.0, 20.0, 300.0, 4.0, 50.0, 600.0]);
    let device = DeviceTensor::new(w.view()).unwrap();
    assert_eq!(lib.launch(device).unwrap(), (device_type::CPU as i64, device.data_ptr() as i64));

    let err = ScaleRowsF64::bind_linked().expect_err("refused");
    assert!(
        err.message().contains("argument `x` (#0) is declared Tensor[f64, 2] but the callee takes Tensor[f32, 2]"),
        "{}",
        err.message()
    );
}
