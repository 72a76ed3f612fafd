//! Python arguments to packed argument slots, as `tvm_ffi` converts them (by the Python
//! type, so the shim sees the values it sees through `tvm_ffi`): exact `int` (within i64),
//! `bool`, `float`, `None` for every parameter; exact `str` and `bytes` for string and byte
//! parameters; `str` and its subclasses (a `str` enum's members) for fieldless enum
//! parameters; numpy arrays for tensor parameters,
//! read-only ones for parameters that only read (`abi.read_only`). Anything else answers `None`: the whole call takes the `tvm_ffi` route.

use core::ffi::{c_char, c_int};
use core::mem::MaybeUninit;

use super::arrays::{tensor_of, tensor_of_buffer, Strides};
use super::callable::MAX_PARAMS;
use super::capi::{type_of, PyApi, PyBuffer, PyObject};
use super::exchange::Exchange;
use crate::ffi::{type_index as ti, ByteArray, DLManagedTensorVersioned, DLTensor, RawAny, RawValue};
use crate::reflect::{Access, ParamDesc, TypeDesc};

/// What a parameter takes besides inline scalars.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Takes {
    /// Scalars and `None` only.
    Scalars,
    /// Also `str`.
    Str,
    /// Also `str` and its subclasses: a fieldless enum's names, given as strings or as
    /// members of a `str` enum (the generated package's enum classes), which `tvm_ffi`
    /// passes as the strings they are.
    Name,
    /// Also `bytes`.
    Bytes,
    /// Also numpy arrays; read-only ones when `read_only_ok`.
    Array { read_only_ok: bool },
}

impl Takes {
    /// Whether the door converts the values `param` takes: numbers, `bool`, `None`,
    /// strings, bytes, fieldless enums' names, and `Option`s of them, in one slot; and
    /// tensors (numpy arrays, passed as a borrowed `DLTensor*`) for the typed views
    /// (`HostTensor`, `HostTensorMut`, `StridedTensor`, `DeviceTensor`...), not for
    /// `Tensor`, `TensorView` or `Any`, whose access is through cells (a `Tensor` parameter
    /// takes only a tensor object).
    pub fn serves(param: &ParamDesc) -> bool {
        fn value(ty: &TypeDesc, access: Access) -> bool {
            match ty {
                TypeDesc::Tensor { .. } => access != Access::Cells,
                TypeDesc::Optional(inner) => value(inner, access),
                TypeDesc::Enum(_) => true,
                ty => ty.is_plain(),
            }
        }
        !param.expand && value(param.ty, param.access)
    }

    /// What `param` takes through the door.
    pub fn of(param: &ParamDesc) -> Takes {
        let ty = match param.ty {
            TypeDesc::Optional(inner) => inner,
            ty => ty,
        };
        match ty {
            TypeDesc::Str => Takes::Str,
            TypeDesc::Enum(_) => Takes::Name,
            TypeDesc::Bytes => Takes::Bytes,
            TypeDesc::Tensor { .. } => Takes::Array { read_only_ok: param.reads_tensor_only() },
            _ => Takes::Scalars,
        }
    }
}

/// Per-slot room for what a slot points to during the call.
pub struct Scratch {
    bytes: MaybeUninit<ByteArray>,
    tensor: MaybeUninit<DLTensor>,
    strides: MaybeUninit<Strides>,
    /// A buffer the slot's tensor reads (`memoryview`, `bytearray`, `array.array`), held
    /// until the call returns ([`Frame`]).
    buffer: MaybeUninit<PyBuffer>,
    /// A framework's managed tensor the slot's tensor is, released after the call.
    managed: MaybeUninit<*mut DLManagedTensorVersioned>,
}

impl Scratch {
    /// Room not yet written.
    pub const EMPTY: Scratch = Scratch {
        bytes: MaybeUninit::uninit(),
        tensor: MaybeUninit::uninit(),
        strides: MaybeUninit::uninit(),
        buffer: MaybeUninit::uninit(),
        managed: MaybeUninit::uninit(),
    };

    /// The room for a tensor's converted strides.
    pub fn strides_room(&mut self) -> &mut Strides {
        self.strides.write([0; _])
    }

    /// Keeps `tensor` here, for a slot to point to.
    pub fn tensor_room(&mut self, tensor: DLTensor) -> &mut DLTensor {
        self.tensor.write(tensor)
    }
}

