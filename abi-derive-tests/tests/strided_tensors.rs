//! `StridedTensor` and `StridedTensorMut` parameters called through their C symbols: the
//! shim takes transposed, stepped and reversed tensors, refuses a written tensor that
//! repeats elements or shares a byte with another argument (naming the parameter), and
//! lets interleaved views of one array (`out = x[:, ::2]`, `x[:, 1::2]`) through.

use abi_core::{Any, AnyView, FromArg, HostTensorMut, Result, StridedTensor, StridedTensorMut, TensorView};
use abi_derive_tests::BareF32Tensor;

/// The sum of x's elements weighted by their row-major position, so that order shows.
#[abi_core::export_fn]
fn weighted_sum(x: StridedTensor<'_, f32, 2>) -> f64 {
    x.iter().enumerate().map(|(i, &v)| (i + 1) as f64 * f64::from(v)).sum()
}

/// out[i][j] = 2 * x[i][j], whatever either layout.
#[abi_core::export_fn]
fn double_into(x: StridedTensor<'_, f32, 2>, mut out: StridedTensorMut<'_, f32, 2>) -> Result<()> {
    if x.dims() != out.dims() {
        return Err(abi_core::Error::value_error("shapes differ"));
    }
    for (o, &v) in out.iter_mut().zip(x.iter()) {
        *o = 2.0 * v;
    }
    Ok(())
}

/// A compact in-place parameter, for its refusal of strides.
#[abi_core::export_fn]
fn fill_compact(mut out: HostTensorMut<'_, f32, 1>) {
    out.as_mut_slice().fill(1.0);
}

/// A strided read beside a view that may write cells.
#[abi_core::export_fn]
fn strided_and_view(x: StridedTensor<'_, f32, 1>, v: TensorView<'_>) -> i64 {
    (x.numel() + v.numel()) as i64
}

