//! Tensors: `Tensor::from_vec` for every element type, the DLTensor it exposes, typed
//! slices and cells, and the checks on borrowed tensors from hosts (dtype, device,
//! contiguity, alignment, `DLTensor*` arguments). The owner `Vec` is observed through a
//! counting allocator to prove it is freed exactly when the last reference goes.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use abi_core::ffi::type_index as ti;
use abi_core::ffi::{code, device_type};
use abi_core::ObjectHandle;
use abi_core::{
    Any, AnyView, DLTensor, DataType, Device, DeviceTensor, Element, FromArg, HostTensor, RawAny, Tensor, TensorView,
};

/// Counts frees of one distinctive allocation size, so a test can watch its own buffer.
struct CountingAlloc;

/// A byte size no other allocation in this binary uses (small: Miri writes every byte of it).
const WATCHED_SIZE: usize = 10_007;
static WATCHED_FREES: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards every call to the system allocator unchanged.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if layout.size() == WATCHED_SIZE {
            WATCHED_FREES.fetch_add(1, Ordering::SeqCst);
        }
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

fn check_element<T: Element + PartialEq + core::fmt::Debug>(values: [T; 6], code: u8, bits: u8) {
    let t = Tensor::from_vec(values.to_vec(), &[2, 3]).unwrap();
    let v = t.view();
    assert_eq!(v.dtype(), DataType { code, bits, lanes: 1 });
    assert_eq!(T::DTYPE, v.dtype());
    assert_eq!(v.dtype().size_bytes(), core::mem::size_of::<T>());
    assert_eq!(v.device(), Device::CPU);
    assert_eq!(v.ndim(), 2);
    assert_eq!(v.shape(), &[2, 3]);
    assert_eq!(v.strides(), Some(&[3i64, 1][..]));
    assert_eq!(v.numel(), 6);
    assert!(v.is_contiguous());
    assert_eq!(v.as_slice::<T>().unwrap(), &values);
    assert_eq!(v.dl_tensor().byte_offset, 0);
    assert_eq!(v.dl_tensor().data as usize % core::mem::align_of::<T>(), 0);

    let a = Any::from_value(t.clone()).unwrap();
    assert_eq!(a.type_index(), ti::TENSOR);
    let av = a.view();
    let borrowed = <TensorView as FromArg>::from_arg(&av).unwrap();
    assert_eq!(borrowed.as_slice::<T>().unwrap(), &values);
    let copy = borrowed.to_tensor::<T>().unwrap();
    assert_ne!(copy.view().dl_tensor().data, v.dl_tensor().data, "to_tensor copies");
    assert_eq!(copy.view().as_slice::<T>().unwrap(), &values);
    assert_eq!(copy.view().shape(), &[2, 3]);
}

#[test]
fn from_vec_for_every_element_type() {
    check_element::<i8>([i8::MIN, -1, 0, 1, 2, i8::MAX], code::INT, 8);
    check_element::<i16>([i16::MIN, -1, 0, 1, 2, i16::MAX], code::INT, 16);
    check_element::<i32>([i32::MIN, -1, 0, 1, 2, i32::MAX], code::INT, 32);
    check_element::<i64>([i64::MIN, -1, 0, 1, 2, i64::MAX], code::INT, 64);
    check_element::<u8>([0, 1, 2, 3, 4, u8::MAX], code::UINT, 8);
    check_element::<u16>([0, 1, 2, 3, 4, u16::MAX], code::UINT, 16);
    check_element::<u32>([0, 1, 2, 3, 4, u32::MAX], code::UINT, 32);
    check_element::<u64>([0, 1, 2, 3, 4, u64::MAX], code::UINT, 64);
    check_element::<f32>([0.5, -0.0, 1e30, f32::MIN_POSITIVE, f32::INFINITY, 3.0], code::FLOAT, 32);
    check_element::<f64>([0.5, -0.0, 1e300, f64::MIN_POSITIVE, f64::INFINITY, 3.0], code::FLOAT, 64);
}

