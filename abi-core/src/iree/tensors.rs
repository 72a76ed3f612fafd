//! Tensors across an IREE call: a [`HostTensor`] parameter is the `!hal.buffer_view` in its
//! `r` slot, borrowed (its element type and rank checked against the Rust type, its dims
//! read, its buffer mapped for the call); a [`Tensor`] result is copied into a new buffer
//! on the program's device 0 and moved to the program as a new buffer view. HAL element
//! types and DLPack dtypes are mapped here.

use core::sync::atomic::{AtomicUsize, Ordering};

use crate::ffi::{code, DLTensor, DataType, Device};
use crate::iree::buffer::{self, ReadBytes};
use crate::iree::cconv::{single_result, IreeArg, IreeKind, IreeReturn, IreeValue, Slot};
use crate::iree::hal::{Bound, HalCall};
use crate::iree::refs::{RawRef, VmRef};
use crate::iree::status::Failure;
use crate::tensor::typed::wrong_type_message;
use crate::tensor::{numel_of, Element, Tensor, TensorView};
use crate::value::error::Error;
use crate::HostTensor;

/// The registered name of the reference type a tensor travels as.
pub const BUFFER_VIEW: &str = "hal.buffer_view";

// `iree_hal_numerical_type_t` values (the top byte of an element type).
const INTEGER: u32 = 0x10;
const SIGNED: u32 = 0x11;
const UNSIGNED: u32 = 0x12;
const BOOLEAN: u32 = 0x13;
const FLOAT_IEEE: u32 = 0x21;
const FLOAT_BRAIN: u32 = 0x22;
const FLOAT_COMPLEX: u32 = 0x23;

/// The HAL element type of a dtype: integers are signless (`i32` in a program is
/// `INT_32`), unsigned integers `UINT`, floats IEEE or brain; `None` for vectors and
/// opaque handles.
pub const fn element_type(dtype: DataType) -> Option<u32> {
    if dtype.lanes != 1 {
        return None;
    }
    let numerical = match dtype.code {
        code::INT => INTEGER,
        code::UINT => UNSIGNED,
        code::FLOAT => FLOAT_IEEE,
        code::BFLOAT => FLOAT_BRAIN,
        code::BOOL => BOOLEAN,
        code::COMPLEX => FLOAT_COMPLEX,
        _ => return None,
    };
    Some((numerical << 24) | dtype.bits as u32)
}

/// The dtype of a HAL element type, as a parameter expecting `expected` reads it: a
/// signless integer is whichever of the signed and unsigned integers of its width is
/// expected (MLIR's `i32` is both). `None` when DLPack has no such dtype.
pub fn dtype_of(element_type: u32, expected: DataType) -> Option<DataType> {
    let (numerical, bits) = (element_type >> 24, element_type & 0xff);
    let bits = u8::try_from(bits).ok()?;
    let code = match numerical {
        INTEGER if matches!(expected.code, code::INT | code::UINT) && expected.bits == bits => expected.code,
        INTEGER | SIGNED => code::INT,
        UNSIGNED => code::UINT,
        BOOLEAN => code::BOOL,
        FLOAT_IEEE => code::FLOAT,
        FLOAT_BRAIN => code::BFLOAT,
        FLOAT_COMPLEX => code::COMPLEX,
        _ => return None,
    };
    Some(DataType::new(code, bits))
}

/// What a [`HostTensor`] parameter holds during the call: its dims, the `DLTensor` the
/// view points to, and the buffer's bytes (mapped or copied).
#[derive(Debug)]
pub struct TensorHold<const N: usize> {
    shape: [i64; N],
    dl: DLTensor,
    numel: usize,
    _bytes: ReadBytes,
}

