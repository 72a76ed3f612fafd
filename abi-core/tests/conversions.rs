//! Scalar and handle conversions in both directions (`Any::from_value`, `to::<T>()`,
//! `FromArg::from_arg` on raw argument slots): every integer width at its limits and one
//! past them, floats bit-exact, the C++ `TypeTraits` acceptance rules, and the exact
//! wording of mismatch and out-of-range errors. Strings and containers have their own files.

use core::ffi::c_void;
use core::fmt::Debug;

use abi_core::ffi::type_index as ti;
use abi_core::ffi::ObjectHeader;
use abi_core::ObjectHandle;
use abi_core::{
    Any, AnyView, Array, Bytes, ConvError, DataType, Device, Error, FromAny, FromArg, Function, IntoAny, ObjectRef,
    RawAny, Shape, Str, Tensor,
};

/// A view of a plain (pointer-free) value.
fn plain(type_index: i32, payload: i64) -> AnyView<'static> {
    // SAFETY: Int/Bool/None/Float payloads point at nothing.
    unsafe { AnyView::from_raw(RawAny::from_i64(type_index, payload)) }
}

fn float(x: f64) -> AnyView<'static> {
    plain(ti::FLOAT, x.to_bits() as i64)
}

/// Asserts that converting `v` into `T` fails as a type mismatch worded `expected ...`.
fn expect_mismatch<T: FromAny + Debug>(v: AnyView<'_>, text: &str) {
    match T::from_any(v) {
        Err(e @ ConvError::Mismatch { .. }) => {
            assert_eq!(e.to_string(), text);
            assert_eq!(e.kind(), "TypeError");
        }
        other => panic!("expected a mismatch ({text}), got {other:?}"),
    }
}

/// Asserts that the Int `v` is out of range for `T` (named `target`), never wrapped.
fn expect_out_of_range<T: FromAny + Debug>(v: i64, target: &str) {
    match T::from_any(plain(ti::INT, v)) {
        Err(e @ ConvError::OutOfRange { .. }) => {
            assert_eq!(e.to_string(), format!("{v} is out of range for {target}"));
            assert_eq!(e.kind(), "ValueError");
        }
        other => panic!("{v} as {target}: expected OutOfRange, got {other:?}"),
    }
}

macro_rules! int_edges {
    ($($name:ident: $t:ident),* $(,)?) => {$(
        #[test]
        fn $name() {
            for v in [<$t>::MIN, <$t>::MAX, 0, 1] {
                match i64::try_from(v) {
                    Ok(wide) => {
                        let a = Any::from_value(v).unwrap();
                        assert_eq!((a.type_index(), a.as_raw().i64(), a.as_raw().small_len), (ti::INT, wide, 0));
                        assert_eq!(a.to::<$t>().unwrap(), v);
                        assert_eq!(<$t>::from_any(plain(ti::INT, wide)).unwrap(), v);
                    }
                    Err(_) => {
                        // Only u64/usize above i64::MAX: a BigInt, never a wrapped i64.
                        let a = Any::from_value(v).unwrap();
                        assert_eq!(a.type_index(), ti::BIG_INT);
                        assert_eq!(a.to::<$t>().unwrap(), v);
                    }
                }
            }
            let below = <$t>::MIN as i128 - 1;
            let above = <$t>::MAX as i128 + 1;
            for past in [below, above] {
                if let Ok(past) = i64::try_from(past) {
                    expect_out_of_range::<$t>(past, stringify!($t));
                }
            }
            // A Bool is accepted where an integer is wanted.
            assert_eq!(<$t>::from_any(plain(ti::BOOL, 1)).unwrap(), 1);
            assert_eq!(<$t>::from_any(plain(ti::BOOL, 0)).unwrap(), 0);
            expect_mismatch::<$t>(float(1.0), "expected int, got float");
            expect_mismatch::<$t>(AnyView::NONE, "expected int, got None");
        }
    )*};
}

int_edges! {
    i8_edges: i8, i16_edges: i16, i32_edges: i32, i64_edges: i64, isize_edges: isize,
    u8_edges: u8, u16_edges: u16, u32_edges: u32, u64_edges: u64, usize_edges: usize,
}

