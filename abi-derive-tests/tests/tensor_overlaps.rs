//! `HostTensorMut` parameters and the shim's overlap check: the body gets a `&mut [T]` only
//! when no other tensor argument shares its memory, and a `HostTensor`'s slice only when no
//! argument that can write through cells shares it. Overlaps are found from byte ranges
//! (offsets, negative strides, zero-size tensors), then, where those meet, from the
//! elements' addresses (interleaved views share none), and the error names both parameters.

use abi_core::{
    Any, AnyView, DeviceTensor, DeviceTensorMut, FromArg, HostTensor, HostTensorMut, Result, Tensor, TensorView,
    TensorViewMut,
};
use abi_derive_tests::BareF32Tensor;

/// out[i][j] = x[i][j] * w[j], in place.
#[abi_core::export_fn]
fn scale_into(x: HostTensor<'_, f32, 2>, w: HostTensor<'_, f32, 1>, mut out: HostTensorMut<'_, f32, 2>) -> Result<()> {
    let [_, cols] = x.dims();
    for (o, (a, b)) in out.as_mut_slice().iter_mut().zip(x.as_slice().iter().zip(w.as_slice().iter().cycle())) {
        *o = a * b;
    }
    debug_assert_eq!(cols, w.numel());
    Ok(())
}

/// Doubles `x` in place.
#[abi_core::export_fn]
fn double(mut x: HostTensorMut<'_, f32, 1>) {
    x.as_mut_slice().iter_mut().for_each(|v| *v *= 2.0);
}

/// Copies `src` into `dst`.
#[abi_core::export_fn]
fn copy_into(src: HostTensor<'_, f32, 1>, mut dst: HostTensorMut<'_, f32, 1>) {
    let n = dst.numel();
    dst.as_mut_slice().copy_from_slice(&src.as_slice()[..n]);
}

/// Writes through a view's cells while it reads a typed slice.
#[abi_core::export_fn]
fn read_and_cells(x: HostTensor<'_, f32, 1>, v: TensorView<'_>) -> Result<f32> {
    // SAFETY: the shim refuses `x` sharing `v`'s memory, so no slice of it is in use.
    unsafe { v.as_cells::<f32>() }?.iter().for_each(|c| c.set(0.0));
    Ok(x.as_slice().iter().sum())
}

/// Doubles an array of either float dtype in place.
#[abi_core::export_fn]
fn double_any(mut x: TensorViewMut<'_>, other: TensorView<'_>) -> Result<i64> {
    match x.dtype().bits {
        32 => x.as_mut_slice::<f32>()?.iter_mut().for_each(|v| *v *= 2.0),
        _ => x.as_mut_slice::<f64>()?.iter_mut().for_each(|v| *v *= 2.0),
    }
    Ok(other.numel() as i64)
}

/// Copies `src`, when given, into `dst`.
#[abi_core::export_fn]
fn copy_maybe(src: Option<HostTensor<'_, f32, 1>>, mut dst: HostTensorMut<'_, f32, 1>) {
    if let Some(src) = src {
        let n = dst.numel();
        dst.as_mut_slice().copy_from_slice(&src.as_slice()[..n]);
    }
}

/// Doubles `out` in place when it is given; returns how many elements it wrote.
#[abi_core::export_fn]
fn maybe_double(src: HostTensor<'_, f32, 1>, out: Option<HostTensorMut<'_, f32, 1>>) -> i64 {
    match out {
        Some(mut out) => {
            for (o, s) in out.as_mut_slice().iter_mut().zip(src.as_slice()) {
                *o = 2.0 * s;
            }
            out.numel() as i64
        }
        None => -1,
    }
}

/// Reads two typed slices: sharing memory is fine.
#[abi_core::export_fn]
fn dot(x: HostTensor<'_, f32, 1>, y: HostTensor<'_, f32, 1>) -> f32 {
    x.as_slice().iter().zip(y.as_slice()).map(|(a, b)| a * b).sum()
}

/// A device kernel's pointer beside a view: neither makes a reference, so sharing is fine.
#[abi_core::export_fn]
fn pointer_and_view(x: DeviceTensor<'_, f32, 1>, v: TensorView<'_>) -> bool {
    core::ptr::eq(x.data_ptr().cast(), v.dl_tensor().data)
}

