//! Byte layouts of the C ABI (ABI.md section 2) on live values: `TVMFFIAny`, the object
//! header, the DLPack structs and the cells hosts read at object + 24, read byte by byte as
//! a host reads them. (Sizes and field offsets are asserted at compile time next to each
//! type, in abi-core/src/ffi.)

use abi_core::ffi::type_index as ti;
use abi_core::ffi::ByteArray;
use abi_core::ffi::SeqCell;
use abi_core::ObjectHandle;
use abi_core::{Any, Array, DLTensor, DataType, Device, Error, Function, RawAny, Shape, Str, Tensor};

/// The 16 bytes of a value, as a host would see them in memory.
fn bytes_of(raw: &RawAny) -> [u8; 16] {
    // SAFETY: RawAny is 16 bytes of plain data (asserted in `raw_any_layout`); every field
    // written by the constructors used here initialises all 16 bytes.
    unsafe { core::mem::transmute_copy(raw) }
}

/// Reads a `T` at `offset` bytes past `base`.
///
/// # Safety
/// `base + offset` holds an initialised, aligned `T`.
unsafe fn read_at<T: Copy>(base: *const u8, offset: usize) -> T {
    // SAFETY: guaranteed by the caller.
    unsafe { base.add(offset).cast::<T>().read() }
}

#[test]
fn any_bytes_in_memory() {
    let v = Any::from_value(0x0102_0304_0506_0708i64).unwrap();
    let b = bytes_of(v.as_raw());
    assert_eq!(&b[0..4], &ti::INT.to_le_bytes());
    assert_eq!(&b[4..8], &[0, 0, 0, 0], "small_len must be zero for Int");
    assert_eq!(&b[8..16], &0x0102_0304_0506_0708i64.to_le_bytes());

    let f = Any::from_value(-2.5f64).unwrap();
    let b = bytes_of(f.as_raw());
    assert_eq!(&b[0..4], &ti::FLOAT.to_le_bytes());
    assert_eq!(&b[8..16], &(-2.5f64).to_bits().to_le_bytes());

    let t = Any::from_value(true).unwrap();
    let b = bytes_of(t.as_raw());
    assert_eq!(&b[0..4], &ti::BOOL.to_le_bytes());
    assert_eq!(&b[8..16], &1i64.to_le_bytes());

    let none = Any::from_value(()).unwrap();
    assert_eq!(bytes_of(none.as_raw()), [0u8; 16]);
}

#[test]
fn object_any_has_zero_small_len_and_header_pointer() {
    let s = Any::from_value("a string of sixteen".to_owned()).unwrap();
    let raw = s.as_raw();
    assert_eq!(raw.type_index, ti::STR);
    assert_eq!(raw.small_len, 0);
    // SAFETY: the Any keeps the object alive; the header is at offset 0 of the pointer.
    let header_index: i32 = unsafe { read_at(raw.ptr().cast(), 8) };
    assert_eq!(header_index, ti::STR);
}

#[test]
fn fresh_object_header_in_memory() {
    let s = Str::new("hello");
    let base = s.as_object().as_ptr().cast::<u8>();
    // SAFETY: `s` keeps the 24-byte header alive.
    unsafe {
        assert_eq!(read_at::<u64>(base, 0), 0x1_0000_0001);
        assert_eq!(read_at::<i32>(base, 8), ti::STR);
        assert_eq!(read_at::<u32>(base, 12), 0);
        assert_ne!(read_at::<usize>(base, 16), 0, "a Rust-made object has a deleter");
    }
}

#[test]
fn inline_dtype_and_device_payloads() {
    let dt = Any::from_value(DataType { code: 2, bits: 16, lanes: 4 }).unwrap();
    let b = bytes_of(dt.as_raw());
    assert_eq!(&b[0..4], &ti::DATA_TYPE.to_le_bytes());
    assert_eq!(&b[8..12], &[2, 16, 4, 0]);

    let dev = Any::from_value(Device { device_type: 2, device_id: 3 }).unwrap();
    let b = bytes_of(dev.as_raw());
    assert_eq!(&b[0..4], &ti::DEVICE.to_le_bytes());
    assert_eq!(&b[8..12], &2i32.to_le_bytes());
    assert_eq!(&b[12..16], &3i32.to_le_bytes());
}

