//! `#[export_fn]` through the real `__tvm_ffi_*` symbols, as a host calls them: every
//! supported type round-trips, arity 0..=16 keeps argument order, and every mistake
//! (count, type, range, null pointers, a returned error, a panic) becomes a raised error.

use std::collections::{BTreeMap, HashMap};

use abi_core::{Any, AnyView, DataType, Device, Error, Function, RawAny, Result, Shape, Tensor, TensorView};
use abi_core::{FunctionRef, TypedFunction};
use abi_derive_tests::{call_export as call, call_raw};
use half::{bf16, f16};

fn v<T: abi_core::IntoAny>(x: T) -> Any {
    Any::from_value(x).unwrap()
}

fn err(name: &str, args: &[Any]) -> Error {
    call(name, args).expect_err("the call must fail")
}

/// The String an export returns for `args`.
fn text_of(name: &str, args: &[Any]) -> String {
    call(name, args).unwrap().to::<String>().unwrap()
}

/// Asserts that `name`'s shim tries its fast path and falls back to the shared retry.
fn assert_fast_then_retry(name: &str) {
    let desc = abi_core::find_export(name).unwrap().desc();
    assert!(desc.fast_path() && desc.retries_exact(), "{name}");
}

// ---- arity 0..=16: the result weights each argument by its position -------------------

macro_rules! weighted {
    ($($name:ident($($arg:ident),*);)*) => {$(
        #[abi_core::export_fn]
        #[allow(clippy::too_many_arguments)]
        pub fn $name($($arg: i64),*) -> i64 {
            let args: &[i64] = &[$($arg),*];
            args.iter().enumerate().map(|(i, a)| (i as i64 + 1) * a).sum()
        }
    )*};
}

weighted! {
    arity0();
    arity1(a0);
    arity2(a0, a1);
    arity3(a0, a1, a2);
    arity4(a0, a1, a2, a3);
    arity5(a0, a1, a2, a3, a4);
    arity6(a0, a1, a2, a3, a4, a5);
    arity7(a0, a1, a2, a3, a4, a5, a6);
    arity8(a0, a1, a2, a3, a4, a5, a6, a7);
    arity9(a0, a1, a2, a3, a4, a5, a6, a7, a8);
    arity10(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9);
    arity11(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10);
    arity12(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11);
    arity13(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12);
    arity14(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13);
    arity15(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14);
    arity16(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15);
}

#[test]
fn every_arity_from_0_to_16_keeps_argument_order() {
    for n in 0..=16i64 {
        let name = format!("arity{n}");
        let args: Vec<Any> = (1..=n).map(|x| v(x * 10)).collect();
        let expected: i64 = (1..=n).map(|i| i * i * 10).sum();
        assert_eq!(call(&name, &args).unwrap().to::<i64>().unwrap(), expected, "{name}");

        let sig_params: Vec<String> = (0..n).map(|i| format!("a{i}: int")).collect();
        let sig = format!("{name}({}) -> int", sig_params.join(", "));
        let mut too_many = args.clone();
        too_many.push(v(0));
        let e = err(&name, &too_many);
        assert_eq!(e.kind(), "TypeError");
        let plural = if n == 1 { "argument" } else { "arguments" };
        assert_eq!(e.message(), format!("{sig} takes {n} {plural}, got {}", n + 1));
        if n > 0 {
            let mut wrong = args.clone();
            wrong[(n - 1) as usize] = v("text");
            let e = err(&name, &wrong);
            assert_eq!(e.message(), format!("{sig}: argument `a{}` (#{}) expected int, got str", n - 1, n - 1));
            let e = err(&name, &args[..(n - 1) as usize]);
            // Too few names the first argument left out.
            assert_eq!(
                e.message(),
                format!("{sig} takes {n} {plural}, got {}: missing `a{}` (#{})", n - 1, n - 1, n - 1)
            );
        }
    }
}

// ---- every supported type round-trips through a shim ----------------------------------

macro_rules! echo {
    ($($name:ident: $t:ty),* $(,)?) => {$(
        #[abi_core::export_fn]
        pub fn $name(x: $t) -> $t {
            x
        }
    )*};
}