#[test]
fn dtype_display() {
    assert_eq!(<f32 as Element>::DTYPE.to_string(), "float32");
    assert_eq!(<u16 as Element>::DTYPE.to_string(), "uint16");
    assert_eq!(DataType { code: code::BFLOAT, bits: 16, lanes: 1 }.to_string(), "bfloat16");
    assert_eq!(DataType { code: code::FLOAT, bits: 16, lanes: 4 }.to_string(), "float16x4");
    assert_eq!(DataType { code: code::BOOL, bits: 8, lanes: 1 }.size_bytes(), 1);
    assert_eq!(DataType { code: code::INT, bits: 4, lanes: 3 }.size_bytes(), 2, "bits round up");
    assert_eq!(DataType::new(code::BOOL, 8).to_string(), "bool", "as tvm_ffi and numpy spell it");
    for dtype in [
        DataType::new(code::INT, 8),
        DataType::new(code::UINT, 64),
        DataType::new(code::FLOAT, 16),
        DataType::new(code::BFLOAT, 16),
        DataType::new(code::BOOL, 8),
        DataType::new(code::COMPLEX, 64),
        DataType { code: code::FLOAT, bits: 32, lanes: 4 },
        DataType { code: code::BOOL, bits: 8, lanes: 2 },
    ] {
        assert_eq!(DataType::parse(&dtype.to_string()), Some(dtype), "{dtype}");
    }
    for bad in ["", "float", "f32", "int0", "float32x1", "float32x", "x4", "single"] {
        assert_eq!(DataType::parse(bad), None, "{bad}");
    }
}

#[test]
fn shapes_that_do_not_match_are_errors() {
    for (len, shape) in [(3usize, &[2i64, 2][..]), (4, &[4, 0]), (0, &[1]), (2, &[-1, -2]), (1, &[-1])] {
        let e = Tensor::from_vec(vec![0f32; len], shape).unwrap_err();
        assert_eq!(e.kind(), "ValueError");
        assert_eq!(e.message(), format!("shape {shape:?} does not match {len} elements"));
    }
    // A shape whose element count overflows is a ValueError too (no data can match it).
    let overflow = Tensor::from_vec(vec![0u8; 4], &[i64::MAX, i64::MAX, 4]).unwrap_err();
    assert_eq!(overflow.kind(), "ValueError");
    assert_eq!(overflow.message(), "shape [9223372036854775807, 9223372036854775807, 4] does not match 4 elements");
    // A 0 extent first makes no elements, however large the others.
    let none = Tensor::from_vec(Vec::<f32>::new(), &[0, 1 << 62, 1 << 62]).unwrap();
    assert_eq!(none.view().numel(), 0);
}

#[test]
fn zero_dim_and_empty_tensors() {
    let scalar = Tensor::from_vec(vec![7i32], &[]).unwrap();
    let v = scalar.view();
    assert_eq!((v.ndim(), v.shape(), v.numel()), (0, &[][..], 1));
    assert!(v.is_contiguous());
    assert_eq!(v.as_slice::<i32>().unwrap(), &[7]);

    let empty = Tensor::from_vec(Vec::<f64>::new(), &[3, 0]).unwrap();
    let v = empty.view();
    assert_eq!((v.numel(), v.shape()), (0, &[3i64, 0][..]));
    assert!(v.as_slice::<f64>().unwrap().is_empty());
}

#[test]
fn cells_write_through() {
    let t = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], &[2, 2]).unwrap();
    // SAFETY: no slice of the tensor is in use while the cells are written.
    let cells = unsafe { t.view().as_cells::<f32>() }.unwrap();
    for c in cells {
        c.set(c.get() * 10.0);
    }
    let other_view = t.clone();
    assert_eq!(other_view.view().as_slice::<f32>().unwrap(), &[10.0, 20.0, 30.0, 40.0]);
    // The raw data pointer hosts read sees the same memory.
    // SAFETY: four f32 at the tensor's data pointer, alive with `t`.
    let raw = unsafe { core::slice::from_raw_parts(t.view().dl_tensor().data.cast::<f32>(), 4) };
    assert_eq!(raw, &[10.0, 20.0, 30.0, 40.0]);
    // SAFETY: no other view of this memory is used while `m` lives.
    let m = unsafe { t.view().as_mut_slice::<f32>().unwrap() };
    m[3] = -1.0;
    assert_eq!(t.view().as_slice::<f32>().unwrap()[3], -1.0);
}

#[test]
fn wrong_dtype_is_a_type_error() {
    let t = Tensor::from_vec(vec![1i32, 2], &[2]).unwrap();
    let e = t.view().as_slice::<f32>().unwrap_err();
    assert_eq!((e.kind(), e.message()), ("TypeError", "expected a tensor of float32, got int32"));
    // SAFETY: refused before any cell exists.
    assert!(unsafe { t.view().as_cells::<u32>() }.is_err(), "same size, different type");
    assert!(t.view().to_tensor::<i64>().is_err());
}

