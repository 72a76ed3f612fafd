//! Integers beyond i64: BigInt objects (78), which tvm-ffi passes for Python ints outside
//! the 64-bit signed range. Read straight from the layout tvm-ffi's `c_api.h` documents
//! ([`BigIntCell`]), so no libtvm_ffi is needed, and made here (with our own deleter, as
//! for every object this runtime creates) for `u64` and `usize` values above `i64::MAX`.

use crate::ffi::type_index as ti;
use crate::ffi::{cell_ptr, BigIntCell, ObjectHeader, RawAny, BIG_INT_WORDS_OFFSET};
use crate::value::any::Any;
use crate::value::conv_error::{ConvError, Number};
use crate::value::error::Error;
use crate::value::object::new_object;

/// The words of the BigInt object `raw` holds, least significant first; `None` for a null
/// handle.
///
/// # Safety
/// `raw` has type index BigInt; a non-null handle is a live BigInt object that outlives
/// the borrow of `raw`.
#[inline]
pub(crate) unsafe fn words(raw: &RawAny) -> Option<&[i64]> {
    debug_assert_eq!(raw.type_index, ti::BIG_INT);
    let obj = raw.ptr().cast::<ObjectHeader>();
    if obj.is_null() {
        return None;
    }
    // SAFETY: a live BigInt object holds its word count in its cell and that many aligned
    // words at `BIG_INT_WORDS_OFFSET`, for as long as the caller borrows it.
    unsafe {
        let size = (*cell_ptr::<BigIntCell>(obj)).size;
        let data = obj.cast::<u8>().add(BIG_INT_WORDS_OFFSET).cast::<i64>();
        Some(core::slice::from_raw_parts(data, size))
    }
}

/// `words` without redundant sign words (tvm-ffi writes none; a foreign writer might).
fn trimmed(words: &[i64]) -> &[i64] {
    let mut n = words.len();
    while n >= 2 && words[n - 1] == words[n - 2] >> 63 {
        n -= 1;
    }
    &words[..n]
}

/// The value, when it fits an i128.
pub(crate) fn to_i128(words: &[i64]) -> Option<i128> {
    match trimmed(words) {
        [] => Some(0),
        [low] => Some(i128::from(*low)),
        [low, high] => Some(i128::from(*high) << 64 | i128::from(*low as u64)),
        _ => None,
    }
}

/// The sign and the magnitude's words, least significant first, without leading zeros.
fn magnitude(words: &[i64]) -> (bool, Vec<u64>) {
    let words = trimmed(words);
    let negative = words.last().is_some_and(|w| *w < 0);
    let mut mag: Vec<u64> = words.iter().map(|&w| w as u64).collect();
    if negative {
        // Two's complement: invert and add one (one more word for the most negative value).
        mag.push(u64::MAX);
        let mut carry = true;
        for w in &mut mag {
            (*w, carry) = (!*w).overflowing_add(u64::from(carry));
        }
    }
    while mag.last() == Some(&0) {
        mag.pop();
    }
    (negative, mag)
}

/// The number of significant bits of a magnitude.
fn bit_len(mag: &[u64]) -> u32 {
    mag.last().map_or(0, |top| 64 * (mag.len() as u32 - 1) + (64 - top.leading_zeros()))
}

/// The value rounded to the nearest f64 (ties to even), as Python's `float(int)`; infinite
/// when it is beyond the largest finite f64.
pub(crate) fn to_f64(words: &[i64]) -> f64 {
    if let Some(v) = to_i128(words) {
        return v as f64;
    }
    let (negative, mag) = magnitude(words);
    let bits = bit_len(&mag);
    let x = if bits > 1024 {
        f64::INFINITY
    } else {
        // The top 128 bits, with every bit below them folded into the lowest one (a sticky
        // bit): converting that rounds exactly as converting the whole value would.
        let shift = bits - 128;
        let bit = |i: u32| (mag[(i / 64) as usize] >> (i % 64)) & 1;
        let top = (shift..bits).rev().fold(0u128, |acc, i| acc << 1 | u128::from(bit(i)));
        let sticky = (0..shift).any(|i| bit(i) != 0);
        // 2**shift, exact: `shift` is at most 896.
        let scale = f64::from_bits(u64::from(shift + 1023) << 52);
        (top | u128::from(sticky)) as f64 * scale
    };
    if negative {
        -x
    } else {
        x
    }
}