impl<'a, T: Element, const N: usize> IreeArg<'a> for HostTensor<'a, T, N> {
    const KIND: IreeKind = IreeKind::Ref;
    type Held = TensorHold<N>;

    #[inline(always)]
    unsafe fn hold(cx: &HalCall<'_>, slot: *const u8) -> Result<TensorHold<N>, Failure> {
        // SAFETY: the caller's contract: a `r` slot of the call.
        let view = unsafe { RawRef::read(slot) };
        // SAFETY: the program passed a live reference (or null) for the call.
        if !unsafe { is_buffer_view(view) } {
            return Err(not_a_buffer_view(view));
        }
        let cx = &cx.bind()?;
        let (element, rank) = (cx.element_type(view)?, cx.rank(view)?);
        if rank != N || dtype_of(element, T::DTYPE) != Some(T::DTYPE) {
            return Err(wrong_tensor(cx, view, T::DTYPE, N, element, rank));
        }
        let mut shape = [0i64; N];
        for (i, d) in shape.iter_mut().enumerate() {
            *d = cx.dim(view, i)?;
        }
        let numel = numel_of(&shape)?;
        let length = byte_length(numel, size_of::<T>())?;
        let buffer = cx.buffer(view)?;
        // SAFETY: a live buffer of this call.
        let bytes = unsafe { buffer::read(cx, buffer, length) }?;
        if !bytes.data().cast::<T>().is_aligned() {
            return Err(misaligned::<T>());
        }
        let dl = DLTensor {
            data: bytes.data().cast_mut().cast(),
            device: Device::CPU,
            ndim: N as i32,
            dtype: T::DTYPE,
            shape: core::ptr::null_mut(),
            strides: core::ptr::null_mut(),
            byte_offset: 0,
        };
        Ok(TensorHold { shape, dl, numel, _bytes: bytes })
    }

    #[inline(always)]
    fn view(held: &'a mut TensorHold<N>) -> Result<HostTensor<'a, T, N>, Failure> {
        held.dl.shape = held.shape.as_mut_ptr();
        let data = match held.numel {
            0 => &[],
            // SAFETY: `hold` mapped (or copied) `numel` elements of `T` at `data`, aligned,
            // alive and unchanged while `held` is (IREE's synchronous calling convention).
            n => unsafe { core::slice::from_raw_parts(held.dl.data.cast::<T>(), n) },
        };
        // SAFETY: the DLTensor and its dims live in `held`, borrowed for 'a; `hold` checked
        // the element type and rank against the buffer view, and the elements are compact.
        unsafe { Ok(HostTensor::from_checked(TensorView::from_dl(&held.dl), data)) }
    }
}

#[cold]
#[inline(never)]
fn misaligned<T>() -> Failure {
    Failure::Error(Error::value_error(format!(
        "the tensor's data is not aligned to {} bytes (a subspan at an odd offset)",
        align_of::<T>()
    )))
}

/// The type of the last reference found to be a `hal.buffer_view`: a type is registered
/// once per process, so later arguments compare one word instead of the name.
static BUFFER_VIEW_TYPE: AtomicUsize = AtomicUsize::new(0);

/// Whether `r` is a non-null `hal.buffer_view`.
///
/// # Safety
/// `r` is null or a live reference.
#[inline(always)]
unsafe fn is_buffer_view(r: RawRef) -> bool {
    if r.ptr.is_null() {
        return false;
    }
    if r.type_ == BUFFER_VIEW_TYPE.load(Ordering::Relaxed) {
        return true;
    }
    // SAFETY: the caller's contract.
    let named = unsafe { r.type_name() } == BUFFER_VIEW.as_bytes();
    if named {
        BUFFER_VIEW_TYPE.store(r.type_, Ordering::Relaxed);
    }
    named
}

/// Bytes of `numel` elements of `size` bytes; an error when that overflows.
#[inline]
fn byte_length(numel: usize, size: usize) -> Result<u64, Failure> {
    match numel.checked_mul(size) {
        Some(n) => Ok(n as u64),
        None => Err(Failure::Error(Error::value_error(format!("{numel} elements of {size} bytes overflow")))),
    }
}

#[cold]
#[inline(never)]
fn not_a_buffer_view(r: RawRef) -> Failure {
    let got = if r.ptr.is_null() {
        "a null reference".to_owned()
    } else {
        // SAFETY: a non-null reference the program passed.
        format!("a `{}`", String::from_utf8_lossy(unsafe { r.type_name() }))
    };
    Failure::Error(Error::type_error(format!("expected a tensor (a `{BUFFER_VIEW}`), got {got}")))
}