/// A host-made tensor: the DLTensor and the memory it points into.
struct Foreign {
    data: Vec<f32>,
    shape: Vec<i64>,
    strides: Option<Vec<i64>>,
    dl: DLTensor,
}

impl Foreign {
    fn new(shape: &[i64], strides: Option<&[i64]>, device: Device) -> Box<Foreign> {
        // Wrapping: a shape with a 0 extent holds no element however large the others.
        let n: i64 = shape.iter().fold(1i64, |n, &d| n.wrapping_mul(d));
        let mut f = Box::new(Foreign {
            data: (0..n.max(1) * 2).map(|i| i as f32).collect(),
            shape: shape.to_vec(),
            strides: strides.map(<[i64]>::to_vec),
            dl: DLTensor {
                data: core::ptr::null_mut(),
                device,
                ndim: shape.len() as i32,
                dtype: DataType { code: code::FLOAT, bits: 32, lanes: 1 },
                shape: core::ptr::null_mut(),
                strides: core::ptr::null_mut(),
                byte_offset: 0,
            },
        });
        f.dl.data = f.data.as_mut_ptr().cast();
        f.dl.shape = f.shape.as_mut_ptr();
        f.dl.strides = f.strides.as_mut().map_or(core::ptr::null_mut(), |s| s.as_mut_ptr());
        f
    }

    fn view(&self) -> TensorView<'_> {
        // SAFETY: the DLTensor and everything it points to live in `self`.
        unsafe { TensorView::from_dl(&self.dl) }
    }
}