fn call(name: &str, args: &[AnyView<'_>]) -> Result<Any> {
    abi_core::find_export(name).unwrap().function().call_packed(args)
}

#[test]
fn transposed_and_reversed_arguments_are_read_in_logical_order() {
    let mut buf: Vec<f32> = (0..6).map(|i| i as f32).collect();
    let base = buf.as_mut_ptr();
    // x = buf.reshape(2, 3): 1*0 + 2*1 + 3*2 + 4*3 + 5*4 + 6*5.
    let x = BareF32Tensor::new(base, 0, &[2, 3], Some(&[3, 1]));
    assert_eq!(call("weighted_sum", &[x.view()]).unwrap().to::<f64>().unwrap(), 70.0);
    // x.T: 0, 3, 1, 4, 2, 5.
    let t = BareF32Tensor::new(base, 0, &[3, 2], Some(&[1, 3]));
    assert_eq!(call("weighted_sum", &[t.view()]).unwrap().to::<f64>().unwrap(), 0.0 + 6.0 + 3.0 + 16.0 + 10.0 + 30.0);
    // x[::-1, ::-1]: 5, 4, 3, 2, 1, 0.
    let r = BareF32Tensor::new(base, 5 * 4, &[2, 3], Some(&[-3, -1]));
    assert_eq!(call("weighted_sum", &[r.view()]).unwrap().to::<f64>().unwrap(), 5.0 + 8.0 + 9.0 + 8.0 + 5.0);
}

#[test]
fn a_strided_out_is_written_where_its_strides_say() {
    let mut x: Vec<f32> = (0..6).map(|i| i as f32).collect();
    let mut out = vec![0.0f32; 6];
    let xs = BareF32Tensor::new(x.as_mut_ptr(), 0, &[2, 3], Some(&[3, 1]));
    // out.T as a (2, 3) tensor: out[j][i] = 2 * x[i][j].
    let out_t = BareF32Tensor::new(out.as_mut_ptr(), 0, &[2, 3], Some(&[1, 2]));
    assert!(call("double_into", &[xs.view(), out_t.view()]).unwrap().view().is_none());
    assert_eq!(out, [0.0, 6.0, 2.0, 8.0, 4.0, 10.0]);
}

#[test]
fn interleaved_views_of_one_array_pass_the_overlap_check() {
    // buf = arange(12).reshape(3, 4): out = buf[:, ::2] from x = buf[:, 1::2].
    let mut buf: Vec<f32> = (0..12).map(|i| i as f32).collect();
    let base = buf.as_mut_ptr();
    let (x, out) =
        (BareF32Tensor::new(base, 4, &[3, 2], Some(&[4, 2])), BareF32Tensor::new(base, 0, &[3, 2], Some(&[4, 2])));
    call("double_into", &[x.view(), out.view()]).unwrap();
    drop((x, out));
    assert_eq!(buf, [2.0, 1.0, 6.0, 3.0, 10.0, 5.0, 14.0, 7.0, 18.0, 9.0, 22.0, 11.0]);
    // buf[:, 1:3] against buf[:, ::2] shares column 2: refused, and nothing is written.
    let before = buf.clone();
    let (x, out) =
        (BareF32Tensor::new(base, 4, &[3, 2], Some(&[4, 1])), BareF32Tensor::new(base, 0, &[3, 2], Some(&[4, 2])));
    let e = call("double_into", &[x.view(), out.view()]).unwrap_err();
    assert!(e.message().contains("argument `out` (#1) shares memory with argument `x` (#0)"), "{}", e.message());
    drop((x, out));
    assert_eq!(buf, before);
}

#[test]
fn a_written_tensor_that_repeats_elements_is_refused_naming_it() {
    let mut x = vec![1.0f32; 6];
    let mut row = vec![0.0f32; 3];
    let xs = BareF32Tensor::new(x.as_mut_ptr(), 0, &[2, 3], Some(&[3, 1]));
    // np.broadcast_to(row, (2, 3)) as the out: stride 0.
    let broadcast = BareF32Tensor::new(row.as_mut_ptr(), 0, &[2, 3], Some(&[0, 1]));
    let e = call("double_into", &[xs.view(), broadcast.view()]).unwrap_err();
    assert_eq!(e.kind(), "ValueError");
    assert_eq!(
        e.message(),
        "double_into(x: Tensor[f32, 2], out: Tensor[f32, 2]) -> None: argument `out` (#1) tensor written in place \
         repeats elements: shape [2, 3], strides [0, 1] has stride 0 along dimension 0 (a broadcast array); pass a \
         copy"
    );
    // ...and read, it is fine.
    assert_eq!(call("weighted_sum", &[broadcast.view()]).unwrap().to::<f64>().unwrap(), 0.0);
}

#[test]
fn contiguous_forms_name_the_strided_one() {
    let mut buf = vec![0.0f32; 8];
    let every_other = BareF32Tensor::new(buf.as_mut_ptr(), 0, &[4], Some(&[2]));
    let e = call("fill_compact", &[every_other.view()]).unwrap_err();
    assert!(
        e.message().ends_with(
            "argument `out` (#0) tensor is not contiguous (row-major compact): shape [4], strides [2] (a \
             StridedTensorMut parameter takes any strides)"
        ),
        "{}",
        e.message()
    );
}

#[test]
fn a_strided_read_is_refused_beside_a_view_that_shares_it() {
    let mut buf = vec![0.0f32; 8];
    let base = buf.as_mut_ptr();
    let (evens, odds) = (BareF32Tensor::new(base, 0, &[4], Some(&[2])), BareF32Tensor::new(base, 4, &[4], Some(&[2])));
    assert_eq!(call("strided_and_view", &[evens.view(), odds.view()]).unwrap().to::<i64>().unwrap(), 8);
    let e = call("strided_and_view", &[evens.view(), evens.view()]).unwrap_err();
    assert!(
        e.message().ends_with(
            "argument `x` (#0) shares memory with argument `v` (#1): a HostTensor or StridedTensor must not overlap an \
             argument that can write through cells (TensorView, Tensor, Any)"
        ),
        "{}",
        e.message()
    );
}

#[test]
fn a_strided_mutable_tensor_is_only_a_parameter() {
    let mut buf = vec![0.0f32; 2];
    let t = BareF32Tensor::new(buf.as_mut_ptr(), 0, &[2], Some(&[1]));
    let view = t.view();
    let e = StridedTensorMut::<f32, 1>::from_arg(&view).unwrap_err();
    assert!(e.to_string().contains("a StridedTensorMut is only an #[export_fn] parameter"), "{e}");
    assert_eq!(StridedTensor::<f32, 1>::from_arg(&view).unwrap().numel(), 2);
}