/// A mutable tensor beside an untyped value.
#[abi_core::export_fn]
fn fill_beside(mut out: HostTensorMut<'_, f32, 1>, other: Any) -> bool {
    out.as_mut_slice().fill(1.0);
    other.view().type_index() >= 0
}

/// A mutable tensor beside a device tensor.
#[abi_core::export_fn]
fn fill_beside_device(mut out: HostTensorMut<'_, f32, 1>, other: DeviceTensor<'_, f32, 1>) -> i64 {
    out.as_mut_slice().fill(1.0);
    other.numel() as i64
}

/// A device kernel's output beside its input: pointers only, but written, so they must not
/// share memory.
#[abi_core::export_fn]
fn device_copy(src: DeviceTensor<'_, f32, 1>, mut dst: DeviceTensorMut<'_, f32, 1>) -> i64 {
    let (from, to) = (src.data_ptr(), dst.data_ptr());
    if src.device().is_host_accessible() {
        // SAFETY: host memory of `numel` elements each (checked types and shapes); the shim
        // refused a `dst` sharing `src`'s memory.
        unsafe { core::ptr::copy_nonoverlapping(from, to, src.numel().min(dst.numel())) };
    }
    dst.numel() as i64
}

fn call(name: &str, args: &[AnyView<'_>]) -> Result<Any> {
    abi_core::find_export(name).unwrap().function().call_packed(args)
}

fn f32s(t: &Tensor) -> Vec<f32> {
    t.view().as_slice::<f32>().unwrap().to_vec()
}

#[test]
fn the_body_writes_through_its_mutable_slice() {
    let x = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]).unwrap();
    let w = Tensor::from_vec(vec![1.0f32, 10.0, 100.0], &[3]).unwrap();
    let out = Tensor::from_vec(vec![0.0f32; 6], &[2, 3]).unwrap();
    let (xa, wa, oa) = (Any::from(x), Any::from(w), Any::from(out.clone()));
    assert!(call("scale_into", &[xa.view(), wa.view(), oa.view()]).unwrap().view().is_none());
    assert_eq!(f32s(&out), [1.0, 20.0, 300.0, 4.0, 50.0, 600.0]);

    assert!(call("double", &[oa.view()]).is_err(), "rank 2 for a rank-1 parameter");
    let v = Tensor::from_vec(vec![1.5f32, -2.0], &[2]).unwrap();
    call("double", &[Any::from(v.clone()).view()]).unwrap();
    assert_eq!(f32s(&v), [3.0, -4.0]);
}

#[test]
fn a_mutable_tensor_sharing_memory_is_refused_naming_both_parameters() {
    let x = Any::from(Tensor::from_vec(vec![1.0f32; 6], &[2, 3]).unwrap());
    let w = Any::from(Tensor::from_vec(vec![1.0f32; 3], &[3]).unwrap());
    let e = call("scale_into", &[x.view(), w.view(), x.view()]).unwrap_err();
    assert_eq!(e.kind(), "ValueError");
    assert_eq!(
        e.message(),
        "scale_into(x: Tensor[f32, 2], w: Tensor[f32, 1], out: Tensor[f32, 2]) -> None: argument `out` (#2) shares \
         memory with argument `x` (#0): an argument written in place (HostTensorMut, StridedTensorMut, TensorViewMut) \
         must not overlap another tensor argument"
    );
    let before = x.view().to::<Tensor>().unwrap();
    assert_eq!(f32s(&before), [1.0; 6], "the body did not run");
}