#[test]
fn str_cell_as_hosts_read_it() {
    let s = Str::new("hello, layout");
    let base = s.as_object().as_ptr().cast::<u8>();
    // SAFETY: a Str object holds {data, size} at +24, pointing at size bytes plus a NUL.
    let (data, size) = unsafe { (read_at::<*const u8>(base, 24), read_at::<usize>(base, 32)) };
    assert_eq!(size, 13);
    // SAFETY: see above.
    let with_nul = unsafe { core::slice::from_raw_parts(data, size + 1) };
    assert_eq!(with_nul, b"hello, layout\0");
}

#[test]
fn function_cell_as_hosts_read_it() {
    let f = Function::from_closure(|_| Ok(Any::NONE));
    let base = f.as_object().as_ptr().cast::<u8>();
    // SAFETY: a Function object holds {safe_call, cpp_call} at +24.
    let (safe_call, cpp_call) = unsafe { (read_at::<usize>(base, 24), read_at::<usize>(base, 32)) };
    assert_ne!(safe_call, 0);
    assert_eq!(cpp_call, 0, "objects made here set cpp_call = NULL");
}

#[test]
fn shape_cell_as_hosts_read_it() {
    let s = Shape::new(&[2, -1, 7]);
    let base = s.as_object().as_ptr().cast::<u8>();
    // SAFETY: a Shape object holds {data: *const i64, size} at +24.
    let dims = unsafe {
        let data = read_at::<*const i64>(base, 24);
        let size = read_at::<usize>(base, 32);
        core::slice::from_raw_parts(data, size)
    };
    assert_eq!(dims, &[2, -1, 7]);
}

#[test]
fn tensor_cell_is_a_dltensor_at_24() {
    let t = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]).unwrap();
    let base = t.as_object().as_ptr().cast::<u8>();
    // SAFETY: a Tensor object holds a DLTensor at +24; its shape/strides have ndim entries.
    unsafe {
        let dl = &*base.add(24).cast::<DLTensor>();
        assert_eq!(dl.ndim, 2);
        assert_eq!(dl.device, Device::CPU);
        assert_eq!(dl.dtype, DataType { code: 2, bits: 32, lanes: 1 });
        assert_eq!(core::slice::from_raw_parts(dl.shape, 2), &[2, 3]);
        assert_eq!(core::slice::from_raw_parts(dl.strides, 2), &[3, 1], "strides are in elements");
        assert_eq!(dl.byte_offset, 0);
        assert_eq!(*dl.data.cast::<f32>().add(4), 5.0);
    }
}

#[test]
fn array_cell_as_hosts_read_it() {
    let a = Array::new(vec![Any::from_value(10i64).unwrap(), Any::from_value(20i64).unwrap()]);
    let base = a.as_object().as_ptr().cast::<u8>();
    // SAFETY: an Array object holds a SeqCell at +24 pointing at `size` Anys.
    unsafe {
        let cell = &*base.add(24).cast::<SeqCell>();
        assert_eq!(cell.size, 2);
        assert!(cell.capacity >= 2);
        let items = core::slice::from_raw_parts(cell.data, 2);
        assert_eq!((items[0].type_index, items[0].i64()), (ti::INT, 10));
        assert_eq!((items[1].type_index, items[1].i64()), (ti::INT, 20));
    }
}

#[test]
fn error_cell_as_hosts_read_it() {
    let e = Error::with_backtrace("KeyError", "no such key", "frame 0");
    let base = e.as_object().as_ptr().cast::<u8>();
    let field = |offset: usize| -> Vec<u8> {
        // SAFETY: the Error cell starts at +24 with three NUL-terminated {data, size} arrays.
        unsafe {
            let arr = read_at::<ByteArray>(base, 24 + offset);
            let with_nul = core::slice::from_raw_parts(arr.data, arr.size + 1);
            assert_eq!(with_nul.last(), Some(&0), "byte array at {offset} is NUL-terminated");
            with_nul[..arr.size].to_vec()
        }
    };
    assert_eq!(field(0), b"KeyError");
    assert_eq!(field(16), b"no such key");
    assert_eq!(field(32), b"frame 0");
    // SAFETY: update_backtrace @48, cause_chain @56, extra_context @64 are pointer-sized.
    unsafe {
        assert_ne!(read_at::<usize>(base, 24 + 48), 0, "update_backtrace must be a real function");
        assert_eq!(read_at::<usize>(base, 24 + 56), 0, "no cause chain");
        assert_eq!(read_at::<usize>(base, 24 + 64), 0, "no extra context");
    }
}
