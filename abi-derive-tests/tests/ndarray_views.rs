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

/// A `DLTensor` of f64 over `data` with `shape` and `strides`, `offset` elements in.
struct Strided {
    dl: abi_core::DLTensor,
    // Vecs, not boxes: moving a box into the struct would invalidate the pointers taken.
    _dims: Vec<i64>,
    _strides: Vec<i64>,
}

impl Strided {
    fn new(data: *mut f64, offset: u64, shape: &[i64], strides: &[i64]) -> Strided {
        let (mut dims, mut steps) = (shape.to_vec(), strides.to_vec());
        let dl = abi_core::DLTensor {
            data: data.cast(),
            device: abi_core::Device::CPU,
            ndim: shape.len() as i32,
            dtype: <f64 as abi_core::Element>::DTYPE,
            shape: dims.as_mut_ptr(),
            strides: steps.as_mut_ptr(),
            byte_offset: offset * 8,
        };
        Strided { dl, _dims: dims, _strides: steps }
    }

    fn view(&self) -> abi_core::TensorView<'_> {
        // SAFETY: the DLTensor and its arrays live in `self`; the data outlives the tests'
        // uses of the view.
        unsafe { abi_core::TensorView::from_dl(&self.dl) }
    }
}

#[test]
fn strided_views_have_the_tensors_strides_negative_ones_included() {
    use abi_core::{StridedTensor, StridedTensorMut};
    use ndarray::{s, Array, Ix1};
    // base = arange(12).reshape(3, 4); each case is a numpy view of it and ndarray's same view.
    let base = Array::from_iter((0..12).map(f64::from)).into_shape_with_order((3, 4)).unwrap();
    let mut data = base.clone().into_raw_vec_and_offset().0;
    let ptr = data.as_mut_ptr();
    let cases = [
        (Strided::new(ptr, 0, &[4, 3], &[1, 4]), base.t()), // x.T
        (Strided::new(ptr, 0, &[3, 2], &[4, 2]), base.slice(s![.., ..;2])), // x[:, ::2]
        (Strided::new(ptr, 8, &[3, 4], &[-4, 1]), base.slice(s![..;-1, ..])), // x[::-1]
        (Strided::new(ptr, 11, &[3, 2], &[-4, -3]), base.slice(s![..;-1, ..;-3])), // x[::-1, ::-3]
    ];
    for (tensor, want) in &cases {
        let t = StridedTensor::<f64, 2>::new(tensor.view()).unwrap();
        let a = t.as_array();
        assert_eq!(a, *want);
        assert_eq!(a.strides(), want.strides(), "the same strides, signs included");
        assert_eq!(a.iter().copied().collect::<Vec<_>>(), t.iter().copied().collect::<Vec<_>>());
    }
    // A broadcast row (stride 0) reads; a 0-size tensor is an empty array of its dims.
    let row = Strided::new(ptr, 4, &[2, 4], &[0, 1]);
    let a = StridedTensor::<f64, 2>::new(row.view()).unwrap();
    assert_eq!(a.as_array(), base.slice(s![1..2, ..]).broadcast((2, 4)).unwrap());
    let empty = Strided::new(ptr, 0, &[0], &[0]);
    assert_eq!(StridedTensor::<f64, 1>::new(empty.view()).unwrap().as_array().dim(), 0);
    let _: ndarray::ArrayView<'_, f64, Ix1> = StridedTensor::<f64, 1>::new(empty.view()).unwrap().as_array();

    // Written through a reversed, stepped view: x[::-1, ::2] += 100.
    let out = Strided::new(ptr, 8, &[3, 2], &[-4, 2]);
    // SAFETY: nothing else reads or writes `data` while the tensor lives.
    let mut t = unsafe { StridedTensorMut::<f64, 2>::new(out.view()) }.unwrap();
    assert_eq!(t.as_array(), base.slice(s![..;-1, ..;2]));
    t.as_array_mut().map_inplace(|v| *v += 100.0);
    let mut want = base.clone();
    want.slice_mut(s![..;-1, ..;2]).map_inplace(|v| *v += 100.0);
    assert_eq!(data, want.into_raw_vec_and_offset().0);
}

#[test]
fn from_ndarray_moves_standard_layouts_and_copies_the_others() {
    use ndarray::{s, Array, Array2, Axis, ShapeBuilder};
    let data_of = |t: &Tensor| t.view().dl_tensor().data as usize;
    // Row-major: the buffer moves in.
    let a = Array::from_shape_vec((2, 3), vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
    let at = a.as_ptr() as usize;
    let t = Tensor::from_ndarray(a).unwrap();
    assert_eq!((data_of(&t), t.view().shape(), t.view().strides()), (at, &[2i64, 3][..], Some(&[3i64, 1][..])));
    assert_eq!(t.view().as_slice::<f32>().unwrap(), [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    assert_eq!(t.view().dl_tensor().byte_offset, 0);
    // Rows sliced off in place: still standard layout, its first element at an offset in
    // the moved buffer.
    let mut a = Array::from_shape_vec((3, 2), vec![1i64, 2, 3, 4, 5, 6]).unwrap();
    a.slice_axis_inplace(Axis(0), (1..).into());
    let at = a.as_ptr() as usize;
    let t = Tensor::from_ndarray(a).unwrap();
    assert_eq!((data_of(&t), t.view().shape()), (at, &[2i64, 2][..]));
    assert_eq!(t.view().as_slice::<i64>().unwrap(), [3, 4, 5, 6]);
    // Column-major, transposed, reversed and stepped arrays are copied row-major.
    let f = Array::from_shape_vec((2, 3).f(), vec![1.0f64, 4.0, 2.0, 5.0, 3.0, 6.0]).unwrap();
    let t = Tensor::from_ndarray(f).unwrap();
    assert_eq!(t.view().as_slice::<f64>().unwrap(), [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let r = Array::from_iter(0..6u8).into_shape_with_order((2, 3)).unwrap().slice_move(s![..;-1, ..;2]);
    let t = Tensor::from_ndarray(r).unwrap();
    assert_eq!((t.view().shape(), t.view().as_slice::<u8>().unwrap()), (&[2i64, 2][..], &[3u8, 5, 0, 2][..]));
    // Empty, and rank 0.
    let t = Tensor::from_ndarray(Array2::<f32>::zeros((0, 3))).unwrap();
    assert_eq!((t.view().shape(), t.view().numel()), (&[0i64, 3][..], 0));
    let t = Tensor::from_ndarray(ndarray::arr0(7i32)).unwrap();
    assert_eq!((t.view().shape(), t.view().as_slice::<i32>().unwrap()), (&[][..], &[7][..]));
}
