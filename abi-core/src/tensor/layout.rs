//! The checked layout of a strided tensor: its dims, its strides in elements (of either
//! sign, or compact row-major when the `DLTensor` states none) and the address of its first
//! element, with every element address proven to lie in one span of at most `isize::MAX`
//! bytes that does not wrap around the address space. What [`StridedTensor`],
//! [`StridedTensorMut`] and the conversions of [`HostTensorAs`] address elements with.
//!
//! [`StridedTensor`]: crate::StridedTensor
//! [`StridedTensorMut`]: crate::StridedTensorMut
//! [`HostTensorAs`]: crate::HostTensorAs

use crate::tensor::{numel_of, TensorView};
use crate::value::error::{Error, Result};

/// A rank-`N` layout whose element offsets were checked (see the module docs).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Layout<const N: usize> {
    /// The extents.
    pub dims: [usize; N],
    /// The strides in elements as the tensor states them (compact row-major when it states
    /// none).
    pub strides: [isize; N],
    /// The strides that address elements: those of extents 0 and 1 are 0, as no step is
    /// ever taken along them.
    pub steps: [isize; N],
    /// The number of elements.
    pub numel: usize,
    /// The address of element `[0; N]` (data plus byte offset); dangling but aligned when
    /// the tensor holds no element.
    pub origin: *mut u8,
}

impl<const N: usize> Layout<N> {
    /// Checks the layout of `view`, whose rank is `N`, for elements of `size` bytes aligned
    /// to `align`: extents and element count, strides that fit `isize`, element offsets
    /// that neither overflow nor leave the address space, a non-null aligned origin.
    pub fn check(view: &TensorView<'_>, size: usize, align: usize) -> Result<Layout<N>> {
        let shape = view.shape();
        debug_assert_eq!(shape.len(), N, "the caller checked the rank");
        let numel = numel_of(shape)?;
        if numel > isize::MAX as usize {
            return Err(out_of_range(view));
        }
        let mut dims = [0usize; N];
        for (d, &s) in dims.iter_mut().zip(shape) {
            *d = s as usize; // not negative: `numel_of` checked
        }
        let mut strides = [0isize; N];
        match view.strides() {
            Some(stated) => {
                for (s, &t) in strides.iter_mut().zip(stated) {
                    // An extent-0 tensor holds nothing to address; its strides are kept
                    // when they fit.
                    *s = match isize::try_from(t) {
                        Ok(t) => t,
                        Err(_) if numel == 0 => 0,
                        Err(_) => return Err(out_of_range(view)),
                    };
                }
            }
            None => {
                let mut next = 1isize;
                for (s, &d) in strides.iter_mut().zip(&dims).rev() {
                    *s = next;
                    next = next.saturating_mul(d as isize);
                }
            }
        }
        let mut steps = [0isize; N];
        let (mut low, mut high) = (0isize, 0isize);
        if numel != 0 {
            for ((step, &stride), &d) in steps.iter_mut().zip(&strides).zip(&dims) {
                if d > 1 {
                    *step = stride;
                    let reach = (d as isize - 1).checked_mul(stride).ok_or_else(|| out_of_range(view))?;
                    let side = if reach < 0 { &mut low } else { &mut high };
                    *side = side.checked_add(reach).ok_or_else(|| out_of_range(view))?;
                }
            }
        }
        // The elements span `low..=high` elements around the origin: in bytes, at most
        // isize::MAX (what pointer offsets and ndarray require), and so is the count.
        let span = high
            .checked_sub(low)
            .and_then(|s| s.checked_add(1))
            .and_then(|s| s.checked_mul(size as isize))
            .ok_or_else(|| out_of_range(view))?;
        let dl = view.dl_tensor();
        if numel == 0 {
            return Ok(Layout { dims, strides, steps, numel, origin: core::ptr::without_provenance_mut(align) });
        }
        let offset = usize::try_from(dl.byte_offset).map_err(|_| out_of_range(view))?;
        let origin = dl.data.cast::<u8>().wrapping_add(offset);
        let base = (dl.data as usize).checked_add(offset);
        // The lowest element starts at base + low * size, the highest ends span bytes on.
        let first = base.and_then(|b| b.checked_sub(low.unsigned_abs() * size));
        if first.and_then(|f| f.checked_add(span as usize)).is_none() {
            return Err(out_of_range(view));
        }
        if dl.data.is_null() || (origin as usize) % align != 0 {
            return Err(Error::value_error("tensor data pointer is null or misaligned"));
        }
        Ok(Layout { dims, strides, steps, numel, origin })
    }