#[test]
fn integers_never_wrap() {
    expect_out_of_range::<u8>(256, "u8");
    expect_out_of_range::<u8>(-1, "u8");
    expect_out_of_range::<i8>(-129, "i8");
    expect_out_of_range::<u32>(1 << 32, "u32");
    expect_out_of_range::<i32>(-(1 << 31) - 1, "i32");
    expect_out_of_range::<u64>(i64::MIN, "u64");
    expect_out_of_range::<usize>(-1, "usize");
    let e = Any::from_value(300i64).unwrap().to::<i8>().unwrap_err();
    assert_eq!((e.kind(), e.message()), ("ValueError", "300 is out of range for i8"));
}

/// A BigInt object (78) holding `words` (two's complement, least significant first), laid
/// out as tvm-ffi's `c_api.h` documents it: the header, a word count, the words.
fn big<const N: usize>(words: [i64; N]) -> Any {
    #[repr(C)]
    struct Cell<const N: usize> {
        size: usize,
        words: [i64; N],
    }
    Any::from(abi_core::object::new_object(ti::BIG_INT, Cell { size: N, words }))
}

/// Asserts that converting `v` into `T` fails as out of range, worded `message` (an
/// `OutOfRange` up to 128 bits; wider, the error is worded at once).
fn expect_big_out_of_range<T: FromAny + Debug>(v: &Any, message: &str) {
    match T::from_any(v.view()) {
        Err(e @ (ConvError::OutOfRange { .. } | ConvError::Other(_))) => {
            assert_eq!(e.to_string(), message);
            assert_eq!(e.kind(), "ValueError");
        }
        other => panic!("expected out of range ({message}), got {other:?}"),
    }
}

#[test]
fn u64_above_i64_max_enters_an_any_as_a_big_int() {
    for (value, words) in [(i64::MAX as u64 + 1, [i64::MIN, 0]), (u64::MAX, [-1, 0])] {
        let a = Any::from_value(value).unwrap();
        assert_eq!(a.type_index(), ti::BIG_INT);
        // The layout tvm-ffi reads: word count at offset 24, the words from offset 32.
        let obj = a.as_raw().ptr().cast::<u8>();
        // SAFETY: `a` holds a live BigInt object of two words.
        let (size, read) = unsafe { (*obj.add(24).cast::<usize>(), *obj.add(32).cast::<[i64; 2]>()) };
        assert_eq!((size, read), (2, words));
        assert_eq!(a.to::<u64>().unwrap(), value);
        assert_eq!(Any::from_value(value as usize).unwrap().to::<usize>().unwrap(), value as usize);
    }
    // Within i64 a u64 stays a plain Int.
    let ok = Any::from_value(i64::MAX as u64).unwrap();
    assert_eq!((ok.type_index(), ok.as_raw().i64()), (ti::INT, i64::MAX));
}

