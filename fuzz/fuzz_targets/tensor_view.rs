//! A `TensorView` and the typed views over it (`HostTensor`, `StridedTensor`,
//! `DeviceTensor`, `to_tensor`) built from a `DLTensor` with arbitrary shape, strides,
//! byte offset, dtype and device, whose data pointer is valid for every byte it states,
//! as the contract requires of hosts: a value or an error, never undefined behaviour
//! (AddressSanitizer watches each read) or a panic. Inputs stating more than 1 MiB are
//! skipped (no host could pass one here), and views of more than 2^20 elements are not
//! iterated (a broadcast view of 2^40 elements takes long, rightly).
#![no_main]

use abi_core::{DLTensor, DataType, Device, DeviceTensor, HostTensor, StridedTensor, TensorView};
use libfuzzer_sys::arbitrary::{self, Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
struct Input {
    shape: Vec<i64>,
    strides: Option<Vec<i64>>,
    byte_offset: u8,
    code: u8,
    bits: u8,
    lanes: u16,
    device_type: i32,
    device_id: i32,
}

/// The bytes the tensor's elements span relative to `data + byte_offset`, as
/// `(low, high)`, `None` for no element; `Err` beyond the cap.
fn stated(shape: &[i64], strides: Option<&[i64]>, item: i128) -> Result<Option<(i128, i128)>, ()> {
    if shape.iter().any(|&dim| dim <= 0) {
        return Ok(None);
    }
    // Compact row-major strides where none are given.
    let mut compact = vec![0i128; shape.len()];
    let mut acc = 1i128;
    for i in (0..shape.len()).rev() {
        compact[i] = acc;
        acc = acc.saturating_mul(i128::from(shape[i]));
    }
    let (mut low, mut high) = (0i128, 0i128);
    for (i, &dim) in shape.iter().enumerate() {
        let stride = strides.map_or(compact[i], |s| i128::from(s[i]));
        let reach = (i128::from(dim) - 1).saturating_mul(stride).saturating_mul(item);
        if reach < 0 {
            low = low.saturating_add(reach);
        } else {
            high = high.saturating_add(reach);
        }
    }
    if high.saturating_sub(low).saturating_add(item) > 1 << 20 {
        return Err(());
    }
    Ok(Some((low, high + item)))
}

fn run(input: Input) {
    let ndim = input.shape.len();
    if ndim > 6 {
        return;
    }
    let mut shape = input.shape;
    let mut strides = input.strides.map(|mut s| {
        s.resize(ndim, 1);
        s
    });
    let dtype = DataType { code: input.code, bits: input.bits, lanes: input.lanes };
    let item = ((i128::from(input.bits) * i128::from(input.lanes) + 7) / 8).max(1);
    let byte_offset = i128::from(input.byte_offset);
    let Ok(range) = stated(&shape, strides.as_deref(), item) else { return };
    // A buffer holding every stated byte, `data` inside it.
    let (pad, len) = match range {
        Some((low, high)) => {
            let pad = (-(byte_offset + low)).max(0);
            (pad, pad + byte_offset + high)
        }
        None => (0, byte_offset),
    };
    let len = len as usize;
    let mut buffer = vec![0u64; len.div_ceil(8) + 1];
    // SAFETY: `pad` is within the buffer (`len` counts it).
    let data = unsafe { buffer.as_mut_ptr().cast::<u8>().add(pad as usize) };
    let dl = DLTensor {
        data: data.cast(),
        device: Device { device_type: input.device_type, device_id: input.device_id },
        ndim: ndim as i32,
        dtype,
        shape: shape.as_mut_ptr(),
        strides: strides.as_mut().map_or(core::ptr::null_mut(), |s| s.as_mut_ptr()),
        byte_offset: byte_offset as u64,
    };
    // SAFETY: `dl`, its shape and strides, and every byte it states live to the end.
    let view = unsafe { TensorView::from_dl(&dl) };
    let _ = (view.numel(), view.is_contiguous(), view.byte_range(), view.ndim(), view.device());
    let _ = view.as_slice::<u8>().map(|s| s.iter().map(|&b| u64::from(b)).sum::<u64>());
    let _ = view.as_slice::<f32>().map(|s| s.iter().sum::<f32>());
    let _ = view.as_slice::<i64>().map(|s| s.iter().fold(0i64, |a, &b| a.wrapping_add(b)));
    let _ = view.to_tensor::<f32>();
    let _ = view.to_tensor::<u8>();
    let _ = HostTensor::<f32, 1>::new(view).map(|t| t.as_slice().iter().sum::<f32>());
    let _ = HostTensor::<u16, 2>::new(view).map(|t| t.as_slice().len());
    let _ = DeviceTensor::<f32, 2>::new(view).map(|t| t.dims());
    // Zero strides state few bytes for many elements (a broadcast view): visiting each of
    // 2^40 elements is slow, not wrong, so the visits are kept to views of at most 2^20.
    let elements = shape.iter().fold(1u128, |n, &d| n.saturating_mul(d.max(0) as u128));
    if elements <= 1 << 20 {
        let _ = StridedTensor::<f32, 2>::new(view).map(|t| t.iter().sum::<f32>());
        let _ = StridedTensor::<u8, 3>::new(view).map(|t| t.iter().map(|&b| u64::from(b)).sum::<u64>());
    }
    let _ = StridedTensor::<i64, 1>::new(view).map(|t| t.get([0]).copied());
    drop(buffer);
}

fuzz_target!(|data: &[u8]| {
    if let Ok(input) = Input::arbitrary_take_rest(Unstructured::new(data)) {
        run(input);
    }
});