#[test]
fn overlap_is_by_byte_range_offsets_and_strides_included() {
    let mut buf = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0];
    let base = buf.as_mut_ptr();
    // src = buf[0..4], dst = buf[4..8]: adjacent, not overlapping.
    let (src, dst) = (BareF32Tensor::new(base, 0, &[4], None), BareF32Tensor::new(base, 16, &[4], None));
    call("copy_into", &[src.view(), dst.view()]).unwrap();
    // dst = buf[3..7] overlaps src's last element.
    let dst = BareF32Tensor::new(base, 12, &[4], None);
    let e = call("copy_into", &[src.view(), dst.view()]).unwrap_err();
    assert!(
        e.message().ends_with(
            "argument `dst` (#1) shares memory with argument `src` (#0): an argument written in place (HostTensorMut, \
             StridedTensorMut, TensorViewMut) must not overlap another tensor argument"
        ),
        "{}",
        e.message()
    );
    // A negative stride: dst reads buf[7], buf[6], buf[5], buf[4] from byte offset 28.
    let reversed = BareF32Tensor::new(base, 28, &[4], Some(&[-1]));
    let e = call("copy_into", &[src.view(), reversed.view()]).unwrap_err();
    assert_eq!(e.kind(), "ValueError", "not contiguous, but checked for overlap first: {}", e.message());
    assert!(
        e.message().contains("not contiguous"),
        "a negative stride is refused by the layout check: {}",
        e.message()
    );
    // ...and it overlaps a src spanning buf[4..8].
    let src_high = BareF32Tensor::new(base, 16, &[4], None);
    let e = call("copy_into", &[src_high.view(), reversed.view()]).unwrap_err();
    assert!(e.message().contains("shares memory"), "{}", e.message());
    // Strided src over every other element, dst in a gap: the ranges meet, the elements
    // do not, so the overlap check passes and the layout check refuses src.
    let every_other = BareF32Tensor::new(base, 0, &[4], Some(&[2]));
    let e = call("copy_into", &[every_other.view(), BareF32Tensor::new(base, 4, &[1], None).view()]).unwrap_err();
    assert!(e.message().contains("not contiguous"), "elements, not ranges, are compared: {}", e.message());
    // dst on an element of src shares it.
    let e = call("copy_into", &[every_other.view(), BareF32Tensor::new(base, 8, &[1], None).view()]).unwrap_err();
    assert!(e.message().contains("shares memory"), "{}", e.message());
    assert_eq!(buf[4..], [1.0, 2.0, 3.0, 4.0], "the first copy ran");
}

#[test]
fn zero_size_tensors_share_nothing() {
    let mut buf = [1.0f32; 4];
    let (src, empty) =
        (BareF32Tensor::new(buf.as_mut_ptr(), 0, &[4], None), BareF32Tensor::new(buf.as_mut_ptr(), 0, &[0], None));
    call("copy_into", &[src.view(), empty.view()]).unwrap();
    assert_eq!(buf, [1.0; 4]);
}

#[test]
fn a_shared_slice_is_refused_beside_an_argument_that_writes_cells() {
    let x = Any::from(Tensor::from_vec(vec![1.0f32, 2.0], &[2]).unwrap());
    let e = call("read_and_cells", &[x.view(), x.view()]).unwrap_err();
    assert_eq!(
        e.message(),
        "read_and_cells(x: Tensor[f32, 1], v: Tensor) -> float: argument `x` (#0) shares memory with argument `v` \
         (#1): a HostTensor or StridedTensor must not overlap an argument that can write through cells (TensorView, \
         Tensor, Any)"
    );
    let other = Any::from(Tensor::from_vec(vec![5.0f32], &[1]).unwrap());
    assert_eq!(call("read_and_cells", &[x.view(), other.view()]).unwrap().to::<f64>().unwrap(), 3.0);
    // Readers may share.
    assert_eq!(call("dot", &[x.view(), x.view()]).unwrap().to::<f64>().unwrap(), 5.0);
    assert!(call("pointer_and_view", &[x.view(), x.view()]).unwrap().to::<bool>().unwrap());
}

#[test]
fn a_mutable_tensor_is_refused_beside_any_tensor_argument_sharing_it() {
    let x = Any::from(Tensor::from_vec(vec![0.0f32; 3], &[3]).unwrap());
    for name in ["fill_beside", "fill_beside_device"] {
        let e = call(name, &[x.view(), x.view()]).unwrap_err();
        assert!(
            e.message().contains("argument `out` (#0) shares memory with argument `other` (#1)"),
            "{}",
            e.message()
        );
    }
    let y = Any::from(Tensor::from_vec(vec![0.0f32; 3], &[3]).unwrap());
    assert!(call("fill_beside", &[x.view(), y.view()]).unwrap().to::<bool>().unwrap());
    assert!(call("fill_beside", &[x.view(), abi_core::IntoAny::into_any(7i64).unwrap().view()])
        .unwrap()
        .to::<bool>()
        .unwrap());
    assert_eq!(call("fill_beside_device", &[x.view(), y.view()]).unwrap().to::<i64>().unwrap(), 3);
    assert_eq!(f32s(&x.view().to::<Tensor>().unwrap()), [1.0; 3]);
}