#[test]
fn big_ints_convert_where_they_fit_and_name_their_value_where_they_do_not() {
    let two_63 = big([i64::MIN, 0]);
    let u64_max = big([-1, 0]);
    assert_eq!(u64::from_any(two_63.view()).unwrap(), 1 << 63);
    assert_eq!(usize::from_any(u64_max.view()).unwrap(), usize::MAX);
    expect_big_out_of_range::<i64>(&two_63, "9223372036854775808 is out of range for i64");
    expect_big_out_of_range::<isize>(&two_63, "9223372036854775808 is out of range for isize");
    expect_big_out_of_range::<u8>(&u64_max, "18446744073709551615 is out of range for u8");
    expect_big_out_of_range::<i32>(&u64_max, "18446744073709551615 is out of range for i32");
    expect_big_out_of_range::<u64>(&big([0, 1]), "18446744073709551616 is out of range for u64");
    expect_big_out_of_range::<u64>(&big([i64::MAX, -1]), "-9223372036854775809 is out of range for u64");
    expect_big_out_of_range::<i64>(&big([i64::MAX, -1]), "-9223372036854775809 is out of range for i64");
    // Wider than 128 bits: the decimal value, up to 512 bits.
    expect_big_out_of_range::<u64>(&big([0, 0, 1]), "340282366920938463463374607431768211456 is out of range for u64");
    expect_big_out_of_range::<i16>(
        &big([0, 0, -1]),
        "-340282366920938463463374607431768211456 is out of range for i16",
    );
    let two_511 = big([0, 0, 0, 0, 0, 0, 0, i64::MIN, 0]);
    let digits = "6703903964971298549787012499102923063739682910296196688861780721860882015036773488400937149083451713845015929093243025426876941405973284973216824503042048";
    expect_big_out_of_range::<u64>(&two_511, &format!("{digits} is out of range for u64"));
    // Past 512 bits, its size.
    expect_big_out_of_range::<u64>(&big([0, 0, 0, 0, 0, 0, 0, 0, 1]), "an integer of 513 bits is out of range for u64");
    expect_big_out_of_range::<i8>(
        &big([0, 0, 0, 0, 0, 0, 0, 0, -1]),
        "a negative integer of 513 bits is out of range for i8",
    );
    // Redundant sign words (not canonical, still the same value) are read as that value.
    assert_eq!(i64::from_any(big([-5, -1, -1]).view()).unwrap(), -5);
    assert_eq!(u64::from_any(big([-1, 0, 0]).view()).unwrap(), u64::MAX);
    // Containers hold them too.
    let list = Any::from(Array::new(vec![big([i64::MIN, 0]), Any::from_value(7u64).unwrap()]));
    assert_eq!(list.to::<Vec<u64>>().unwrap(), vec![1 << 63, 7]);
    assert_eq!(two_63.to::<Option<u64>>().unwrap(), Some(1 << 63));
    let out = Any::from_value(vec![u64::MAX, 1]).unwrap();
    assert_eq!(out.to::<Vec<u64>>().unwrap(), vec![u64::MAX, 1]);
    let err = list.to::<Vec<i64>>().unwrap_err();
    assert_eq!(err.message(), "element 0: 9223372036854775808 is out of range for i64");
}

#[test]
fn a_null_big_int_handle_is_refused() {
    // SAFETY: a null handle points at nothing.
    let null = unsafe { AnyView::from_raw(RawAny::from_ptr(ti::BIG_INT, core::ptr::null_mut())) };
    for err in [u64::from_any(null).unwrap_err(), f64::from_any(null).unwrap_err()] {
        assert!(matches!(err, ConvError::NullObject { .. }), "{err:?}");
        assert_eq!(err.kind(), "ValueError");
    }
}

#[test]
fn floats_take_big_ints_rounded_to_nearest() {
    assert_eq!(f64::from_any(big([0, 1]).view()).unwrap(), 18446744073709551616.0);
    assert_eq!(f32::from_any(big([-1, 0]).view()).unwrap(), 18446744073709551615.0f32);
    assert_eq!(f64::from_any(big([i64::MAX, -1]).view()).unwrap(), -9223372036854775809.0);
    // Ties go to even, and anything past a tie rounds away: (2**53 + 1) * 2**200 sits
    // halfway between two doubles; one more unit in the last word tips it up.
    let tie = [0, 0, 0, 0x2000_0000_0000_0100];
    let above = [1, 0, 0, 0x2000_0000_0000_0100];
    // 2**e, exact (`powi` need not be, and is not under Miri).
    let pow2 = |e: u64| f64::from_bits((e + 1023) << 52);
    assert_eq!(f64::from_any(big(tie).view()).unwrap(), pow2(253));
    assert_eq!(f64::from_any(big(above).view()).unwrap(), pow2(253) + pow2(201));
    // Beyond the float's range: out of range, naming the integer.
    expect_big_out_of_range::<f32>(&big([0, 0, 1]), "340282366920938463463374607431768211456 is out of range for f32");
    let mut words = [0i64; 17];
    words[16] = 1;
    expect_big_out_of_range::<f64>(&big(words), "an integer of 1025 bits is out of range for f64");
}

#[test]
fn unit_is_none() {
    let a = Any::from_value(()).unwrap();
    assert!(a.is_none());
    a.to::<()>().unwrap();
    expect_mismatch::<()>(plain(ti::INT, 0), "expected None, got int");
}

