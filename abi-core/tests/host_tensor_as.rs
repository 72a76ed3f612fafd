//! `HostTensorAs`: the exact dtype borrowed, compact; other dtypes numpy's `same_kind`
//! casting takes to the element type converted as numpy's `astype` converts them; strided
//! arguments copied row-major; everything else refused with both dtypes named.

use abi_core::ffi::{code, device_type};
use abi_core::half::{bf16, f16};
use abi_core::{DataType, Device, Element, HostTensorAs, Tensor};

mod support;
use support::RawTensor as Raw;

/// A vector of `values`, compact.
fn of<S: Element>(values: &[S]) -> Box<Raw> {
    Raw::new(values, S::DTYPE, &[values.len() as i64], None, 0)
}

fn as_f32(r: &Raw) -> Vec<f32> {
    HostTensorAs::<f32, 1>::new(r.view()).unwrap().as_slice().to_vec()
}

#[test]
fn the_exact_dtype_is_borrowed_without_a_copy() {
    let t = Tensor::from_vec(vec![1.5f32, 2.5, -3.0], &[3]).unwrap();
    let x = HostTensorAs::<f32, 1>::new(t.view()).unwrap();
    assert!(!x.is_converted());
    assert_eq!(x.as_slice().as_ptr().cast(), t.view().dl_tensor().data.cast_const());
    assert_eq!((x.as_slice(), x.dims(), x.numel(), x.source_dtype()), (&[1.5, 2.5, -3.0][..], [3], 3, f32::DTYPE));
}

#[test]
fn float64_becomes_float32_rounded_to_nearest() {
    let r = of(&[0.0f64, 1.0, 2.5, 0.1, 1e300, -1e-300, f64::NAN]);
    let x = HostTensorAs::<f32, 1>::new(r.view()).unwrap();
    assert!(x.is_converted());
    assert_eq!(x.source_dtype().to_string(), "float64");
    let v = x.as_slice();
    assert_eq!(&v[..4], [0.0, 1.0, 2.5, 0.1f64 as f32]);
    assert_eq!((v[4], v[5].to_bits(), v[6].is_nan()), (f32::INFINITY, (-0.0f32).to_bits(), true));
}

#[test]
fn integers_and_bools_convert_as_numpy_astype_does() {
    assert_eq!(as_f32(&of(&[-3i64, 1 << 40, 16_777_217])), [-3.0, (1u64 << 40) as f32, 16_777_216.0]);
    assert_eq!(as_f32(&of(&[255u8, 0, 7])), [255.0, 0.0, 7.0]);
    assert_eq!(as_f32(&of(&[u64::MAX])), [u64::MAX as f32]);
    let bools = Raw::new(&[0u8, 1, 2], DataType::new(code::BOOL, 8), &[3], None, 0);
    assert_eq!(as_f32(&bools), [0.0, 1.0, 1.0], "any non-zero byte is true");
    // Narrower integers wrap; unsigned into signed is same_kind too.
    let wide = of(&[300i64, -129, 5]);
    assert_eq!(HostTensorAs::<i8, 1>::new(wide.view()).unwrap().as_slice(), [44, 127, 5]);
    let unsigned = of(&[u32::MAX, 1]);
    assert_eq!(HostTensorAs::<i32, 1>::new(unsigned.view()).unwrap().as_slice(), [-1, 1]);
    assert_eq!(HostTensorAs::<u16, 1>::new(of(&[70_000u32]).view()).unwrap().as_slice(), [4464]);
    // Half floats both ways.
    let halves = of(&[f16::from_f32(0.5), f16::from_f32(-2.0)]);
    assert_eq!(as_f32(&halves), [0.5, -2.0]);
    let brains = of(&[bf16::from_f32(3.0)]);
    assert_eq!(HostTensorAs::<f64, 1>::new(brains.view()).unwrap().as_slice(), [3.0]);
    let into_half = of(&[1.0f64 / 3.0, 70_000.0]);
    let h = HostTensorAs::<f16, 1>::new(into_half.view()).unwrap();
    assert_eq!(h.as_slice(), [f16::from_f64(1.0 / 3.0), f16::INFINITY]);
}

