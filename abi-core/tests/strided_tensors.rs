//! `StridedTensor` and `StridedTensorMut` over `DLTensor`s as numpy states them: transposed,
//! sliced with a step, reversed, broadcast, empty; element access by index, in row-major
//! order and as a slice when compact; and the refusals: layouts whose addresses overflow
//! or wrap, misaligned or null data, repeated elements in a tensor written in place.

use abi_core::ffi::{code, device_type};
use abi_core::{DataType, Device, HostTensor, StridedTensor, StridedTensorMut, TensorView};

mod support;
use support::RawTensor;

/// A float32 tensor over its own buffer `0.0, 1.0, ...` of `len` elements, `offset`
/// elements in, with `shape` and `strides`.
fn dl(len: usize, offset: u64, shape: &[i64], strides: Option<&[i64]>) -> Box<RawTensor> {
    let values: Vec<f32> = (0..len).map(|i| i as f32).collect();
    RawTensor::new(&values, DataType { code: code::FLOAT, bits: 32, lanes: 1 }, shape, strides, offset)
}

fn strided<const N: usize>(t: &RawTensor) -> abi_core::Result<StridedTensor<'_, f32, N>> {
    StridedTensor::new(t.view())
}

fn strided_mut<const N: usize>(t: &mut RawTensor) -> abi_core::Result<StridedTensorMut<'_, f32, N>> {
    // SAFETY: `&mut t`: nothing else reads or writes the buffer meanwhile.
    unsafe { StridedTensorMut::new(TensorView::from_dl(&t.dl)) }
}

fn all<const N: usize>(t: &StridedTensor<'_, f32, N>) -> Vec<f32> {
    t.iter().copied().collect()
}

#[test]
fn a_transpose_reads_columns_as_rows() {
    // x = arange(6).reshape(2, 3); x.T has shape (3, 2), strides (1, 3).
    let x = dl(6, 0, &[3, 2], Some(&[1, 3]));
    let t = strided::<2>(&x).unwrap();
    assert_eq!((t.dims(), t.strides(), t.numel(), t.shape()), ([3, 2], [1, 3], 6, &[3i64, 2][..]));
    assert_eq!(all(&t), [0.0, 3.0, 1.0, 4.0, 2.0, 5.0]);
    assert_eq!((t.get([2, 1]), t[[1, 0]]), (Some(&5.0), 1.0));
    assert_eq!((t.get([3, 0]), t.get([0, 2])), (None, None), "out of bounds");
    assert_eq!(t.as_slice(), None, "not compact");
    assert_eq!(t.iter().len(), 6);
}

