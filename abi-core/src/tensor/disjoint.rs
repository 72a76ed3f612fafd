//! Whether two tensors whose byte ranges intersect still share no byte: interleaved views
//! of one array (`x[:, ::2]` and `x[:, 1::2]`), rows of one matrix against its columns'
//! gaps. The shim's overlap check asks only when the ranges meet.
//!
//! An element of `a` and one of `b` overlap when `-size_a < addr_b - addr_a < size_b`,
//! and `addr_b - addr_a = D + sum(c_k * t_k)`: `D` the distance between the first elements,
//! one term per dimension of either tensor (its byte stride, the index a bounded integer).
//! Terms of equal stride merge (their index ranges add), which turns two views with the
//! same steps into one range per dimension; the search then picks the index of the largest
//! stride first, keeping the values the smaller strides can still reach, so nested strides
//! (views of one compact array) leave one or two candidates per dimension. It answers
//! "disjoint" only when it proves it, and gives up (overlap) past a fixed amount of work or
//! on layouts it does not model, as numpy's `may_share_memory` does.

use crate::tensor::TensorView;

/// The most dimensions of both tensors together that the search models.
const MAX_TERMS: usize = 16;
/// The most candidate indices the search tries before it gives up.
const MAX_WORK: u32 = 512;

/// Whether no byte of an element of `a` is a byte of an element of `b`, proven; `false`
/// when they share one or when the search cannot tell. Both tensors hold elements and
/// their layouts were described by valid `DLTensor`s (their extents are not negative).
pub(crate) fn disjoint(a: &TensorView<'_>, b: &TensorView<'_>) -> bool {
    let (Some(size_a), Some(size_b)) = (item_size(a), item_size(b)) else { return false };
    let mut terms = Terms { c: [0; MAX_TERMS], lo: [0; MAX_TERMS], hi: [0; MAX_TERMS], n: 0 };
    // addr_b - addr_a: `b`'s strides count up, `a`'s down.
    if !terms.add(b, size_b, 1) || !terms.add(a, size_a, -1) {
        return false;
    }
    // Each term within 2^100 bytes either way, so no sum of 16 of them, with the distance
    // and the sizes, leaves i128; a layout beyond that (no real one) is not modelled.
    let bounded =
        |k: usize| terms.c[k].checked_mul(terms.lo[k].abs().max(terms.hi[k].abs())).is_some_and(|m| m <= 1 << 100);
    if !(0..terms.n).all(bounded) {
        return false;
    }
    terms.sort();
    let distance = base(b) - base(a);
    let mut search = Search { terms: &terms, low: [0; MAX_TERMS + 1], high: [0; MAX_TERMS + 1], work: MAX_WORK };
    for k in (0..terms.n).rev() {
        search.low[k] = search.low[k + 1] + terms.c[k] * terms.lo[k];
        search.high[k] = search.high[k + 1] + terms.c[k] * terms.hi[k];
    }
    // Some sum of terms in the open interval (-size_a - D, size_b - D) is an overlap.
    !search.reaches(0, -size_a - distance, size_b - distance)
}

/// The bytes of one element, when its dtype has whole bytes.
fn item_size(t: &TensorView<'_>) -> Option<i128> {
    let dtype = t.dtype();
    let bits = u32::from(dtype.bits) * u32::from(dtype.lanes);
    (bits != 0 && bits % 8 == 0).then_some(i128::from(bits / 8))
}

/// The address of the element at index 0.
fn base(t: &TensorView<'_>) -> i128 {
    let dl = t.dl_tensor();
    dl.data as usize as i128 + i128::from(dl.byte_offset)
}

/// The terms `c_k * t_k` with `lo_k <= t_k <= hi_k` and `c_k > 0`, distinct `c_k`.
struct Terms {
    c: [i128; MAX_TERMS],
    lo: [i128; MAX_TERMS],
    hi: [i128; MAX_TERMS],
    n: usize,
}

impl Terms {
    /// Adds one term per dimension of `t` that moves (extent above 1, stride not 0), its
    /// byte stride times `sign`; `false` when there are too many to model.
    fn add(&mut self, t: &TensorView<'_>, size: i128, sign: i128) -> bool {
        let (shape, strides) = (t.shape(), t.strides());
        let mut compact = 1i128;
        for k in (0..shape.len()).rev() {
            let extent = i128::from(shape[k]);
            let stride = match strides {
                Some(s) => i128::from(s[k]),
                None => compact,
            };
            compact *= extent.max(1);
            if extent > 1 && stride != 0 {
                let c = stride * size * sign;
                let (c, lo, hi) = if c > 0 { (c, 0, extent - 1) } else { (-c, 1 - extent, 0) };
                if !self.merge(c, lo, hi) {
                    return false;
                }
            }
            if compact > i128::from(i64::MAX) {
                return false;
            }
        }
        true
    }