    /// Checks that no two elements share memory, for a tensor written in place: no zero
    /// stride along an extent above 1, and, sorted by magnitude, each stride reaches past
    /// every element the smaller ones address (what a view of one compact array sliced or
    /// transposed has). A layout whose elements are distinct in some other way is refused
    /// too: telling those apart is costlier than a call should pay. A tensor with no
    /// element repeats none, whatever its strides.
    pub fn check_distinct(&self, view: &TensorView<'_>) -> Result<()> {
        if self.numel == 0 {
            return Ok(());
        }
        let mut order = [0usize; N];
        let mut n = 0;
        for (k, (&d, &step)) in self.dims.iter().zip(&self.steps).enumerate() {
            if d > 1 {
                if step == 0 {
                    return Err(shared_elements(view, Some(k)));
                }
                order[n] = k;
                n += 1;
            }
        }
        let order = &mut order[..n];
        order.sort_unstable_by_key(|&k| self.steps[k].unsigned_abs());
        // The furthest any combination of the smaller strides reaches, in elements (within
        // the checked span, so it does not overflow).
        let mut reach = 0usize;
        for &k in order.iter() {
            let step = self.steps[k].unsigned_abs();
            if step <= reach {
                return Err(shared_elements(view, None));
            }
            reach += (self.dims[k] - 1) * step;
        }
        Ok(())
    }

    /// The offset in elements of the element at `index`, or `None` out of bounds.
    #[inline]
    pub fn offset(&self, index: [usize; N]) -> Option<isize> {
        let mut offset = 0isize;
        for ((&i, &d), &step) in index.iter().zip(&self.dims).zip(&self.steps) {
            if i >= d {
                return None;
            }
            // Within the checked span: no overflow.
            offset += i as isize * step;
        }
        Some(offset)
    }

    /// Whether the stated layout is compact row-major, so the elements are one slice.
    pub fn is_row_major(&self) -> bool {
        if self.numel == 0 {
            return true;
        }
        let mut expected = 1isize;
        for (&d, &step) in self.dims.iter().zip(&self.steps).rev() {
            if d > 1 && step != expected {
                return false;
            }
            expected = expected.saturating_mul(d as isize);
        }
        true
    }
}

/// The element offsets of a layout in logical row-major order (the last index fastest).
#[derive(Clone, Debug)]
pub(crate) struct Offsets<const N: usize> {
    dims: [usize; N],
    steps: [isize; N],
    index: [usize; N],
    offset: isize,
    remaining: usize,
}

impl<const N: usize> Offsets<N> {
    pub fn new(layout: &Layout<N>) -> Offsets<N> {
        Offsets { dims: layout.dims, steps: layout.steps, index: [0; N], offset: 0, remaining: layout.numel }
    }
}

impl<const N: usize> Iterator for Offsets<N> {
    type Item = isize;

    #[inline]
    fn next(&mut self) -> Option<isize> {
        if self.remaining == 0 {
            return None;
        }
        self.remaining -= 1;
        let at = self.offset;
        if self.remaining != 0 {
            // Step the last index that can move; rewind the ones after it first, so the
            // offset never leaves the checked span.
            for k in (0..N).rev() {
                if self.index[k] + 1 < self.dims[k] {
                    self.index[k] += 1;
                    self.offset += self.steps[k];
                    break;
                }
                self.offset -= self.index[k] as isize * self.steps[k];
                self.index[k] = 0;
            }
        }
        Some(at)
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl<const N: usize> ExactSizeIterator for Offsets<N> {}

#[cold]
#[inline(never)]
fn out_of_range(view: &TensorView<'_>) -> Error {
    Error::value_error(format!(
        "tensor shape {:?} and strides {:?} address elements outside the address space",
        view.shape(),
        view.strides().unwrap_or_default()
    ))
}

#[cold]
#[inline(never)]
fn shared_elements(view: &TensorView<'_>, zero_stride: Option<usize>) -> Error {
    let (shape, strides) = (view.shape(), view.strides().unwrap_or_default());
    Error::value_error(match zero_stride {
        Some(k) => format!(
            "tensor written in place repeats elements: shape {shape:?}, strides {strides:?} has stride 0 along \
             dimension {k} (a broadcast array); pass a copy"
        ),
        // The cheap test failed: the elements may or may not repeat, so say what it asks.
        None => format!(
            "tensor written in place may repeat elements: shape {shape:?}, strides {strides:?} do not nest (sorted by \
             size, each stride must reach past every element the smaller ones address, as in views of one compact \
             array); pass a copy"
        ),
    })
}