#[test]
fn steps_and_negative_strides_address_the_right_elements() {
    // x[::-1] of arange(4): its first element is the last, byte offset 12, stride -1.
    let r = dl(4, 3, &[4], Some(&[-1]));
    let t = strided::<1>(&r).unwrap();
    assert_eq!((all(&t), t.strides()), (vec![3.0, 2.0, 1.0, 0.0], [-1]));
    // y = arange(12).reshape(3, 4); y[:, ::2] and y[::-1, 1::2].
    let every_other = dl(12, 0, &[3, 2], Some(&[4, 2]));
    assert_eq!(all(&strided::<2>(&every_other).unwrap()), [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
    let both = dl(12, 9, &[3, 2], Some(&[-4, 2]));
    assert_eq!(all(&strided::<2>(&both).unwrap()), [9.0, 11.0, 5.0, 7.0, 1.0, 3.0]);
}

#[test]
fn broadcast_zero_size_rank_zero_and_compact_tensors() {
    // np.broadcast_to(arange(3), (2, 3)): stride 0 along the rows, readable.
    let b = dl(3, 0, &[2, 3], Some(&[0, 1]));
    assert_eq!(all(&strided::<2>(&b).unwrap()), [0.0, 1.0, 2.0, 0.0, 1.0, 2.0]);
    // Empty, whatever the strides (numpy 2 gives zeros(0) stride 0).
    let z = dl(0, 0, &[0, 3], Some(&[0, 1]));
    let t = strided::<2>(&z).unwrap();
    assert_eq!((t.numel(), t.get([0, 0]), t.iter().next(), t.as_slice()), (0, None, None, Some(&[][..])));
    let rank0 = dl(1, 0, &[], None);
    assert_eq!(strided::<0>(&rank0).unwrap()[[]], 0.0);
    // Compact row-major, stated or not, and an extent-1 dimension of any stride.
    for strides in [None, Some(&[3i64, 1][..])] {
        let c = dl(6, 0, &[2, 3], strides);
        let t = strided::<2>(&c).unwrap();
        assert_eq!((t.as_slice(), t.strides()), (Some(&[0.0, 1.0, 2.0, 3.0, 4.0, 5.0][..]), [3, 1]));
    }
    let row = dl(3, 0, &[1, 3], Some(&[i64::MIN, 1]));
    assert_eq!(strided::<2>(&row).unwrap().as_slice(), Some(&[0.0, 1.0, 2.0][..]));
}

#[test]
fn writes_land_where_the_strides_say() {
    // out.T of a (2, 3) buffer: out_t[[i, j]] = 10 * i + j.
    let mut out = dl(6, 0, &[3, 2], Some(&[1, 3]));
    let mut t = strided_mut::<2>(&mut out).unwrap();
    for i in 0..3 {
        for j in 0..2 {
            t[[i, j]] = (10 * i + j) as f32;
        }
    }
    assert_eq!(t.get([2, 1]), Some(&21.0));
    *t.get_mut([0, 0]).unwrap() = -1.0;
    assert_eq!(t.get_mut([3, 0]), None);
    assert_eq!(t.as_slice(), None);
    assert_eq!(out.elements::<f32>(6), [-1.0, 10.0, 20.0, 1.0, 11.0, 21.0]);
    // buf[::-1] written in row-major order fills the buffer backwards.
    let mut rev = dl(4, 3, &[4], Some(&[-1]));
    strided_mut::<1>(&mut rev).unwrap().iter_mut().enumerate().for_each(|(i, v)| *v = i as f32 * 2.0);
    assert_eq!(rev.elements::<f32>(4), [6.0, 4.0, 2.0, 0.0]);
    // Compact: one mutable slice.
    let mut c = dl(3, 0, &[3], None);
    strided_mut::<1>(&mut c).unwrap().as_mut_slice().unwrap().fill(7.0);
    assert_eq!(c.elements::<f32>(3), [7.0; 3]);
}

#[test]
fn a_tensor_written_in_place_must_not_repeat_elements() {
    let mut b = dl(3, 0, &[2, 3], Some(&[0, 1]));
    let e = strided_mut::<2>(&mut b).unwrap_err();
    assert_eq!(
        (e.kind(), e.message()),
        (
            "ValueError",
            "tensor written in place repeats elements: shape [2, 3], strides [0, 1] has stride 0 along \
             dimension 0 (a broadcast array); pass a copy"
        )
    );
    // Rows of 3 elements, 2 apart: the third element of a row is the first of the next.
    // The message says what the check asks, not that an element repeats: the cheap test
    // cannot tell (the next layout's elements are distinct).
    let not_nested = "tensor written in place may repeat elements: shape [3, 3], strides [2, 1] do not nest \
                      (sorted by size, each stride must reach past every element the smaller ones address, \
                      as in views of one compact array); pass a copy";
    let mut rows = dl(8, 0, &[3, 3], Some(&[2, 1]));
    assert_eq!(strided_mut::<2>(&mut rows).unwrap_err().message(), not_nested);
    // Distinct though not nested: (3, 2) with strides (2, 3) is refused all the same
    // (documented), while a transpose or every other column is accepted.
    let mut odd = dl(8, 0, &[3, 2], Some(&[2, 3]));
    let e = strided_mut::<2>(&mut odd).unwrap_err();
    assert!(e
        .message()
        .starts_with("tensor written in place may repeat elements: shape [3, 2], strides [2, 3] do not nest"));
    let mut every_other = dl(12, 0, &[3, 2], Some(&[4, 2]));
    assert!(strided_mut::<2>(&mut every_other).is_ok());
    // A zero stride along an extent of 1 repeats nothing.
    let mut one = dl(3, 0, &[1, 3], Some(&[0, 1]));
    assert!(strided_mut::<2>(&mut one).is_ok());
    // Nor does a tensor with no element, whatever its strides (numpy states [4, 1] for
    // zeros((0, 4)), and [0, 1] for zeros((4, 0))).
    for (shape, strides) in [([0, 4], [4, 1]), ([4, 0], [0, 1]), ([0, 0], [0, 0]), ([2, 0], [0, 0])] {
        let mut empty = dl(0, 0, &shape, Some(&strides));
        let t = strided_mut::<2>(&mut empty).unwrap_or_else(|e| panic!("{shape:?} {strides:?}: {}", e.message()));
        assert_eq!(t.iter().count(), 0);
    }
}

#[test]
fn hostile_layouts_are_errors_not_addresses() {
    let out_of_range = |shape: &[i64], strides: &[i64]| {
        let t = dl(4, 0, shape, Some(strides));
        let e = strided::<2>(&t).unwrap_err();
        assert_eq!(e.kind(), "ValueError");
        assert!(e.message().ends_with("address elements outside the address space"), "{}", e.message());
    };
    out_of_range(&[2, 2], &[i64::MAX, 1]); // one reach overflows
    out_of_range(&[3, 2], &[i64::MAX / 2, 1]); // the reaches added overflow
    out_of_range(&[2, 2], &[i64::MAX / 4, i64::MIN / 4]); // a span over isize::MAX bytes
    let e = strided::<2>(&dl(4, 0, &[2, -2], Some(&[1, 1]))).unwrap_err();
    assert!(e.message().contains("negative extent"), "{}", e.message());
    // More elements than an i64 counts: the shape itself is refused, before any address.
    for shape in [[1 << 40, 1 << 40], [1 << 62, 2]] {
        let e = strided::<2>(&dl(4, 0, &shape, Some(&[0, 0]))).unwrap_err();
        assert_eq!(e.kind(), "ValueError");
        assert!(e.message().contains("too many elements"), "{}", e.message());
    }

    // Addresses that wrap around either end of the address space, from a data pointer
    // that is never dereferenced (the check refuses first).
    let at = |address: usize, offset: u64, strides: &[i64]| {
        let mut t = dl(0, 0, &[4], Some(strides));
        t.dl.data = core::ptr::without_provenance_mut(address);
        t.dl.byte_offset = offset;
        strided::<1>(&t).map(|_| ()).unwrap_err().message().to_owned()
    };
    assert!(at(8, 0, &[-1]).ends_with("outside the address space"), "the 4th element below 0");
    assert!(at(usize::MAX - 7, 0, &[1]).ends_with("outside the address space"));
    assert!(at(16, u64::MAX - 3, &[1]).ends_with("outside the address space"), "the offset wraps");
    assert_eq!(at(0, 0, &[1]), "tensor data pointer is null or misaligned");
    assert_eq!(at(4096, 2, &[1]), "tensor data pointer is null or misaligned");
    assert_eq!(at(4098, 0, &[1]), "tensor data pointer is null or misaligned");
}

#[test]
fn dtype_rank_and_device_are_checked_as_for_host_tensors() {
    let mut x = dl(6, 0, &[3, 2], Some(&[1, 3]));
    let e = StridedTensor::<f64, 2>::new(x.view()).unwrap_err();
    let compact = dl(6, 0, &[3, 2], None);
    let same = HostTensor::<f64, 2>::new(compact.view()).unwrap_err();
    assert_eq!((e.kind(), e.message()), (same.kind(), same.message()));
    assert_eq!(
        e.message(),
        "expected a tensor of dtype float64 and rank 2, got dtype float32 and rank 2 (shape [3, 2])"
    );
    assert!(strided::<1>(&x).unwrap_err().message().contains("rank 1, got dtype float32 and rank 2"));
    x.dl.device = Device::new(device_type::CUDA, 0);
    let e = strided::<2>(&x).unwrap_err();
    assert_eq!(e.message(), "tensor data on cuda:0 is not host-accessible");
    assert!(strided_mut::<2>(&mut x).is_err());
}

#[test]
fn an_index_out_of_bounds_panics_at_the_callers_line() {
    // The panic message a user reads on stderr points at their indexing, not into abi-core.
    let t = dl(6, 0, &[2, 3], None);
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let hook = std::panic::take_hook();
    let record = seen.clone();
    std::panic::set_hook(Box::new(move |info| {
        let at = format!("{}: {}", info.location().unwrap().file(), info.payload_as_str().unwrap_or(""));
        record.lock().unwrap().push(at);
    }));
    let x = strided::<2>(&t).unwrap();
    let read = std::panic::catch_unwind(|| x[[2, 0]]);
    let mut t2 = dl(6, 0, &[2, 3], None);
    let mut y = strided_mut::<2>(&mut t2).unwrap();
    let write = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| y[[0, 3]] = 1.0));
    let written = seen.lock().unwrap().clone();
    std::panic::set_hook(hook);
    assert!(read.is_err() && write.is_err());
    assert_eq!(
        written,
        [
            "abi-core/tests/strided_tensors.rs: index [2, 0] is out of bounds for a tensor of dims [2, 3]",
            "abi-core/tests/strided_tensors.rs: index [0, 3] is out of bounds for a tensor of dims [2, 3]",
        ]
    );
}
