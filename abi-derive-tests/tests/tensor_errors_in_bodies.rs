//! Errors abi's own tensor checks raise inside an export's body (`TensorView::as_slice`
//! with the wrong dtype, a strided view, a shared `Tensor` written) name the function and
//! the argument the tensor came from, as the shim's conversion errors do; errors the body
//! words itself, and checks of tensors that are no argument, stay as they were raised.

use abi_core::{Any, DLTensor, DataType, Device, Error, Result, Tensor, TensorView, TensorViewMut};
use abi_derive_tests::{call_export as call, call_raw};

/// Sums a float64 tensor.
#[abi_core::export_fn]
pub fn sum64(x: TensorView<'_>) -> Result<f64> {
    Ok(x.as_slice::<f64>()?.iter().sum())
}

/// Reads `a` or `b` (by `which`) as float64.
#[abi_core::export_fn]
pub fn pick(a: TensorView<'_>, b: TensorView<'_>, which: i64) -> Result<f64> {
    let t = if which == 0 { a } else { b };
    Ok(t.as_slice::<f64>()?[0])
}

/// Reads an owned tensor argument as float64.
#[abi_core::export_fn]
pub fn owned64(t: Tensor) -> Result<f64> {
    Ok(t.view().as_slice::<f64>()?.iter().sum())
}

/// Writes the argument through its own handle, which the caller shares.
#[abi_core::export_fn]
pub fn write_shared(mut t: Tensor) -> Result<()> {
    t.as_mut_slice::<f32>()?.fill(0.0);
    Ok(())
}

/// Fills a float64 tensor in place.
#[abi_core::export_fn]
pub fn fill64(mut x: TensorViewMut<'_>) -> Result<()> {
    x.as_mut_slice::<f64>()?.fill(1.0);
    Ok(())
}

/// Reads an optional tensor as float64 (0 without one).
#[abi_core::export_fn]
pub fn maybe64(x: Option<TensorView<'_>>) -> Result<f64> {
    Ok(match x {
        Some(x) => x.as_slice::<f64>()?.iter().sum(),
        None => 0.0,
    })
}

/// Words the same message itself: it stays as written.
#[abi_core::export_fn]
pub fn worded(x: TensorView<'_>) -> Result<f64> {
    let _ = x;
    Err(Error::type_error("expected a tensor of float64, got float32"))
}

/// Checks, drops abi's error, and raises its own.
#[abi_core::export_fn]
pub fn checks_then_raises(x: TensorView<'_>) -> Result<f64> {
    if x.as_slice::<f64>().is_err() {
        return Err(Error::type_error("wants doubles"));
    }
    Ok(0.0)
}

/// Propagates a check of a tensor it made itself, not an argument.
#[abi_core::export_fn]
pub fn made_inside(x: TensorView<'_>) -> Result<f64> {
    let _ = x;
    let own = Tensor::from_vec(vec![1.0f32; 2], &[2])?;
    Ok(own.view().as_slice::<f64>()?.iter().sum())
}

fn f32s(n: usize) -> Any {
    Any::from(Tensor::from_vec(vec![1.0f32; n], &[n as i64]).unwrap())
}

fn f64s(n: usize) -> Any {
    Any::from(Tensor::from_vec(vec![2.0f64; n], &[n as i64]).unwrap())
}

fn v<T: abi_core::IntoAny>(x: T) -> Any {
    Any::from_value(x).unwrap()
}

/// `(kind, message)` of the error the call raises.
fn raised(name: &str, args: &[Any]) -> (String, String) {
    let e = call(name, args).expect_err("the call must fail");
    (e.kind().to_owned(), e.message().to_owned())
}

#[test]
fn a_dtype_check_in_the_body_names_the_function_and_the_argument() {
    assert_eq!(call("sum64", &[f64s(3)]).unwrap().to::<f64>().unwrap(), 6.0);
    assert_eq!(
        raised("sum64", &[f32s(3)]),
        (
            "TypeError".into(),
            "sum64(x: Tensor) -> float: argument `x` (#0) expected a tensor of float64, got float32".into()
        )
    );
    let sig = "pick(a: Tensor, b: Tensor, which: int) -> float";
    assert_eq!(call("pick", &[f32s(1), f64s(1), v(1i64)]).unwrap().to::<f64>().unwrap(), 2.0);
    assert_eq!(
        raised("pick", &[f32s(1), f64s(1), v(0i64)]).1,
        format!("{sig}: argument `a` (#0) expected a tensor of float64, got float32")
    );
    assert_eq!(
        raised("pick", &[f64s(1), f32s(1), v(1i64)]).1,
        format!("{sig}: argument `b` (#1) expected a tensor of float64, got float32")
    );
    assert_eq!(
        raised("owned64", &[f32s(2)]).1,
        "owned64(t: Tensor) -> float: argument `t` (#0) expected a tensor of float64, got float32"
    );
    assert_eq!(
        raised("maybe64", &[f32s(2)]).1,
        "maybe64(x: Optional[Tensor]) -> float: argument `x` (#0) expected a tensor of float64, got float32"
    );
    assert_eq!(
        raised("fill64", &[f32s(2)]),
        (
            "TypeError".into(),
            "fill64(x: Tensor) -> None: argument `x` (#0) expected a tensor of float64, got float32".into()
        )
    );
}

#[test]
fn a_bare_dltensor_argument_is_found_too() {
    // A `DLTensor*` (type index 7), as C hosts pass them, strided: a ValueError naming it.
    let mut data = [0.0f64; 4];
    let (mut shape, mut strides) = ([2i64], [2i64]);
    let mut dl = DLTensor {
        data: data.as_mut_ptr().cast(),
        device: Device::CPU,
        ndim: 1,
        dtype: DataType::new(2, 64),
        shape: shape.as_mut_ptr(),
        strides: strides.as_mut_ptr(),
        byte_offset: 0,
    };
    let slot = abi_core::RawAny::from_ptr(abi_core::ffi::type_index::DL_TENSOR_PTR, (&raw mut dl).cast());
    let export = abi_core::find_export("sum64").unwrap();
    // SAFETY: one live `DLTensor*` slot, valid for the call.
    let e = unsafe { call_raw(export.safe_call, &[slot]) }.unwrap_err();
    assert_eq!(
        (e.kind(), e.message()),
        (
            "ValueError",
            "sum64(x: Tensor) -> float: argument `x` (#0) tensor is not contiguous (row-major compact): shape [2], strides [2]"
        )
    );
}

#[test]
fn writing_a_shared_tensor_argument_names_it() {
    let (kind, message) = raised("write_shared", &[f32s(2)]);
    assert_eq!(kind, "ValueError");
    assert_eq!(
        message,
        "write_shared(t: Tensor) -> None: argument `t` (#0) the tensor is shared: it can be written only while it has one holder"
    );
}

#[test]
fn errors_the_body_words_or_that_are_about_no_argument_stay_as_raised() {
    let plain = ("TypeError".to_owned(), "expected a tensor of float64, got float32".to_owned());
    assert_eq!(raised("worded", &[f32s(1)]), plain);
    assert_eq!(raised("checks_then_raises", &[f32s(1)]), ("TypeError".into(), "wants doubles".into()));
    assert_eq!(raised("made_inside", &[f64s(1)]), plain);
}

#[test]
fn outside_an_export_the_check_reads_as_before() {
    let t = Tensor::from_vec(vec![1.0f32; 2], &[2]).unwrap();
    let e = t.view().as_slice::<f64>().unwrap_err();
    assert_eq!((e.kind(), e.message()), ("TypeError", "expected a tensor of float64, got float32"));
}