echo! {
    echo_bool: bool, echo_i8: i8, echo_i16: i16, echo_i32: i32, echo_i64: i64, echo_isize: isize,
    echo_u8: u8, echo_u16: u16, echo_u32: u32, echo_u64: u64, echo_usize: usize,
    echo_f32: f32, echo_f64: f64, echo_f16: f16, echo_bf16: bf16,
    echo_string: String, echo_bytes: Vec<u8>, echo_opt: Option<String>, echo_nested: Vec<Option<Vec<i32>>>,
    echo_tuple: (i64, String, bool), echo_strings: Vec<String>, echo_hash: HashMap<String, f64>,
    echo_btree: BTreeMap<i64, String>, echo_dtype: DataType, echo_device: Device,
}

fn round_trip<T>(name: &str, value: T)
where
    T: abi_core::IntoAny + abi_core::FromAny + Clone + PartialEq + core::fmt::Debug,
{
    let out = call(name, &[v(value.clone())]).unwrap_or_else(|e| panic!("{name}({value:?}): {e}"));
    assert_eq!(out.to::<T>().unwrap(), value, "{name}");
}

#[test]
fn scalars_round_trip_at_their_bounds() {
    for b in [true, false] {
        round_trip("echo_bool", b);
    }
    for x in [i8::MIN, -1, 0, i8::MAX] {
        round_trip("echo_i8", x);
    }
    for x in [i16::MIN, i16::MAX] {
        round_trip("echo_i16", x);
    }
    for x in [i32::MIN, i32::MAX] {
        round_trip("echo_i32", x);
    }
    for x in [i64::MIN, i64::MAX] {
        round_trip("echo_i64", x);
    }
    round_trip("echo_isize", isize::MIN);
    for x in [0, u8::MAX] {
        round_trip("echo_u8", x);
    }
    round_trip("echo_u16", u16::MAX);
    round_trip("echo_u32", u32::MAX);
    round_trip("echo_u64", i64::MAX as u64);
    round_trip("echo_usize", 12usize);
    for x in [f32::MIN_POSITIVE, -0.0, f32::INFINITY, f32::MAX] {
        round_trip("echo_f32", x);
    }
    for x in [f64::MIN, -0.0, f64::NEG_INFINITY, 1e-300] {
        round_trip("echo_f64", x);
    }
    let nan = call("echo_f64", &[v(f64::NAN)]).unwrap().to::<f64>().unwrap();
    assert!(nan.is_nan());
    for x in [f16::MAX, f16::from_f32(-1.5), f16::INFINITY] {
        round_trip("echo_f16", x);
    }
    for x in [bf16::MAX, bf16::from_f32(3.0)] {
        round_trip("echo_bf16", x);
    }
}

#[test]
fn integers_out_of_range_name_the_value_and_the_type() {
    let cases: [(&str, i64, &str); 6] = [
        ("echo_i8", 128, "i8"),
        ("echo_i8", -129, "i8"),
        ("echo_u8", -1, "u8"),
        ("echo_u16", 65536, "u16"),
        ("echo_i32", i64::from(i32::MAX) + 1, "i32"),
        ("echo_u32", -5, "u32"),
    ];
    for (name, value, ty) in cases {
        let e = err(name, &[v(value)]);
        assert_eq!(e.kind(), "ValueError", "{name}({value})");
        assert!(e.message().contains(&value.to_string()) && e.message().contains(ty), "{name}: {}", e.message());
        assert!(e.message().starts_with(&format!("{name}(x: int) -> int: argument `x` (#0)")), "{}", e.message());
    }
}

#[test]
fn integers_beyond_i64_cross_as_big_ints() {
    // A BigInt is not an exact Int: the shared retry converts it, and the fast path reads it.
    assert_fast_then_retry("echo_u64");
    for x in [1u64 << 63, u64::MAX] {
        assert_eq!(v(x).type_index(), abi_core::ffi::type_index::BIG_INT);
        round_trip("echo_u64", x);
    }
    round_trip("echo_usize", usize::MAX);
    let e = err("echo_i64", &[v(1u64 << 63)]);
    assert_eq!(e.kind(), "ValueError");
    assert_eq!(e.message(), "echo_i64(x: int) -> int: argument `x` (#0) 9223372036854775808 is out of range for i64");
    assert_eq!(call("echo_f64", &[v(u64::MAX)]).unwrap().to::<f64>().unwrap(), u64::MAX as f64);
}