#[test]
fn bool_round_trip_and_acceptance() {
    for b in [true, false] {
        let a = Any::from_value(b).unwrap();
        assert_eq!((a.type_index(), a.as_raw().i64()), (ti::BOOL, b as i64));
        assert_eq!(a.to::<bool>().unwrap(), b);
    }
    // An Int is accepted where a bool is wanted (C++ TypeTraits<bool>).
    assert!(!bool::from_any(plain(ti::INT, 0)).unwrap());
    assert!(bool::from_any(plain(ti::INT, 7)).unwrap());
    assert!(bool::from_any(plain(ti::INT, -1)).unwrap());
    expect_mismatch::<bool>(float(1.0), "expected bool, got float");
    expect_mismatch::<bool>(AnyView::NONE, "expected bool, got None");
}

#[test]
fn f64_round_trips_bit_exactly() {
    let payload_nan = f64::from_bits(0x7ff8_dead_beef_0001);
    let negative_nan = f64::from_bits(0xfff0_0000_0000_0001);
    let values = [0.0, -0.0, 1.5, -1e-310, f64::MIN_POSITIVE, f64::MAX, f64::MIN, f64::INFINITY, f64::NEG_INFINITY];
    for x in values.into_iter().chain([f64::NAN, payload_nan, negative_nan]) {
        let a = Any::from_value(x).unwrap();
        assert_eq!(a.type_index(), ti::FLOAT);
        assert_eq!(a.as_raw().f64().to_bits(), x.to_bits());
        assert_eq!(a.to::<f64>().unwrap().to_bits(), x.to_bits(), "{x:?}");
    }
}

#[test]
fn float_accepts_int_and_bool() {
    assert_eq!(f64::from_any(plain(ti::INT, -3)).unwrap(), -3.0);
    assert_eq!(f64::from_any(plain(ti::BOOL, 1)).unwrap(), 1.0);
    assert_eq!(f32::from_any(plain(ti::INT, 1 << 20)).unwrap(), 1048576.0);
    assert_eq!(f32::from_any(plain(ti::BOOL, 0)).unwrap(), 0.0);
    expect_mismatch::<f64>(AnyView::NONE, "expected float, got None");
    let s = Any::from_value("x").unwrap();
    expect_mismatch::<f32>(s.view(), "expected float, got str");
}

#[test]
fn f32_in_and_out() {
    for x in [0.1f32, -0.0, f32::MAX, f32::MIN, f32::MIN_POSITIVE, f32::INFINITY, f32::NEG_INFINITY] {
        let a = Any::from_value(x).unwrap();
        assert_eq!(a.as_raw().f64().to_bits(), (x as f64).to_bits(), "f32 widens exactly");
        assert_eq!(a.to::<f32>().unwrap().to_bits(), x.to_bits());
    }
    assert!(f32::from_any(float(f64::NAN)).unwrap().is_nan());
    assert_eq!(f32::from_any(float(f64::INFINITY)).unwrap(), f32::INFINITY);
    assert_eq!(f32::from_any(float(0.1)).unwrap(), 0.1f32, "rounds like `as`");
}

#[test]
fn f32_from_finite_f64_beyond_range_is_out_of_range() {
    let cases = [(1e39, "1e39"), (-1e39, "-1e39"), (f64::MAX, "1.7976931348623157e308")];
    for (x, text) in cases {
        match f32::from_any(float(x)) {
            Err(e @ ConvError::OutOfRange { .. }) => {
                assert_eq!(e.to_string(), format!("{text} is out of range for f32"));
                assert_eq!(e.kind(), "ValueError");
            }
            other => panic!("{x}: {other:?}"),
        }
    }
    // The next f32 after MAX would be 2^128: that is out of range, MAX itself is not.
    assert!(f32::from_any(float(2f64.powi(128))).is_err());
    assert_eq!(f32::from_any(float(f32::MAX as f64)).unwrap(), f32::MAX);
    // An int beyond a narrow float's range is named as the int it was.
    let e = half::f16::from_any(plain(ti::INT, 100_000)).unwrap_err();
    assert_eq!(e.to_string(), "100000 is out of range for f16");
}