/// The room a call's slots point into, and the buffers they hold (bit `i` for slot `i`),
/// released when it drops: after the call, or when the call takes the `tvm_ffi` route
/// before it.
pub struct Frame<'a> {
    api: &'a PyApi,
    /// Which slots hold what, bit `i` for slot `i`: buffers (bits 0 to 15), framework
    /// managed tensors (16 to 31), both released when the frame drops; framework tensors
    /// (32 to 47), and with them `exchange` is written.
    marks: u64,
    scratch: [Scratch; MAX_PARAMS],
    /// The framework tensors given (torch's, through its DLPack C exchange API), written
    /// when the first one is met.
    exchange: MaybeUninit<Exchange>,
}

const BUFFER: u32 = 0;
const MANAGED: u32 = 16;
const FRAMEWORK: u32 = 32;
/// The marks of what a frame releases.
const RELEASED: u64 = (1 << FRAMEWORK) - 1;

impl<'a> Frame<'a> {
    /// Room for a call; the GIL is held while it lives and when it drops.
    #[inline(always)]
    pub fn new(api: &'a PyApi) -> Frame<'a> {
        Frame { api, marks: 0, scratch: [const { Scratch::EMPTY }; MAX_PARAMS], exchange: MaybeUninit::uninit() }
    }

    /// The framework tensors given, if any.
    #[inline(always)]
    pub fn framework(&self) -> Option<&Exchange> {
        // SAFETY: written when the first framework tensor was marked.
        (self.marks >> FRAMEWORK != 0).then(|| unsafe { self.exchange.assume_init_ref() })
    }

    /// Whether a slot reads a buffer object (`memoryview`, `bytearray`, `array.array`).
    pub fn holds_buffers(&self) -> bool {
        self.marks & ((1 << MANAGED) - 1) != 0
    }

    /// Whether a framework's tensor came with another array (a numpy array or a buffer)
    /// among `slots`: the package's `tvm_ffi` route then makes a numpy array of a result
    /// that is no framework's, which the door leaves to it.
    pub fn mixes_arrays(&self, slots: &[RawAny]) -> bool {
        let framework = self.marks >> FRAMEWORK;
        framework != 0
            && slots.iter().enumerate().any(|(i, s)| s.type_index == ti::DL_TENSOR_PTR && framework & (1 << i) == 0)
    }

    /// Slot `i`'s room.
    #[inline(always)]
    pub fn scratch(&mut self, i: usize) -> &mut Scratch {
        &mut self.scratch[i]
    }

    /// The slot `i` of `obj` for a parameter taking `takes`, pointing into this frame, as
    /// `tvm_ffi` converts it (by the Python type, so the shim sees the values it sees
    /// through `tvm_ffi`); `None` when the door does not convert it (no Python error is left
    /// set). A buffer or a framework's tensor it reads is held until the frame drops.
    ///
    /// # Safety
    /// The GIL is held; `obj` is a live object that outlives the frame's use.
    #[inline(always)]
    pub unsafe fn slot(&mut self, i: usize, obj: *mut PyObject, takes: Takes) -> Option<RawAny> {
        let api = self.api;
        // SAFETY: `obj` is live (the caller's guarantee).
        let ty = unsafe { type_of(obj) };
        if ty == api.int_type {
            let mut overflow: c_int = 0;
            // SAFETY: an exact int; the function reports overflow without raising.
            let v = unsafe { (api.long_as_long_long_and_overflow)(obj, &mut overflow) };
            return (overflow == 0).then_some(RawAny::from_i64(ti::INT, v));
        }
        if ty == api.float_type {
            // SAFETY: an exact float: `PyFloatObject` is the object header, then its double.
            let v = unsafe { *obj.cast::<f64>().add(2) };
            return Some(RawAny { type_index: ti::FLOAT, small_len: 0, value: RawValue { v_float64: v } });
        }
        if obj == api.true_ || obj == api.false_ {
            return Some(RawAny::from_i64(ti::BOOL, i64::from(obj == api.true_)));
        }
        if obj == api.none {
            return Some(RawAny::NONE);
        }
        // SAFETY: the caller's guarantee.
        unsafe { self.object_slot(i, obj, ty, takes) }
    }

    /// [`Frame::slot`] for an object that is no number, `bool` or `None`: a string, bytes,
    /// or an array of one of the kinds the parameter takes.
    ///
    /// # Safety
    /// As for [`Frame::slot`]; `ty` is `obj`'s type.
    #[inline]
    unsafe fn object_slot(&mut self, i: usize, obj: *mut PyObject, ty: *mut PyObject, takes: Takes) -> Option<RawAny> {
        let (api, scratch) = (self.api, &mut self.scratch[i]);
        match takes {
            // SAFETY: an exact str, alive for the call (the caller's guarantee).
            Takes::Str if ty == api.str_type => unsafe { str_slot(api, obj) },
            // SAFETY: a str or an instance of a subclass (both live type objects), alive for
            // the call.
            Takes::Name if ty == api.str_type || unsafe { (api.type_is_subtype)(ty, api.str_type) } != 0 => unsafe {
                str_slot(api, obj)
            },
            // SAFETY: an exact bytes object, alive for the call.
            Takes::Bytes if ty == api.bytes_type => unsafe { bytes_slot(api, obj, scratch) },
            Takes::Array { read_only_ok } => {
                if !api.ndarray_type.is_null() {
                    // SAFETY: alive for the call; the scratch outlives the slot.
                    if let Some(slot) = unsafe { array_slot(api, obj, ty, read_only_ok, scratch) } {
                        return slot;
                    }
                    if ty == api.memoryview_type || ty == api.bytearray_type || ty == api.array_type {
                        // SAFETY: alive for the call; the scratch outlives the slot.
                        let slot = unsafe { buffer_slot(api, obj, read_only_ok, scratch) }?;
                        self.marks |= 1 << (BUFFER + i as u32);
                        return Some(slot);
                    }
                }
                // SAFETY: as above.
                unsafe { self.framework_slot(i, obj) }
            }
            _ => None,
        }
    }

    /// The slot of a framework's tensor (torch's) with a DLPack C exchange API, borrowed
    /// into slot `i`'s room ([`Exchange::take`]).
    ///
    /// # Safety
    /// As for [`Frame::slot`].
    #[cold]
    #[inline(never)]
    unsafe fn framework_slot(&mut self, i: usize, obj: *mut PyObject) -> Option<RawAny> {
        let scratch = &mut self.scratch[i];
        let (at, managed) = (scratch.tensor.as_mut_ptr(), scratch.managed.as_mut_ptr());
        if self.marks >> FRAMEWORK == 0 {
            self.exchange.write(Exchange::default());
        }
        // SAFETY: written just above or with the first framework tensor.
        let exchange = unsafe { self.exchange.assume_init_mut() };
        // SAFETY: the GIL is held; `obj` is alive for the call; the room outlives the slot.
        if unsafe { exchange.take(self.api, (obj, type_of(obj)), at, managed) }? {
            self.marks |= 1 << (MANAGED + i as u32);
        }
        self.marks |= 1 << (FRAMEWORK + i as u32);
        Some(RawAny::from_ptr(ti::DL_TENSOR_PTR, at.cast()))
    }
}

impl Drop for Frame<'_> {
    #[inline(always)]
    fn drop(&mut self) {
        if self.marks & RELEASED != 0 {
            // SAFETY: the GIL is held while a frame lives; each marked scratch holds a
            // buffer or a managed tensor not yet released.
            unsafe { release(self.api, self.marks, &mut self.scratch) }
        }
    }
}