#[test]
fn strings_bytes_and_containers_round_trip() {
    for s in ["", "1234567", "12345678", "日本語", "a\0b"] {
        round_trip("echo_string", s.to_owned());
    }
    round_trip("echo_string", "x".repeat(100_000));
    for b in [vec![], vec![0u8; 7], vec![0u8, 255, 0, 1, 2, 3, 4, 5, 6]] {
        round_trip("echo_bytes", b);
    }
    round_trip("echo_opt", None::<String>);
    round_trip("echo_opt", Some("present".to_owned()));
    round_trip("echo_nested", vec![Some(vec![1, 2]), None, Some(vec![])]);
    round_trip("echo_tuple", (-3i64, "three".to_owned(), true));
    round_trip("echo_strings", vec!["a".to_owned(), "a much longer string".to_owned()]);
    round_trip("echo_hash", HashMap::from([("half".to_owned(), 0.5), ("two".to_owned(), 2.0)]));
    round_trip("echo_btree", BTreeMap::from([(2, "two".to_owned()), (1, "one".to_owned())]));
    round_trip("echo_dtype", DataType::new(2, 32));
    round_trip("echo_device", Device::CPU);
}

/// Borrowed forms: zero-copy views over the caller's argument.
#[abi_core::export_fn]
pub fn borrowed(s: &str, b: &[u8], t: TensorView<'_>, any: AnyView<'_>) -> Result<String> {
    Ok(format!("{s}|{}|{:?}|{}", b.len(), t.as_slice::<f32>()?, any.type_index()))
}

#[abi_core::export_fn]
pub fn owned_objects(t: Tensor, shape: Shape, any: Any) -> Result<(Vec<i64>, Vec<i64>, i64)> {
    Ok((t.view().shape().to_vec(), shape.dims().to_vec(), any.to::<i64>()?))
}

#[abi_core::export_fn]
pub fn apply_twice(f: TypedFunction<fn(i64) -> i64>, g: FunctionRef<'_>, x: i64) -> Result<i64> {
    let once = f.call(x)?;
    g.call_packed(&[v(once).view()])?.to::<i64>()
}

#[abi_core::export_fn]
pub fn new_tensor(n: i64) -> Result<Tensor> {
    Tensor::from_vec((0..n).map(|i| i as f64).collect::<Vec<f64>>(), &[n])
}

#[abi_core::export_fn]
pub fn nothing(_x: i64) {}