#[test]
fn casts_numpy_same_kind_refuses_are_refused() {
    let refused = |r: &Raw, want: &str| {
        let e = HostTensorAs::<i32, 1>::new(r.view()).unwrap_err();
        assert_eq!(e.kind(), "TypeError");
        assert!(e.message().contains(want), "{}", e.message());
    };
    refused(&of(&[1.0f32]), "got dtype float32"); // float to int
    refused(&of(&[1.0f64]), "got dtype float64");
    let e = HostTensorAs::<u32, 1>::new(of(&[1i8]).view()).unwrap_err(); // signed to unsigned
    assert_eq!(
        e.message(),
        "expected a tensor of dtype uint32 or one numpy's same_kind casting takes to it, and rank 1, got dtype int8 \
         and rank 1 (shape [1])"
    );
    let complex = Raw::new(&[0.0f32, 1.0], DataType::new(code::COMPLEX, 64), &[1], None, 0);
    assert!(HostTensorAs::<f64, 1>::new(complex.view()).is_err());
    let lanes = Raw::new(&[0.0f32; 4], DataType { code: code::FLOAT, bits: 32, lanes: 4 }, &[1], None, 0);
    assert!(HostTensorAs::<f32, 1>::new(lanes.view()).is_err(), "vectors are not numpy dtypes");
    let e = HostTensorAs::<f32, 2>::new(of(&[1.0f64]).view()).unwrap_err();
    assert!(e.message().ends_with("and rank 2, got dtype float64 and rank 1 (shape [1])"), "{}", e.message());
    let mut gpu = of(&[1.0f32]);
    gpu.dl.device = Device::new(device_type::CUDA, 0);
    let e = HostTensorAs::<f32, 1>::new(gpu.view()).unwrap_err();
    assert_eq!(e.message(), "tensor data on cuda:0 is not host-accessible");
}

#[test]
fn strided_arguments_are_copied_row_major() {
    // arange(6).reshape(2, 3).T, float32: the exact dtype, copied because not compact.
    let t = Raw::new(&[0.0f32, 1.0, 2.0, 3.0, 4.0, 5.0], f32::DTYPE, &[3, 2], Some(&[1, 3]), 0);
    let x = HostTensorAs::<f32, 2>::new(t.view()).unwrap();
    assert!(x.is_converted());
    assert_eq!((x.as_slice(), x.dims()), (&[0.0, 3.0, 1.0, 4.0, 2.0, 5.0][..], [3, 2]));
    // arange(4.0)[::-1], float64, into float32.
    let r = Raw::new(&[0.0f64, 1.0, 2.0, 3.0], f64::DTYPE, &[4], Some(&[-1]), 3);
    assert_eq!(as_f32(&r), [3.0, 2.0, 1.0, 0.0]);
    // A broadcast row, and an empty array.
    let b = Raw::new(&[7i16, 8], i16::DTYPE, &[2, 2], Some(&[0, 1]), 0);
    assert_eq!(HostTensorAs::<f32, 2>::new(b.view()).unwrap().as_slice(), [7.0, 8.0, 7.0, 8.0]);
    let z = Raw::new(&[0.0f64], f64::DTYPE, &[0, 3], Some(&[0, 1]), 0);
    assert_eq!(HostTensorAs::<f32, 2>::new(z.view()).unwrap().numel(), 0);
    // The layout is checked before anything is read.
    let hostile = Raw::new(&[0.0f64], f64::DTYPE, &[2], Some(&[i64::MAX]), 0);
    let e = HostTensorAs::<f32, 1>::new(hostile.view()).unwrap_err();
    assert!(e.message().ends_with("address elements outside the address space"), "{}", e.message());
}

#[test]
fn same_kind_is_numpys_table() {
    // Spot checks; tests/python/test_tensor_kit.py compares every pair with np.can_cast.
    let d = |code, bits| DataType::new(code, bits);
    let (b, u8_, i8_, i64_, u64_, f16_, f64_) = (
        d(code::BOOL, 8),
        d(code::UINT, 8),
        d(code::INT, 8),
        d(code::INT, 64),
        d(code::UINT, 64),
        d(code::FLOAT, 16),
        d(code::FLOAT, 64),
    );
    assert!(b.casts_same_kind(u8_) && u8_.casts_same_kind(i8_) && i64_.casts_same_kind(i8_));
    assert!(u64_.casts_same_kind(f16_) && f64_.casts_same_kind(f16_) && i64_.casts_same_kind(f64_));
    assert!(!i8_.casts_same_kind(u64_) && !f16_.casts_same_kind(i64_) && !u8_.casts_same_kind(b));
    assert!(!d(code::FLOAT, 8).casts_same_kind(f64_), "no float8 in numpy");
    assert!(d(code::BFLOAT, 16).casts_same_kind(f16_));
}