#[test]
fn dtype_device_and_opaque_pointer() {
    let dt = DataType { code: 4, bits: 16, lanes: 1 };
    let a = Any::from_value(dt).unwrap();
    assert_eq!(a.type_index(), ti::DATA_TYPE);
    assert_eq!(a.to::<DataType>().unwrap(), dt);
    expect_mismatch::<DataType>(plain(ti::INT, 0), "expected DataType, got int");

    let dev = Device { device_type: 2, device_id: 7 };
    let a = Any::from_value(dev).unwrap();
    assert_eq!(a.type_index(), ti::DEVICE);
    assert_eq!(a.to::<Device>().unwrap(), dev);
    expect_mismatch::<Device>(Any::from_value(dt).unwrap().view(), "expected Device, got DataType");

    let mut target = 5u32;
    let p = core::ptr::from_mut(&mut target).cast::<c_void>();
    let a = Any::from_value(p).unwrap();
    assert_eq!(a.type_index(), ti::OPAQUE_PTR);
    assert_eq!(a.to::<*mut c_void>().unwrap(), p);
    assert!(<*mut c_void>::from_any(AnyView::NONE).unwrap().is_null(), "None is a null pointer");
    expect_mismatch::<*mut c_void>(plain(ti::INT, 0), "expected void*, got int");
}

#[test]
fn option_wraps_none() {
    let none: Option<i32> = None;
    assert!(Any::from_value(none).unwrap().is_none());
    let some = Any::from_value(Some(-4i32)).unwrap();
    assert_eq!((some.type_index(), some.as_raw().i64()), (ti::INT, -4));
    assert_eq!(some.to::<Option<i32>>().unwrap(), Some(-4));
    assert_eq!(Any::NONE.to::<Option<i32>>().unwrap(), None);
    assert_eq!(Any::NONE.to::<Option<String>>().unwrap(), None);
    let e = Option::<i8>::from_any(plain(ti::INT, 1000)).unwrap_err();
    assert_eq!(e.to_string(), "1000 is out of range for i8");
    let e = Option::<i32>::from_any(float(1.0)).unwrap_err();
    assert!(e.to_string().ends_with("got float"), "{e}");
}

#[test]
fn any_and_any_view_pass_through() {
    let a = Any::from_value(Any::from_value(42i64).unwrap()).unwrap();
    assert_eq!(a.to::<i64>().unwrap(), 42);
    let copy = a.to::<Any>().unwrap();
    assert_eq!((copy.type_index(), copy.as_raw().i64()), (ti::INT, 42));

    let v = plain(ti::FLOAT, 2.5f64.to_bits() as i64);
    let same = <AnyView<'_> as FromArg<'_>>::from_arg(&v).unwrap();
    assert_eq!(same.raw().f64(), 2.5);
    let owned = same.into_any().unwrap();
    assert_eq!(owned.to::<f64>().unwrap(), 2.5);
}

/// Converts a handle into an Any and back, checking the type index and that the same
/// object comes back (not a copy).
fn handle_round_trip<T: IntoAny + FromAny>(value: T, index: i32, ptr: *mut ObjectHeader) -> T {
    let a = Any::from_value(value).unwrap();
    assert_eq!(a.type_index(), index);
    assert_eq!(a.as_raw().ptr().cast::<ObjectHeader>(), ptr);
    a.to::<T>().unwrap()
}