/// Releases the buffers and the managed tensors `marks` marks in the scratches.
///
/// # Safety
/// The GIL is held; each marked scratch holds one not yet released.
#[inline(never)]
unsafe fn release(api: &PyApi, marks: u64, scratch: &mut [Scratch]) {
    for (i, s) in scratch.iter_mut().enumerate() {
        if marks & (1 << (BUFFER + i as u32)) != 0 {
            // SAFETY: the caller's guarantee.
            unsafe { (api.release_buffer)(s.buffer.assume_init_mut()) };
        }
        if marks & (1 << (MANAGED + i as u32)) != 0 {
            // SAFETY: the caller's guarantee: the framework's managed tensor, released once.
            unsafe { DLManagedTensorVersioned::release(s.managed.assume_init()) };
        }
    }
}

/// The slot of a numpy array (`Some(None)`: one the door does not pass), `None` when `obj`
/// is no numpy array.
///
/// # Safety
/// `obj` of type `ty` is alive for the call, `scratch` outlives the slot; the GIL is held.
#[inline(never)]
unsafe fn array_slot(
    api: &PyApi,
    obj: *mut PyObject,
    ty: *mut PyObject,
    read_only_ok: bool,
    scratch: &mut Scratch,
) -> Option<Option<RawAny>> {
    // SAFETY: both are live type objects.
    if ty != api.ndarray_type && unsafe { (api.type_is_subtype)(ty, api.ndarray_type) } == 0 {
        return None;
    }
    // SAFETY: a numpy array, alive for the call; the strides room outlives the slot.
    let Some(tensor) = (unsafe { tensor_of(obj, read_only_ok, scratch.strides_room()) }) else {
        return Some(None);
    };
    let at = scratch.tensor_room(tensor);
    Some(Some(RawAny::from_ptr(ti::DL_TENSOR_PTR, (at as *mut DLTensor).cast())))
}

