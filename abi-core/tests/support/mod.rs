//! What the tensor tests share: a `DLTensor` over memory the test owns, stating the shape
//! and strides numpy (or a hostile host) would.

// Each test binary that includes this module uses part of it.
#![allow(dead_code)]

use abi_core::{DLTensor, DataType, Device, TensorView};

/// A `DLTensor` of dtype `dtype` over its own 8-byte aligned buffer, with `shape` and
/// `strides` (in elements; `None` states none, compact row-major) and an offset in elements.
pub struct RawTensor {
    bytes: Vec<u64>,
    shape: Vec<i64>,
    strides: Option<Vec<i64>>,
    /// The tensor as a host sees it; tests may point it elsewhere.
    pub dl: DLTensor,
}

impl RawTensor {
    /// The tensor over a copy of `values` (elements of `S`, at most 8 bytes each), `offset`
    /// elements in.
    pub fn new<S: Copy>(
        values: &[S],
        dtype: DataType,
        shape: &[i64],
        strides: Option<&[i64]>,
        offset: u64,
    ) -> Box<RawTensor> {
        assert!(core::mem::align_of::<S>() <= 8);
        let len = core::mem::size_of_val(values).div_ceil(8);
        let mut r = Box::new(RawTensor {
            bytes: vec![0; len.max(1)],
            shape: shape.to_vec(),
            strides: strides.map(<[i64]>::to_vec),
            dl: DLTensor {
                data: core::ptr::null_mut(),
                device: Device::CPU,
                ndim: shape.len() as i32,
                dtype,
                shape: core::ptr::null_mut(),
                strides: core::ptr::null_mut(),
                byte_offset: offset * core::mem::size_of::<S>() as u64,
            },
        });
        // SAFETY: `bytes` has room for `values`, and is aligned for any S up to 8 bytes.
        unsafe { core::ptr::copy_nonoverlapping(values.as_ptr(), r.bytes.as_mut_ptr().cast::<S>(), values.len()) };
        r.dl.data = r.bytes.as_mut_ptr().cast();
        r.dl.shape = r.shape.as_mut_ptr();
        r.dl.strides = r.strides.as_mut().map_or(core::ptr::null_mut(), |s| s.as_mut_ptr());
        r
    }

    /// The first `n` elements of the buffer, as `S` (what a kernel wrote, say).
    pub fn elements<S: Copy>(&self, n: usize) -> Vec<S> {
        assert!(n * core::mem::size_of::<S>() <= self.bytes.len() * 8);
        // SAFETY: in bounds (checked above) and aligned; S is plain data the test chose.
        unsafe { core::slice::from_raw_parts(self.bytes.as_ptr().cast::<S>(), n) }.to_vec()
    }

    /// The tensor as a view.
    pub fn view(&self) -> TensorView<'_> {
        // SAFETY: the DLTensor and what it points to live in `self`.
        unsafe { TensorView::from_dl(&self.dl) }
    }
}