/// "expected a tensor of dtype f32 and rank 1, got dtype i32 and rank 2 (shape [2, 3])".
#[cold]
#[inline(never)]
fn wrong_tensor(cx: &Bound<'_>, view: RawRef, want: DataType, rank: usize, element: u32, got_rank: usize) -> Failure {
    let shape: Vec<i64> = (0..got_rank.min(64)).map(|i| cx.dim(view, i).unwrap_or(-1)).collect();
    let got = match dtype_of(element, want) {
        Some(d) => d.to_string(),
        None => format!("of HAL element type {element:#010x}"),
    };
    Failure::Error(wrong_type_message(want, rank, &got, got_rank, &shape))
}

impl IreeValue for Tensor {
    const KIND: IreeKind = IreeKind::Ref;

    fn into_slot(self, cx: &HalCall<'_>) -> Result<Slot, Failure> {
        Ok(Slot::Ref(result_view(cx, self.view())?.into_raw()))
    }
}

single_result!(Tensor);

/// A new buffer view on device 0 holding a copy of `tensor`.
fn result_view(cx: &HalCall<'_>, tensor: TensorView<'_>) -> Result<VmRef, Failure> {
    let dtype = tensor.dtype();
    let Some(element) = element_type(dtype) else {
        return Err(Failure::Error(Error::type_error(format!("a tensor of dtype {dtype} has no IREE element type"))));
    };
    if !tensor.device().is_host_accessible() {
        return Err(Failure::Error(tensor.not_host_accessible()));
    }
    let length = byte_length(numel_of(tensor.shape())?, dtype.size_bytes())?;
    let data = tensor.data_ptr::<u8>()?;
    // SAFETY: a contiguous host tensor of `length` bytes (checked above), alive for the call.
    let data = unsafe { core::slice::from_raw_parts(data, length as usize) };
    let cx = &cx.bind()?;
    let buffer = cx.allocate(length)?;
    // SAFETY: a live buffer of this call, `length` bytes long.
    unsafe { buffer::write(cx, &buffer, data) }?;
    cx.create_view(buffer.raw(), length, element, tensor.shape())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn element_types_and_dtypes_map_both_ways() {
        let f32_ = DataType::new(code::FLOAT, 32);
        let (i32_, u32_) = (DataType::new(code::INT, 32), DataType::new(code::UINT, 32));
        assert_eq!(element_type(f32_), Some(0x2100_0020));
        assert_eq!(element_type(i32_), Some(0x1000_0020));
        assert_eq!(element_type(u32_), Some(0x1200_0020));
        assert_eq!(element_type(DataType::new(code::BFLOAT, 16)), Some(0x2200_0010));
        assert_eq!(element_type(DataType::new(code::BOOL, 8)), Some(0x1300_0008));
        assert_eq!(element_type(DataType { lanes: 4, ..f32_ }), None);
        // Signless integers are what the parameter expects, at the same width only.
        assert_eq!(dtype_of(0x1000_0020, u32_), Some(u32_));
        assert_eq!(dtype_of(0x1000_0020, i32_), Some(i32_));
        assert_eq!(dtype_of(0x1000_0020, f32_), Some(i32_));
        assert_eq!(dtype_of(0x1000_0010, i32_), Some(DataType::new(code::INT, 16)));
        assert_eq!(dtype_of(0x1100_0020, u32_), Some(i32_));
        assert_eq!(dtype_of(0x2100_0040, f32_), Some(DataType::new(code::FLOAT, 64)));
        // FLOAT_8_E5M2 and friends have no DLPack dtype here.
        assert_eq!(dtype_of(0x2400_0008, f32_), None);
    }

    #[test]
    fn byte_lengths_refuse_overflow() {
        assert_eq!(byte_length(6, 4).ok(), Some(24));
        assert_eq!(byte_length(0, 4).ok(), Some(0));
        assert!(byte_length(usize::MAX, 4).is_err());
    }
}