/// The slot of a `memoryview`, `bytearray` or `array.array`: a tensor over its buffer,
/// held in `scratch` until the call returns; `None` (nothing held) when it is read-only
/// for a parameter that may write, or its items or layout are none the door passes.
///
/// # Safety
/// `obj` is alive for the call, `scratch` outlives the slot; the GIL is held.
#[inline(never)]
unsafe fn buffer_slot(api: &PyApi, obj: *mut PyObject, read_only_ok: bool, scratch: &mut Scratch) -> Option<RawAny> {
    // `PyBUF_RECORDS_RO` (strides and format), with `PyBUF_WRITABLE` for a parameter that
    // may write.
    const RECORDS_RO: c_int = 0x1c;
    const WRITABLE: c_int = 0x1;
    let flags = if read_only_ok { RECORDS_RO } else { RECORDS_RO | WRITABLE };
    let view = scratch.buffer.as_mut_ptr();
    // SAFETY: the GIL is held; `view` is room for a `Py_buffer`, filled on success.
    if unsafe { (api.get_buffer)(obj, view, flags) } != 0 {
        // SAFETY: the GIL is held.
        unsafe { (api.err_clear)() };
        return None;
    }
    // SAFETY: a buffer just got; the strides room outlives the slot.
    let tensor = unsafe { tensor_of_buffer(&*view, scratch.strides_room()) };
    let Some(tensor) = tensor else {
        // SAFETY: the buffer got above, released once.
        unsafe { (api.release_buffer)(view) };
        return None;
    };
    let at = scratch.tensor_room(tensor);
    Some(RawAny::from_ptr(ti::DL_TENSOR_PTR, (at as *mut DLTensor).cast()))
}

/// The slot of a `str` (or an instance of a subclass: its string): inline when short, else
/// its cached UTF-8 as a C string.
///
/// # Safety
/// `obj` is a str alive for the call; the GIL is held.
#[inline(never)]
unsafe fn str_slot(api: &PyApi, obj: *mut PyObject) -> Option<RawAny> {
    let mut len: isize = 0;
    // SAFETY: the UTF-8 buffer is cached on the object, which outlives the call.
    let p = unsafe { (api.unicode_as_utf8_and_size)(obj, &mut len) };
    if p.is_null() {
        // Lone surrogates: the `tvm_ffi` route raises its own error.
        // SAFETY: the GIL is held.
        unsafe { (api.err_clear)() };
        return None;
    }
    // SAFETY: `len` bytes at `p`, followed by a NUL.
    let text = unsafe { core::slice::from_raw_parts(p.cast::<u8>(), len as usize) };
    if text.len() <= ti::SMALL_STR_MAX_LEN {
        return Some(small(ti::SMALL_STR, text));
    }
    // A C string holds no NUL: one inside takes the `tvm_ffi` route.
    (!text.contains(&0)).then(|| RawAny::from_ptr(ti::RAW_STR, p.cast_mut().cast()))
}

/// The slot of an exact `bytes`: inline when short, else a byte array in `scratch`.
///
/// # Safety
/// `obj` is an exact bytes object alive for the call, `scratch` outlives the slot; the GIL
/// is held.
#[inline(never)]
unsafe fn bytes_slot(api: &PyApi, obj: *mut PyObject, scratch: &mut Scratch) -> Option<RawAny> {
    let (mut p, mut len): (*mut c_char, isize) = (core::ptr::null_mut(), 0);
    // SAFETY: an exact bytes object, which always gives its buffer.
    if unsafe { (api.bytes_as_string_and_size)(obj, &mut p, &mut len) } != 0 {
        // SAFETY: the GIL is held.
        unsafe { (api.err_clear)() };
        return None;
    }
    // SAFETY: `len` bytes at `p`, owned by the live object.
    let data = unsafe { core::slice::from_raw_parts(p.cast::<u8>(), len as usize) };
    if data.len() <= ti::SMALL_STR_MAX_LEN {
        return Some(small(ti::SMALL_BYTES, data));
    }
    let at = scratch.bytes.write(ByteArray { data: data.as_ptr(), size: data.len() });
    Some(RawAny::from_ptr(ti::BYTE_ARRAY_PTR, (at as *mut ByteArray).cast()))
}

/// An inline string or bytes value of at most 7 bytes.
#[inline]
fn small(type_index: i32, data: &[u8]) -> RawAny {
    let mut inline = [0u8; 8];
    inline[..data.len()].copy_from_slice(data);
    RawAny { type_index, small_len: data.len() as u32, value: RawValue { v_bytes: inline } }
}