#[test]
fn an_untyped_mutable_view_writes_in_place_and_is_refused_when_shared() {
    let x = Any::from(Tensor::from_vec(vec![1.0f64, 2.5], &[2]).unwrap());
    let y = Any::from(Tensor::from_vec(vec![1.0f32], &[1]).unwrap());
    assert_eq!(call("double_any", &[x.view(), y.view()]).unwrap().to::<i64>().unwrap(), 1);
    assert_eq!(f64s(&x), [2.0, 5.0]);
    let e = call("double_any", &[x.view(), x.view()]).unwrap_err();
    assert!(e.message().contains("argument `x` (#0) shares memory with argument `other` (#1)"), "{}", e.message());
    assert_eq!(f64s(&x), [2.0, 5.0], "untouched");
    let view = x.view();
    let e = TensorViewMut::from_arg(&view).unwrap_err();
    assert!(e.to_string().contains("a TensorViewMut is only an #[export_fn] parameter"), "{e}");
}

fn f64s(t: &Any) -> Vec<f64> {
    t.view().to::<Tensor>().unwrap().view().as_slice::<f64>().unwrap().to_vec()
}

#[test]
fn a_mutable_tensor_is_only_a_parameter() {
    let x = Any::from(Tensor::from_vec(vec![0.0f32; 3], &[3]).unwrap());
    let view = x.view();
    let e = HostTensorMut::<f32, 1>::from_arg(&view).unwrap_err();
    assert!(e.to_string().contains("only an #[export_fn] parameter"), "{e}");
}

#[test]
fn mutable_tensor_mismatches_name_the_parameter() {
    let x = Any::from(Tensor::from_vec(vec![0.0f64; 3], &[3]).unwrap());
    let e = call("double", &[x.view()]).unwrap_err();
    assert_eq!(e.kind(), "TypeError");
    assert!(
        e.message().ends_with(
            "argument `x` (#0) expected a tensor of dtype float32 and rank 1, got dtype float64 and rank 1 (shape [3])"
        ),
        "{}",
        e.message()
    );
}

#[test]
fn a_device_output_sharing_an_input_is_refused() {
    let src = Any::from(Tensor::from_vec(vec![1.0f32, 2.0], &[2]).unwrap());
    let dst = Tensor::from_vec(vec![0.0f32; 2], &[2]).unwrap();
    call("device_copy", &[src.view(), Any::from(dst.clone()).view()]).unwrap();
    assert_eq!(f32s(&dst), [1.0, 2.0]);
    let e = call("device_copy", &[src.view(), src.view()]).unwrap_err();
    assert_eq!(e.kind(), "ValueError");
    assert!(e.message().contains("argument `dst` (#1) shares memory with argument `src` (#0)"), "{}", e.message());
    let e = DeviceTensorMut::<f32, 1>::from_arg(&src.view()).unwrap_err();
    assert!(e.to_string().contains("only an #[export_fn] parameter"), "{e}");
}

#[test]
fn an_optional_slice_sharing_memory_with_a_mutable_one_is_refused() {
    let (src, dst) = (
        Any::from(Tensor::from_vec(vec![1.0f32; 4], &[4]).unwrap()),
        Any::from(Tensor::from_vec(vec![0.0f32; 4], &[4]).unwrap()),
    );
    call("copy_maybe", &[src.view(), dst.view()]).unwrap();
    call("copy_maybe", &[Any::NONE.view(), dst.view()]).unwrap();
    let e = call("copy_maybe", &[dst.view(), dst.view()]).unwrap_err();
    assert!(e.message().contains("argument `dst` (#1) shares memory with argument `src` (#0)"), "{}", e.message());
}

#[test]
fn an_optional_mutable_tensor_is_written_when_given_and_checked_for_overlap() {
    let (src, out) = (
        Any::from(Tensor::from_vec(vec![1.0f32, 2.0, 3.0], &[3]).unwrap()),
        Tensor::from_vec(vec![0.0f32; 3], &[3]).unwrap(),
    );
    let written = call("maybe_double", &[src.view(), Any::from(out.clone()).view()]).unwrap();
    assert_eq!(written.view().to::<i64>().unwrap(), 3);
    assert_eq!(f32s(&out), [2.0, 4.0, 6.0]);
    let none = call("maybe_double", &[src.view(), Any::NONE.view()]).unwrap();
    assert_eq!(none.view().to::<i64>().unwrap(), -1);
    let e = call("maybe_double", &[src.view(), src.view()]).unwrap_err();
    assert!(e.message().contains("argument `out` (#1) shares memory with argument `src` (#0)"), "{}", e.message());
}