#[test]
fn null_strides_are_compact_row_major() {
    let f = Foreign::new(&[2, 3], None, Device::CPU);
    let v = f.view();
    assert_eq!(v.strides(), None);
    assert!(v.is_contiguous());
    assert_eq!(v.as_slice::<f32>().unwrap(), &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
}

#[test]
fn non_contiguous_tensors_have_no_slices() {
    // A transposed 2x3 view: strides (1, 2).
    let f = Foreign::new(&[3, 2], Some(&[1, 3]), Device::CPU);
    let v = f.view();
    assert!(!v.is_contiguous());
    let e = v.as_slice::<f32>().unwrap_err();
    assert_eq!(e.kind(), "ValueError");
    assert_eq!(e.message(), "tensor is not contiguous (row-major compact): shape [3, 2], strides [1, 3]");
    // SAFETY: refused before any cell exists.
    assert!(unsafe { v.as_cells::<f32>() }.is_err());

    // Every other element of a row: stride 2 along the last dimension.
    let f = Foreign::new(&[4], Some(&[2]), Device::CPU);
    assert!(!f.view().is_contiguous());
    assert!(f.view().as_slice::<f32>().is_err());

    // Strides of size-1 dimensions do not matter; explicit row-major strides are compact.
    assert!(Foreign::new(&[1, 3], Some(&[99, 1]), Device::CPU).view().is_contiguous());
    assert!(Foreign::new(&[2, 3], Some(&[3, 1]), Device::CPU).view().is_contiguous());
}

#[test]
fn only_host_accessible_devices_have_slices() {
    for dev in [device_type::CUDA, device_type::ROCM, device_type::VULKAN, device_type::METAL, 999] {
        let f = Foreign::new(&[2], None, Device::new(dev, 0));
        let e = f.view().as_slice::<f32>().unwrap_err();
        assert_eq!(e.kind(), "ValueError");
        assert_eq!(e.message(), format!("tensor data on {} is not host-accessible", Device::new(dev, 0)));
    }
    for dev in [device_type::CPU, device_type::CUDA_HOST, device_type::CUDA_MANAGED] {
        let f = Foreign::new(&[2], None, Device { device_type: dev, device_id: 0 });
        assert_eq!(f.view().as_slice::<f32>().unwrap(), &[0.0, 1.0]);
    }
}

#[test]
fn byte_offset_and_alignment() {
    let mut f = Foreign::new(&[2], None, Device::CPU);
    f.dl.byte_offset = 8;
    assert_eq!(f.view().as_slice::<f32>().unwrap(), &[2.0, 3.0]);
    f.dl.byte_offset = 2;
    let e = f.view().as_slice::<f32>().unwrap_err();
    assert!(e.message().contains("misaligned"), "{}", e.message());
    f.dl.byte_offset = 0;
    f.dl.data = core::ptr::null_mut();
    assert!(f.view().as_slice::<f32>().is_err(), "null data with elements");
    f.shape[0] = 0;
    assert!(f.view().as_slice::<f32>().unwrap().is_empty(), "null data is fine when empty");
}

#[test]
fn dltensor_pointer_arguments() {
    let f = Foreign::new(&[2, 2], None, Device::CPU);
    let raw = RawAny::from_ptr(ti::DL_TENSOR_PTR, core::ptr::from_ref(&f.dl).cast_mut().cast());
    // SAFETY: `f` outlives the view.
    let v = unsafe { AnyView::from_raw(raw) };
    let t = <TensorView as FromArg>::from_arg(&v).unwrap();
    assert_eq!(t.shape(), &[2, 2]);
    assert_eq!(t.as_slice::<f32>().unwrap(), &[0.0, 1.0, 2.0, 3.0]);
    assert!(core::ptr::eq(t.dl_tensor(), &f.dl), "a view, not a copy");
    // A DLTensor* is borrowed: it cannot become an owned value or an owning Tensor.
    assert!(v.to_any().is_err());
    assert_eq!(<Tensor as FromArg>::from_arg(&v).unwrap_err().to_string(), "expected Tensor, got DLTensor*");
    // SAFETY: a null DLTensor* must be rejected before it is read.
    let null = unsafe { AnyView::from_raw(RawAny::from_ptr(ti::DL_TENSOR_PTR, core::ptr::null_mut())) };
    assert!(<TensorView as FromArg>::from_arg(&null).is_err());
    let int = Any::from_value(3i64).unwrap();
    let iv = int.view();
    assert_eq!(<TensorView as FromArg>::from_arg(&iv).unwrap_err().to_string(), "expected Tensor, got int");
}

#[test]
fn owner_vec_is_freed_exactly_once_with_the_last_reference() {
    let data: Vec<u8> = Vec::with_capacity(WATCHED_SIZE);
    let mut data = data;
    data.resize(WATCHED_SIZE, 3);
    let before = WATCHED_FREES.load(Ordering::SeqCst);
    let t = Tensor::from_vec(data, &[WATCHED_SIZE as i64]).unwrap();
    let t2 = t.clone();
    let a = Any::from_value(t.clone()).unwrap();
    drop(t);
    drop(t2);
    assert_eq!(WATCHED_FREES.load(Ordering::SeqCst), before, "still referenced by the Any");
    assert_eq!(a.to::<Tensor>().unwrap().view().as_slice::<u8>().unwrap()[WATCHED_SIZE - 1], 3);
    drop(a);
    assert_eq!(WATCHED_FREES.load(Ordering::SeqCst), before + 1, "freed once, with the last reference");

    // A rejected shape drops the Vec right away.
    let mut bad: Vec<u8> = Vec::with_capacity(WATCHED_SIZE);
    bad.push(1);
    assert!(Tensor::from_vec(bad, &[2]).is_err());
    assert_eq!(WATCHED_FREES.load(Ordering::SeqCst), before + 2);
}

#[test]
fn tensor_handles() {
    let t = Tensor::from_vec(vec![1u16, 2, 3], &[3]).unwrap();
    assert_eq!(format!("{t:?}"), "Tensor(uint16, [3])");
    let obj = t.as_object().clone();
    assert_eq!(Tensor::from_object(obj).unwrap().view().numel(), 3);
    let not = abi_core::Shape::new(&[3]).as_object().clone();
    assert!(Tensor::from_object(not).is_err());
}

#[test]
fn a_zero_extent_tensor_is_contiguous_whatever_its_strides() {
    // numpy 2 exports np.zeros(0) with stride 0 and np.zeros((0, 3)) with strides (0, 1)
    // or (3, 1); none has an element, so none is refused (DLPack's zero-extent rule).
    for (shape, strides) in [(&[0i64][..], &[0i64][..]), (&[0, 3], &[0, 1]), (&[0, 3], &[3, 1]), (&[4, 0], &[7, 9])] {
        let f = Foreign::new(shape, Some(strides), Device::CPU);
        let v = f.view();
        assert!(v.is_contiguous(), "{shape:?} {strides:?}");
        assert_eq!(v.numel(), 0);
        assert_eq!(v.as_slice::<f32>().unwrap(), &[] as &[f32]);
        // SAFETY: no element, so nothing to write.
        assert!(unsafe { v.as_cells::<f32>() }.unwrap().is_empty());
        assert_eq!(v.to_tensor::<f32>().unwrap().view().shape(), shape);
    }
    // A non-empty view with a wrong stride is still refused.
    let f = Foreign::new(&[2, 3], Some(&[0, 1]), Device::CPU);
    assert!(!f.view().is_contiguous());
    // Extents whose product overflows before the 0: still no element (and no overflow panic).
    let f = Foreign::new(&[1 << 62, 1 << 62, 0], None, Device::CPU);
    assert_eq!(f.view().numel(), 0);
    assert_eq!(f.view().as_slice::<f32>().unwrap(), &[] as &[f32]);
}

#[test]
fn devices_print_as_tvm_ffi_names_them() {
    assert_eq!(Device::CPU.to_string(), "cpu:0");
    assert_eq!(Device::new(device_type::CUDA, 1).to_string(), "cuda:1");
    assert_eq!(Device::new(device_type::CUDA_MANAGED, 0).to_string(), "cuda_managed:0");
    assert_eq!(Device::new(999, 2).to_string(), "device type 999:2");
    assert!(Device::new(device_type::CUDA_HOST, 0).is_host_accessible());
    assert!(!Device::new(device_type::ROCM, 0).is_host_accessible());
}

#[test]
fn typed_tensors_check_dtype_rank_device_and_layout() {
    let f = Foreign::new(&[2, 3], None, Device::CPU);
    let t = HostTensor::<f32, 2>::new(f.view()).unwrap();
    assert_eq!((t.as_slice().len(), t.shape(), t.dims(), t.numel()), (6, &[2i64, 3][..], [2usize, 3], 6));
    assert_eq!(t.as_slice()[5], 5.0);

    let e = HostTensor::<f64, 2>::new(f.view()).unwrap_err();
    assert_eq!(e.kind(), "TypeError");
    assert_eq!(
        e.message(),
        "expected a tensor of dtype float64 and rank 2, got dtype float32 and rank 2 (shape [2, 3])"
    );
    let e = HostTensor::<f32, 1>::new(f.view()).unwrap_err();
    assert_eq!(e.kind(), "TypeError");
    assert_eq!(
        e.message(),
        "expected a tensor of dtype float32 and rank 1, got dtype float32 and rank 2 (shape [2, 3])"
    );

    let transposed = Foreign::new(&[3, 2], Some(&[1, 3]), Device::CPU);
    let e = HostTensor::<f32, 2>::new(transposed.view()).unwrap_err();
    assert_eq!(
        (e.kind(), e.message()),
        (
            "ValueError",
            "tensor is not contiguous (row-major compact): shape [3, 2], strides [1, 3] (a StridedTensor parameter \
             takes any strides)"
        )
    );
    let e = DeviceTensor::<f32, 2>::new(transposed.view()).unwrap_err();
    assert_eq!(
        (e.kind(), e.message()),
        ("ValueError", "tensor is not contiguous (row-major compact): shape [3, 2], strides [1, 3]"),
        "device kernels get compact tensors too, and have no strided form"
    );

    // A device tensor: no host access, but dtype, rank and layout are checked and the data
    // pointer (never dereferenced here) is handed over with its byte offset.
    let mut gpu = Foreign::new(&[4], None, Device::new(device_type::CUDA, 1));
    gpu.dl.byte_offset = 8;
    let e = HostTensor::<f32, 1>::new(gpu.view()).unwrap_err();
    assert_eq!((e.kind(), e.message()), ("ValueError", "tensor data on cuda:1 is not host-accessible"));
    let d = DeviceTensor::<f32, 1>::new(gpu.view()).unwrap();
    assert_eq!(d.device().to_string(), "cuda:1");
    assert_eq!(d.data_ptr() as usize, gpu.data.as_ptr() as usize + 8);
    assert_eq!((d.dims(), d.numel()), ([4], 4));
    assert!(DeviceTensor::<i32, 1>::new(gpu.view()).is_err());

    // Zero-size tensors: rank-checked, empty slices, whatever their strides.
    for (shape, strides) in [(&[0i64][..], None), (&[0, 3][..], Some(&[0i64, 1][..])), (&[3, 0][..], Some(&[7, 7][..]))]
    {
        let z = Foreign::new(shape, strides, Device::CPU);
        match shape.len() {
            1 => assert!(HostTensor::<f32, 1>::new(z.view()).unwrap().as_slice().is_empty()),
            _ => assert!(HostTensor::<f32, 2>::new(z.view()).unwrap().as_slice().is_empty()),
        }
    }
}