/// Widest value named in decimal in messages; a wider one is named by its size.
const DECIMAL_BITS_MAX: u32 = 512;

/// The error of a BigInt argument out of range for `target`, naming its value: exact up to
/// [`DECIMAL_BITS_MAX`] bits, else its size. A value of two words is a [`Number`] like any
/// integer; a wider one's text is built here, on the error path, so that `Number` stays
/// plain data.
#[cold]
#[inline(never)]
pub(crate) fn out_of_range(words: &[i64], target: &'static str) -> ConvError {
    if let Some(v) = to_i128(words) {
        return ConvError::OutOfRange { value: Number::Int(v), target };
    }
    let value = wide_text(words);
    ConvError::from(Error::value_error(format!("{value} is out of range for {target}")))
}

/// How a value wider than 128 bits is named: its decimal digits, or past
/// [`DECIMAL_BITS_MAX`] bits its size.
fn wide_text(words: &[i64]) -> String {
    let (negative, mut mag) = magnitude(words);
    let bits = bit_len(&mag);
    if bits > DECIMAL_BITS_MAX {
        let what = if negative { "a negative integer" } else { "an integer" };
        return format!("{what} of {bits} bits");
    }
    // Nineteen decimal digits at a time, least significant first.
    const CHUNK: u128 = 10_000_000_000_000_000_000;
    let mut chunks = Vec::new();
    while !mag.is_empty() {
        let mut rem = 0u128;
        for w in mag.iter_mut().rev() {
            let cur = rem << 64 | u128::from(*w);
            *w = (cur / CHUNK) as u64;
            rem = cur % CHUNK;
        }
        chunks.push(rem as u64);
        while mag.last() == Some(&0) {
            mag.pop();
        }
    }
    let sign = if negative { "-" } else { "" };
    let mut text = format!("{sign}{}", chunks.pop().unwrap_or(0));
    for chunk in chunks.iter().rev() {
        text.push_str(&format!("{chunk:019}"));
    }
    text
}

/// Two words, the cell of every BigInt made here (a value beyond i64 and within i128).
#[repr(C)]
struct TwoWords {
    cell: BigIntCell,
    words: [i64; 2],
}

/// An integer beyond i64 (at most `u64::MAX` from the conversions) as a new BigInt object
/// of two words, the canonical form tvm-ffi gives every such value.
#[cold]
#[inline(never)]
pub(crate) fn big_int_any(v: i128) -> Any {
    debug_assert!(i64::try_from(v).is_err(), "{v} fits an Int");
    let cell = TwoWords { cell: BigIntCell { size: 2 }, words: [v as i64, (v >> 64) as i64] };
    Any::from(new_object(ti::BIG_INT, cell))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trims_only_redundant_sign_words() {
        assert_eq!(trimmed(&[5, 0, 0]), &[5]);
        assert_eq!(trimmed(&[-5, -1]), &[-5]);
        assert_eq!(trimmed(&[i64::MIN, 0]), &[i64::MIN, 0]);
        assert_eq!(trimmed(&[i64::MAX, -1]), &[i64::MAX, -1]);
    }

    #[test]
    fn magnitudes_of_negative_values() {
        assert_eq!(magnitude(&[i64::MAX, -1]), (true, vec![1u64 << 63 | 1]));
        assert_eq!(magnitude(&[0, i64::MIN]), (true, vec![0, 1 << 63]));
        assert_eq!(magnitude(&[0, 0, -1]), (true, vec![0, 0, 1]));
    }
}