#[test]
fn object_handles_round_trip_as_the_same_object() {
    let s = Str::new("short");
    let p = s.as_object().as_ptr();
    assert_eq!(handle_round_trip(s, ti::STR, p).as_bytes(), b"short");

    let b = Bytes::new(b"\x00\x01");
    let p = b.as_object().as_ptr();
    assert_eq!(handle_round_trip(b, ti::BYTES, p).as_bytes(), b"\x00\x01");

    let sh = Shape::new(&[4, 5]);
    let p = sh.as_object().as_ptr();
    assert_eq!(handle_round_trip(sh, ti::SHAPE, p).dims(), &[4, 5]);

    let t = Tensor::from_vec(vec![1i32, 2], &[2]).unwrap();
    let p = t.as_object().as_ptr();
    assert_eq!(handle_round_trip(t, ti::TENSOR, p).view().as_slice::<i32>().unwrap(), &[1, 2]);

    let arr = Array::new(vec![Any::from_value(1i64).unwrap()]);
    let p = arr.as_object().as_ptr();
    assert_eq!(handle_round_trip(arr, ti::ARRAY, p).len(), 1);

    let f = Function::from_closure(|args| Any::from_value(args.len() as i64));
    let p = f.as_object().as_ptr();
    let back = handle_round_trip(f, ti::FUNCTION, p);
    assert_eq!(back.call_packed(&[AnyView::NONE, AnyView::NONE]).unwrap().to::<i64>().unwrap(), 2);

    let e = Error::index_error("out");
    let p = e.as_object().as_ptr();
    assert_eq!(handle_round_trip(e, ti::ERROR, p).kind(), "IndexError");

    let o = Str::new("object").as_object().clone();
    let p = o.as_ptr();
    assert_eq!(handle_round_trip(o, ti::STR, p).type_index(), ti::STR);
}

#[test]
fn object_handles_reject_other_types() {
    let s = Any::from_value("a long string, an object").unwrap();
    expect_mismatch::<Shape>(s.view(), "expected Shape, got str");
    expect_mismatch::<Tensor>(s.view(), "expected Tensor, got str");
    expect_mismatch::<Function>(s.view(), "expected Function, got str");
    expect_mismatch::<Error>(s.view(), "expected Error, got str");
    expect_mismatch::<Array>(s.view(), "expected list[Any], got str");
    expect_mismatch::<Bytes>(s.view(), "expected bytes, got str");
    expect_mismatch::<ObjectRef>(plain(ti::INT, 1), "expected Object, got int");
    expect_mismatch::<ObjectRef>(AnyView::NONE, "expected Object, got None");
    let sh = Any::from_value(Shape::new(&[])).unwrap();
    expect_mismatch::<Str>(sh.view(), "expected str, got Shape");
}

#[test]
fn conversion_errors_become_errors_with_kinds() {
    let e: Error = ConvError::mismatch(<i32 as abi_core::AbiType>::DESC, ti::FLOAT).into();
    assert_eq!((e.kind(), e.message()), ("TypeError", "expected int, got float"));
    let e = Any::from_value(1.5f64).unwrap().to::<Vec<i32>>().unwrap_err();
    assert_eq!((e.kind(), e.message()), ("TypeError", "expected list[int], got float"));
}

/// Every type that can be returned (`IntoAny`) can be passed to a packed function
/// (`IntoArg`): both impls come from one site per type, so tuples, maps and objects agree.
#[test]
fn every_returnable_type_can_be_passed() {
    fn both<T: abi_core::IntoAny + abi_core::IntoArg>() {}
    both::<()>();
    both::<bool>();
    both::<i8>();
    both::<u64>();
    both::<usize>();
    both::<f32>();
    both::<half::bf16>();
    both::<abi_core::DataType>();
    both::<abi_core::Device>();
    both::<*mut core::ffi::c_void>();
    both::<&str>();
    both::<String>();
    both::<&[u8]>();
    both::<Vec<u8>>();
    both::<Option<String>>();
    both::<Vec<f64>>();
    both::<std::collections::HashMap<String, i64>>();
    both::<std::collections::BTreeMap<i64, Vec<u8>>>();
    both::<(i64,)>();
    both::<(i8, i16, i32, i64, u8, u16, u32, u64, f32, f64, bool, String)>();
    both::<abi_core::Any>();
    both::<abi_core::AnyView<'static>>();
    both::<abi_core::Str>();
    both::<abi_core::Bytes>();
    both::<abi_core::Error>();
    both::<abi_core::Function>();
    both::<abi_core::Shape>();
    both::<abi_core::Tensor>();
    both::<abi_core::Array>();
    both::<abi_core::Map>();
    both::<abi_core::ObjectRef>();
    both::<abi_core::TypedFunction<fn(i64) -> i64>>();
}