#[test]
fn borrowed_views_objects_functions_and_unit() {
    let tensor = Tensor::from_vec(vec![1.5f32, 2.5], &[2]).unwrap();
    let out = call("borrowed", &[v("hé"), v(vec![1u8, 2, 3]), v(tensor.clone()), v(7i64)]).unwrap();
    assert_eq!(out.to::<String>().unwrap(), "hé|3|[1.5, 2.5]|1");

    let out = call("owned_objects", &[v(tensor), v(Shape::new(&[4, 5])), v(9i64)]).unwrap();
    assert_eq!(out.to::<(Vec<i64>, Vec<i64>, i64)>().unwrap(), (vec![2], vec![4, 5], 9));

    let double = Function::from_closure(|args: &[AnyView<'_>]| Ok(v(args[0].to::<i64>()? * 2)));
    let inc = Function::from_closure(|args: &[AnyView<'_>]| Ok(v(args[0].to::<i64>()? + 1)));
    let out = call("apply_twice", &[v(double), v(inc), v(20i64)]).unwrap();
    assert_eq!(out.to::<i64>().unwrap(), 41);

    let t = call("new_tensor", &[v(3i64)]).unwrap().to::<Tensor>().unwrap();
    assert_eq!(t.view().as_slice::<f64>().unwrap(), [0.0, 1.0, 2.0]);

    let none = call("nothing", &[v(1i64)]).unwrap();
    assert_eq!(none.type_index(), abi_core::ffi::type_index::NONE);
}

// ---- errors and panics ----------------------------------------------------------------

/// Divides; a zero divisor is a ValueError.
#[abi_core::export_fn]
pub fn divide(a: i64, b: i64) -> Result<i64> {
    if b == 0 {
        return Err(Error::value_error(format!("cannot divide {a} by zero")));
    }
    Ok(a / b)
}

#[abi_core::export_fn]
pub fn io_failure(path: String) -> std::io::Result<String> {
    Err(std::io::Error::new(std::io::ErrorKind::NotFound, format!("{path}: no such file")))
}

#[abi_core::export_fn]
pub fn explode(message: &str) -> i64 {
    panic!("{message}")
}

#[abi_core::export_fn]
pub fn callback_error(f: FunctionRef<'_>) -> Result<Any> {
    f.call_packed(&[])
}

#[test]
fn returned_errors_keep_their_kind_and_message() {
    let e = err("divide", &[v(1i64), v(0i64)]);
    assert_eq!((e.kind(), e.message()), ("ValueError", "cannot divide 1 by zero"));
    assert_eq!(call("divide", &[v(7i64), v(2i64)]).unwrap().to::<i64>().unwrap(), 3);

    let e = err("io_failure", &[v("/missing")]);
    assert!(e.message().contains("/missing: no such file"), "{}", e.message());

    let failing = Function::from_closure(|_: &[AnyView<'_>]| Err(Error::new("CustomKind", "from the callback")));
    let e = err("callback_error", &[v(failing)]);
    assert_eq!((e.kind(), e.message()), ("CustomKind", "from the callback"));
}

#[test]
fn a_panic_becomes_a_runtime_error_and_the_shim_stays_usable() {
    let e = err("explode", &[v("boom")]);
    assert_eq!(e.kind(), "RuntimeError");
    assert!(e.message().contains("explode") && e.message().contains("boom"), "{}", e.message());
    assert_eq!(call("divide", &[v(9i64), v(3i64)]).unwrap().to::<i64>().unwrap(), 3);
}

#[test]
fn hostile_slots_and_counts_raise_instead_of_crashing() {
    let shim = abi_core::find_export("divide").unwrap().safe_call;
    let mut out = RawAny::NONE;
    // SAFETY: deliberately bad calls the shim must reject before touching `args`.
    let rc = unsafe { shim(core::ptr::null_mut(), core::ptr::null(), 2, &mut out) };
    assert_ne!(rc, 0);
    let e = abi_core::host::take_raised().expect("null args with a count raises");
    assert!(!e.message().is_empty());
    // SAFETY: as above, a negative count.
    let rc = unsafe { shim(core::ptr::null_mut(), core::ptr::null(), -1, &mut out) };
    assert_ne!(rc, 0);
    assert!(abi_core::host::take_raised().is_some());
    let args = [*v(1i64).as_raw(), *v(1i64).as_raw()];
    // SAFETY: valid args but no result slot.
    let rc = unsafe { shim(core::ptr::null_mut(), args.as_ptr(), 2, core::ptr::null_mut()) };
    assert_ne!(rc, 0);
    assert!(abi_core::host::take_raised().is_some());
    // Zero arguments with a null pointer is a well-formed call of a 0-ary function.
    let zero = abi_core::find_export("arity0").unwrap().safe_call;
    // SAFETY: no slots are read for a count of zero.
    let out = unsafe { call_raw(zero, &[]) }.unwrap();
    assert_eq!(out.to::<i64>().unwrap(), 0);
}

#[test]
fn metadata_of_every_export_is_linked_and_parses_as_json_text() {
    let names: Vec<&str> = abi_core::exports().iter().map(|e| e.name()).collect();
    for n in ["arity0", "arity16", "echo_bf16", "borrowed", "divide", "explode"] {
        assert!(names.contains(&n), "{n} not in {names:?}");
    }
    let divide = abi_core::find_export("divide").unwrap();
    assert!(divide.metadata_json().contains(r#""arg_names":["a","b"]"#), "{}", divide.metadata_json());
}

/// Narrow floats and options of fast types take the fast path (issue 29).
#[abi_core::export_fn]
pub fn mix_narrow(a: i32, b: bool, c: f32, d: Option<i64>, e: f16, f: Option<bf16>) -> String {
    format!("{a}|{b}|{c:?}|{d:?}|{e}|{f:?}")
}

#[test]
fn narrow_floats_and_options_convert_alike_on_both_paths() {
    let mix = |args: [Any; 6]| call("mix_narrow", &args);
    let text = |args: [Any; 6]| text_of("mix_narrow", &args);
    assert_fast_then_retry("mix_narrow");
    // Exact types: the fast path.
    let exact = [v(-3i64), v(true), v(1.5f64), v(7i64), v(2.5f64), v(Option::<f64>::None)];
    assert_eq!(text(exact), "-3|true|1.5|Some(7)|2.5|None");
    let nan = text([v(0i64), v(false), v(f64::NAN), v(()), v(f64::INFINITY), v(3.0f64)]);
    assert_eq!(nan, "0|false|NaN|None|inf|Some(3.0)");
    // Ints and bools where floats are wanted, a bool where an int is: the shared retry
    // converts them and the call gives what the full conversions give.
    let coerced = [v(true), v(false), v(2i64), v(true), v(-1i64), v(4i64)];
    assert_eq!(text(coerced), "1|false|2.0|Some(1)|-1|Some(4.0)");
    // A finite float beyond f32 is an error on the fast path's refusal too, naming it.
    let big = mix([v(0i64), v(false), v(1e300f64), v(()), v(0.0f64), v(())]).unwrap_err();
    assert!(big.message().ends_with("argument `c` (#2) 1e300 is out of range for f32"), "{}", big.message());
    let big16 = mix([v(0i64), v(false), v(0.0f64), v(()), v(1e6f64), v(())]).unwrap_err();
    assert!(big16.message().ends_with("argument `e` (#4) 1000000.0 is out of range for f16"), "{}", big16.message());
    // A wrong type names its parameter, whichever path saw it first.
    let wrong = mix([v(0i64), v(false), v(0.0f64), v("x"), v(0.0f64), v(())]).unwrap_err();
    assert!(wrong.message().ends_with("argument `d` (#3) expected int, got str"), "{}", wrong.message());
}

/// `&str` and `Vec<T>` take the fast path (their whole conversion without its errors):
/// errors and coercions of the other arguments go through the shared retry (issue 29).
#[abi_core::export_fn]
pub fn str_vec_int(s: &str, v: Vec<i64>, k: i64) -> String {
    format!("{s}|{v:?}|{k}")
}

#[test]
fn strings_and_vecs_convert_alike_on_both_paths() {
    let call3 = |args: [Any; 3]| call("str_vec_int", &args);
    let text = |args: [Any; 3]| text_of("str_vec_int", &args);
    assert_fast_then_retry("str_vec_int");
    let list = |items: Vec<Any>| Any::from(abi_core::Array::new(items));
    // Small ASCII, small non-ASCII and object strings; an Array of ints.
    let ints = || list(vec![v(1i64), v(2i64)]);
    assert_eq!(text([v("ab"), ints(), v(3i64)]), "ab|[1, 2]|3");
    assert_eq!(text([v("é"), ints(), v(3i64)]), "é|[1, 2]|3");
    let long = "a string far longer than the seven inline bytes";
    assert_eq!(text([v(long), list(vec![]), v(0i64)]), format!("{long}|[]|0"));
    // Elements the full conversion coerces (a bool for an int) are taken as it takes them.
    assert_eq!(text([v("x"), list(vec![v(true), v(5i64)]), v(1i64)]), "x|[1, 5]|1");
    // A bool for `k`: the retry converts it; `s` and `v` are converted again, alike.
    assert_eq!(text([v(long), ints(), v(true)]), format!("{long}|[1, 2]|1"));
    // Errors name the parameter, and an element by its index, as the full pass does.
    let wrong = call3([v(7i64), ints(), v(0i64)]).unwrap_err();
    assert!(wrong.message().ends_with("argument `s` (#0) expected str, got int"), "{}", wrong.message());
    let element = call3([v("x"), list(vec![v(1i64), v("y")]), v(0i64)]).unwrap_err();
    assert!(element.message().contains("argument `v` (#1)"), "{}", element.message());
    assert!(element.message().contains("expected int, got str"), "{}", element.message());
    let not_list = call3([v("x"), v(1i64), v(0i64)]).unwrap_err();
    assert!(not_list.message().ends_with("argument `v` (#1) expected list[int], got int"), "{}", not_list.message());
    // Invalid UTF-8 in a small string: refused with the full pass's message.
    let mut bad = *v(0i64).as_raw();
    bad.type_index = abi_core::ffi::type_index::SMALL_STR;
    bad.small_len = 2;
    bad.value = abi_core::RawAny::from_i64(0, i64::from_le_bytes([0xff, 0xfe, 0, 0, 0, 0, 0, 0])).value;
    let (vec_arg, k_arg) = (ints(), v(0i64));
    let shim = abi_core::find_export("str_vec_int").unwrap().safe_call;
    // SAFETY: three valid slots: plain data, and an Array borrowed from `vec_arg`.
    let utf8 = unsafe { call_raw(shim, &[bad, *vec_arg.as_raw(), *k_arg.as_raw()]) }.unwrap_err();
    assert!(utf8.message().ends_with("argument `s` (#0) invalid UTF-8 in string"), "{}", utf8.message());
}

#[test]
fn results_a_fast_path_takes_from_an_object_release_it() {
    use abi_core::FromAny;
    let array = Any::from(abi_core::Array::new(vec![v(1i64), v(2i64)]));
    let header = array.as_raw().ptr().cast::<abi_core::ffi::ObjectHeader>();
    // SAFETY: `array` keeps the object alive while it is read.
    let count = || unsafe { abi_core::object::strong_count(header) };
    assert_eq!(count(), 1);
    // Each result owns a reference, which converting it must give back.
    assert_eq!(Vec::<i64>::from_result(array.clone()).unwrap(), [1, 2]);
    assert_eq!(count(), 1, "Vec<i64>");
    assert_eq!(Option::<Vec<i64>>::from_result(array.clone()).unwrap(), Some(vec![1, 2]));
    assert_eq!(count(), 1, "Option<Vec<i64>>");
    assert_eq!(Option::<i64>::from_result(v(())).unwrap(), None);
}

#[test]
fn fallback_conversions_leave_the_fast_path_for_the_full_one() {
    // Exact types take the shim's fast path; these need the full path's conversions.
    assert_eq!(call("arity2", &[v(true), v(2i64)]).unwrap().to::<i64>().unwrap(), 5);
    assert_eq!(call("echo_f64", &[v(3i64)]).unwrap().to::<f64>().unwrap(), 3.0);
    assert!(!call("echo_bool", &[v(0i64)]).unwrap().to::<bool>().unwrap());
    // A null `result` with exact types must not take the fast path.
    let shim = abi_core::find_export("arity2").unwrap().safe_call;
    let args = [*v(1i64).as_raw(), *v(2i64).as_raw()];
    // SAFETY: valid slots, deliberately no result slot.
    let rc = unsafe { shim(core::ptr::null_mut(), args.as_ptr(), 2, core::ptr::null_mut()) };
    assert_ne!(rc, 0);
    assert!(abi_core::host::take_raised().unwrap().message().contains("result"));
}

/// Numbers only, yet released: `gil = "release"` decides.
#[abi_core::export_fn(gil = "release")]
fn gil_released_count(n: i64) -> i64 {
    n
}

/// A tensor, yet kept: `gil = "keep"` decides.
#[abi_core::export_fn(gil = "keep")]
fn gil_kept_sum(x: abi_core::HostTensor<'_, f64, 1>) -> f64 {
    x.as_slice().iter().sum()
}

#[test]
fn the_gil_choice_of_each_export_is_its_metadatas() {
    let mut seen = (0, 0);
    for e in abi_core::exports() {
        let meta = abi_core::Metadata::parse(e.metadata_json()).unwrap();
        assert_eq!(e.releases_gil(), meta.releases_gil(), "{}", e.name());
        if e.releases_gil() {
            seen.0 += 1;
        } else {
            seen.1 += 1;
        }
    }
    assert!(seen.0 > 2 && seen.1 > 2, "both choices occur: {seen:?}");
    let find = |name| abi_core::find_export(name).unwrap();
    assert!(find("gil_released_count").releases_gil());
    assert!(!find("gil_kept_sum").releases_gil());
    assert!(find("gil_released_count").metadata_json().contains(r#""abi.gil":"release""#));
}