    fn merge(&mut self, c: i128, lo: i128, hi: i128) -> bool {
        for k in 0..self.n {
            if self.c[k] == c {
                self.lo[k] += lo;
                self.hi[k] += hi;
                return true;
            }
        }
        if self.n == MAX_TERMS {
            return false;
        }
        (self.c[self.n], self.lo[self.n], self.hi[self.n]) = (c, lo, hi);
        self.n += 1;
        true
    }

    /// Largest stride first.
    fn sort(&mut self) {
        for i in 1..self.n {
            let mut j = i;
            while j > 0 && self.c[j - 1] < self.c[j] {
                self.c.swap(j - 1, j);
                self.lo.swap(j - 1, j);
                self.hi.swap(j - 1, j);
                j -= 1;
            }
        }
    }
}

struct Search<'t> {
    terms: &'t Terms,
    /// `low[k]`, `high[k]`: the least and greatest sum of terms `k..`.
    low: [i128; MAX_TERMS + 1],
    high: [i128; MAX_TERMS + 1],
    work: u32,
}

impl Search<'_> {
    /// Whether some sum of terms `k..` lies strictly between `lo` and `hi` (or the work ran
    /// out, which counts as yes).
    fn reaches(&mut self, k: usize, lo: i128, hi: i128) -> bool {
        if self.high[k] <= lo || self.low[k] >= hi {
            return false;
        }
        if k == self.terms.n {
            return true; // the empty sum, 0, lies in between
        }
        let (c, rest_low, rest_high) = (self.terms.c[k], self.low[k + 1], self.high[k + 1]);
        // c * t must lie strictly between lo - rest_high and hi - rest_low.
        let first = (lo - rest_high).div_euclid(c) + 1;
        let last = (hi - rest_low - 1).div_euclid(c);
        let (first, last) = (first.max(self.terms.lo[k]), last.min(self.terms.hi[k]));
        let mut t = first;
        while t <= last {
            if self.work == 0 {
                return true;
            }
            self.work -= 1;
            if self.reaches(k + 1, lo - c * t, hi - c * t) {
                return true;
            }
            t += 1;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::disjoint;
    use crate::ffi::{DLTensor, DataType, Device};
    use crate::tensor::TensorView;

    fn dl(offset: u64, shape: &mut [i64], strides: &mut [i64], bits: u8) -> DLTensor {
        DLTensor {
            // Never read: only addresses are compared.
            data: core::ptr::without_provenance_mut(4096),
            device: Device::CPU,
            ndim: shape.len() as i32,
            dtype: DataType::new(crate::ffi::code::FLOAT, bits),
            shape: shape.as_mut_ptr(),
            strides: strides.as_mut_ptr(),
            byte_offset: offset,
        }
    }

    /// Every byte of every element, the brute-force answer.
    fn bytes(shape: &[i64], strides: &[i64], offset: i64, size: i64) -> Vec<i64> {
        let mut out = Vec::new();
        let numel: i64 = shape.iter().product();
        for flat in 0..numel {
            let (mut rest, mut at) = (flat, offset);
            for k in (0..shape.len()).rev() {
                at += (rest % shape[k]) * strides[k] * size;
                rest /= shape[k];
            }
            out.extend(at..at + size);
        }
        out
    }

    struct Case {
        shape: Vec<i64>,
        strides: Vec<i64>,
        offset: u64,
        bits: u8,
    }

    /// The search's answer, checked against the brute-force one: never "disjoint" for
    /// tensors sharing a byte; returns (answer, whether they share one).
    fn check(a: &mut Case, b: &mut Case) -> (bool, bool) {
        let (da, db) =
            (dl(a.offset, &mut a.shape, &mut a.strides, a.bits), dl(b.offset, &mut b.shape, &mut b.strides, b.bits));
        // SAFETY: the DLTensors and their arrays outlive the views; no element is read.
        let (va, vb) = unsafe { (TensorView::from_dl(&da), TensorView::from_dl(&db)) };
        let answer = disjoint(&va, &vb);
        let ba = bytes(&a.shape, &a.strides, a.offset as i64, i64::from(a.bits / 8));
        let bb = bytes(&b.shape, &b.strides, b.offset as i64, i64::from(b.bits / 8));
        let shared = ba.iter().any(|x| bb.contains(x));
        assert!(!(answer && shared), "claimed disjoint but sharing: {:?} {:?}", a.shape, b.shape);
        (answer, shared)
    }

    fn proven(a: &mut Case, b: &mut Case) -> bool {
        check(a, b).0
    }

    fn case(shape: &[i64], strides: &[i64], offset: u64, bits: u8) -> Case {
        Case { shape: shape.to_vec(), strides: strides.to_vec(), offset, bits }
    }

    #[test]
    fn interleaved_views_of_one_array_are_disjoint() {
        // x of shape (3, 5) float32, row stride 5: x[:, ::2] and x[:, 1::2].
        assert!(proven(&mut case(&[3, 3], &[5, 2], 100, 32), &mut case(&[3, 2], &[5, 2], 104, 32)));
        // ...and both ways round, with even rows too.
        assert!(proven(&mut case(&[4, 2], &[4, 2], 104, 32), &mut case(&[4, 2], &[4, 2], 100, 32)));
        // x[::2] and x[1::2] (rows), x[:, ::-2] against x[:, -2::-2].
        assert!(proven(&mut case(&[2, 4], &[8, 1], 0, 64), &mut case(&[2, 4], &[8, 1], 32, 64)));
        assert!(proven(&mut case(&[3, 2], &[4, -2], 12, 32), &mut case(&[3, 2], &[4, -2], 8, 32)));
        // A column against the other columns' cells: x[:, 0] and x[:, 1:].
        assert!(proven(&mut case(&[3], &[4], 0, 32), &mut case(&[3, 3], &[4, 1], 4, 32)));
        // A transposed view of x against x[:, 1::2] shares cells.
        assert!(!proven(&mut case(&[4, 3], &[1, 4], 0, 32), &mut case(&[3, 2], &[4, 2], 4, 32)));
        // x[:, ::2] against x[:, 2::2] shares all but a column.
        assert!(!proven(&mut case(&[3, 3], &[5, 2], 0, 32), &mut case(&[3, 2], &[5, 2], 8, 32)));
    }

    #[test]
    fn element_sizes_count_bytes_not_elements() {
        // float64 over every other 4-byte slot would cover the gaps.
        assert!(!proven(&mut case(&[4], &[2], 0, 32), &mut case(&[1], &[1], 4, 64)));
        assert!(proven(&mut case(&[4], &[2], 0, 32), &mut case(&[1], &[1], 4, 32)));
    }

    #[test]
    fn hostile_layouts_end_within_the_work_bound() {
        let (mut sa, mut sb) = ([7i64, 11], [7i64, 11]);
        let (mut a, mut b) = ([1i64 << 30, 1 << 30], [1i64 << 30, 1 << 30]);
        let (da, db) = (dl(0, &mut a, &mut sa, 32), dl(4, &mut b, &mut sb, 32));
        // SAFETY: as in `check`.
        let (va, vb) = unsafe { (TensorView::from_dl(&da), TensorView::from_dl(&db)) };
        // 7 * -3 + 11 * 2 = 1: they share elements, found or given up on, never "disjoint".
        assert!(!disjoint(&va, &vb));
        let mut huge = [i64::MAX, i64::MIN + 1];
        let mut shape = [2i64, 2];
        let dh = dl(0, &mut shape, &mut huge, 64);
        // SAFETY: as above.
        let vh = unsafe { TensorView::from_dl(&dh) };
        assert!(!disjoint(&vh, &vh), "no overflow, and a tensor shares its own bytes");
        // Extents and strides whose products leave i128: given up on, not overflowed.
        let (mut big, mut steps) = ([i64::MAX], [i64::MAX]);
        let db = dl(0, &mut big, &mut steps, 64);
        // SAFETY: as above.
        let vb = unsafe { TensorView::from_dl(&db) };
        assert!(!disjoint(&vb, &vh));
    }

    #[test]
    fn random_small_layouts_are_told_apart_exactly() {
        // A fixed linear congruential sequence: small shapes, strides of either sign.
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: i64| {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            ((seed >> 33) % n as u64) as i64
        };
        // Under Miri (the search has no unsafe code; the interpreter takes minutes) a few.
        let rounds = if cfg!(miri) { 40 } else { 3000 };
        let (mut disjoint, mut proven) = (0, 0);
        for _ in 0..rounds {
            let make = |next: &mut dyn FnMut(i64) -> i64| {
                let rank = 1 + next(3) as usize;
                let shape: Vec<i64> = (0..rank).map(|_| 1 + next(4)).collect();
                let strides: Vec<i64> = (0..rank).map(|_| next(13) - 6).collect();
                // Room for negative strides below the origin.
                case(&shape, &strides, 200 + 4 * next(16) as u64, 32)
            };
            let (mut a, mut b) = (make(&mut next), make(&mut next));
            let (answer, shared) = check(&mut a, &mut b);
            disjoint += usize::from(!shared);
            proven += usize::from(answer);
        }
        // Layouts this small stay within the work bound: every disjoint pair is proven.
        assert!(disjoint > rounds / 3, "the sequence makes disjoint pairs: {disjoint}");
        assert_eq!(proven, disjoint);
    }
}
