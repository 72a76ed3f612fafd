//! The 16-byte `TVMFFIAny` value: [`RawAny`] (plain C data), [`Any`] (owning) and
//! [`AnyView`] (borrowed), all with exactly the C layout.

use core::ffi::c_void;
use core::fmt;
use core::marker::PhantomData;
use core::mem::{size_of, ManuallyDrop};

use static_assertions::{assert_eq_align, assert_eq_size, const_assert_eq};

use crate::dtype::{DataType, Device};
use crate::object::{self, ObjectHeader};
use crate::type_index as ti;

/// The 8-byte value union of `TVMFFIAny`.
#[repr(C)]
#[derive(Clone, Copy)]
pub union RawValue {
    /// Integers and booleans.
    pub v_int64: i64,
    /// Floats.
    pub v_float64: f64,
    /// Pointers of every kind (objects, strings, tensors).
    pub v_ptr: *mut c_void,
    /// `DLDataType`.
    pub v_dtype: DataType,
    /// `DLDevice`.
    pub v_device: Device,
    /// Inline small-string bytes.
    pub v_bytes: [u8; 8],
    /// Raw bits.
    pub v_uint64: u64,
}

impl fmt::Debug for RawValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // SAFETY: every bit pattern is a valid u64.
        write!(f, "{:#x}", unsafe { self.v_uint64 })
    }
}

/// `TVMFFIAny` as plain data: no ownership semantics.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct RawAny {
    /// The type index (see [`crate::type_index`]).
    pub type_index: i32,
    /// Small-string length for 11/12; zero for every other type.
    pub small_len: u32,
    /// The payload.
    pub value: RawValue,
}

assert_eq_size!(RawAny, [u8; 16]);
assert_eq_align!(RawAny, u64);
assert_eq_size!(usize, u64);
const_assert_eq!(core::mem::offset_of!(RawAny, type_index), 0);
const_assert_eq!(core::mem::offset_of!(RawAny, small_len), 4);
const_assert_eq!(core::mem::offset_of!(RawAny, value), 8);

impl RawAny {
    /// The None value.
    pub const NONE: RawAny = RawAny { type_index: ti::NONE, small_len: 0, value: RawValue { v_uint64: 0 } };

    /// A value with `type_index` and a 64-bit integer payload.
    #[inline(always)]
    pub const fn from_i64(type_index: i32, v: i64) -> RawAny {
        RawAny { type_index, small_len: 0, value: RawValue { v_int64: v } }
    }

    /// A value with `type_index` and a pointer payload.
    #[inline(always)]
    pub const fn from_ptr(type_index: i32, p: *mut c_void) -> RawAny {
        RawAny { type_index, small_len: 0, value: RawValue { v_ptr: p } }
    }

    /// The payload as i64 (meaningful for Int and Bool).
    #[inline(always)]
    pub fn i64(&self) -> i64 {
        // SAFETY: every bit pattern of the 8-byte union is a valid i64.
        unsafe { self.value.v_int64 }
    }

    /// The payload as f64 (meaningful for Float).
    #[inline(always)]
    pub fn f64(&self) -> f64 {
        // SAFETY: every bit pattern is a valid f64.
        unsafe { self.value.v_float64 }
    }

    /// The payload as a pointer (meaningful for pointer and object kinds).
    #[inline(always)]
    pub fn ptr(&self) -> *mut c_void {
        // SAFETY: the union is 8 bytes and pointers are 8 bytes (asserted above).
        unsafe { self.value.v_ptr }
    }

    /// The payload bytes.
    #[inline(always)]
    pub fn bytes(&self) -> &[u8; 8] {
        // SAFETY: every bit pattern is a valid byte array.
        unsafe { &self.value.v_bytes }
    }
}

impl fmt::Debug for RawAny {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RawAny({}, {}, {:#x})", self.type_index, self.small_len, self.i64())
    }
}

/// An owned value: holds one strong reference when it holds an object and releases it on
/// drop. Never holds a borrowed kind (RawStr, ByteArrayPtr, DLTensorPtr).
#[repr(transparent)]
pub struct Any(RawAny);

/// A borrowed value valid for `'a`: an argument slot or a view of an [`Any`].
#[repr(transparent)]
#[derive(Clone, Copy)]
pub struct AnyView<'a> {
    raw: RawAny,
    _borrow: PhantomData<&'a ()>,
}

assert_eq_size!(Any, RawAny);
assert_eq_size!(AnyView<'static>, RawAny);

// SAFETY: objects are atomically ref-counted and immutable through shared handles, as in
// tvm-ffi where `Any` crosses threads freely.
unsafe impl Send for Any {}
// SAFETY: see above.
unsafe impl Sync for Any {}

impl Any {
    /// None.
    pub const NONE: Any = Any(RawAny::NONE);

    /// Takes ownership of a raw value.
    ///
    /// # Safety
    /// When `raw` holds an object the caller transfers one strong reference; `raw` must not
    /// hold a borrowed kind.
    #[inline(always)]
    pub const unsafe fn from_raw(raw: RawAny) -> Any {
        Any(raw)
    }

    /// Gives up ownership: the caller becomes responsible for the reference it holds.
    #[inline(always)]
    pub fn into_raw(self) -> RawAny {
        ManuallyDrop::new(self).0
    }

    /// The raw representation, still owned by `self`.
    #[inline(always)]
    pub fn as_raw(&self) -> &RawAny {
        &self.0
    }

    /// A borrowed view.
    #[inline(always)]
    pub fn view(&self) -> AnyView<'_> {
        AnyView { raw: self.0, _borrow: PhantomData }
    }

    /// The type index.
    #[inline(always)]
    pub fn type_index(&self) -> i32 {
        self.0.type_index
    }

    /// Whether the value is None.
    #[inline(always)]
    pub fn is_none(&self) -> bool {
        self.0.type_index == ti::NONE
    }

    /// Converts to a Rust value, owning (cloning) what it needs.
    pub fn to<T: crate::FromAny>(&self) -> crate::Result<T> {
        T::from_any(self.view()).map_err(crate::Error::from)
    }

    /// Builds from a Rust value.
    pub fn from_value<T: crate::IntoAny>(v: T) -> crate::Result<Any> {
        v.into_any().map_err(crate::Error::from)
    }
}

impl Drop for Any {
    #[inline]
    fn drop(&mut self) {
        if ti::is_object(self.0.type_index) {
            // SAFETY: an owned object-typed Any holds one strong reference to a live object.
            unsafe { object::dec_ref(self.0.ptr().cast::<ObjectHeader>()) }
        }
    }
}

impl Clone for Any {
    #[inline]
    fn clone(&self) -> Any {
        if ti::is_object(self.0.type_index) {
            // SAFETY: `self` keeps the object alive; the clone owns the added reference.
            unsafe { object::inc_ref(self.0.ptr().cast()) }
        }
        Any(self.0)
    }
}

impl Default for Any {
    fn default() -> Any {
        Any::NONE
    }
}

impl fmt::Debug for Any {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.view(), f)
    }
}

impl<'a> AnyView<'a> {
    /// None.
    pub const NONE: AnyView<'static> = AnyView { raw: RawAny::NONE, _borrow: PhantomData };

    /// Wraps a raw value as a view.
    ///
    /// # Safety
    /// Whatever `raw` points to (object, string, tensor) must stay alive and unchanged for `'a`.
    #[inline(always)]
    pub const unsafe fn from_raw(raw: RawAny) -> AnyView<'a> {
        AnyView { raw, _borrow: PhantomData }
    }

    /// Views a slice of raw argument slots.
    ///
    /// # Safety
    /// As [`AnyView::from_raw`], for every slot.
    #[inline(always)]
    pub unsafe fn slice_from_raw(raw: &'a [RawAny]) -> &'a [AnyView<'a>] {
        // SAFETY: AnyView is repr(transparent) over RawAny; the caller guarantees liveness.
        unsafe { core::slice::from_raw_parts(raw.as_ptr().cast(), raw.len()) }
    }

    /// The raw representation.
    #[inline(always)]
    pub fn raw(&self) -> &RawAny {
        &self.raw
    }

    /// The type index.
    #[inline(always)]
    pub fn type_index(&self) -> i32 {
        self.raw.type_index
    }

    /// Whether the value is None.
    #[inline(always)]
    pub fn is_none(&self) -> bool {
        self.raw.type_index == ti::NONE
    }

    /// The object header when the value is an object.
    #[inline(always)]
    pub fn object(&self) -> Option<*mut ObjectHeader> {
        ti::is_object(self.raw.type_index).then(|| self.raw.ptr().cast())
    }

    /// An owned copy: objects gain a reference, RawStr / ByteArrayPtr are copied into
    /// strings; kinds that cannot be owned (DLTensorPtr, ObjectRValueRef) are an error.
    pub fn to_any(&self) -> Result<Any, crate::ConvError> {
        let raw = self.raw;
        match raw.type_index {
            ti::RAW_STR | ti::BYTE_ARRAY_PTR => {
                let bytes = crate::string::view_bytes(self)?;
                Ok(if raw.type_index == ti::RAW_STR {
                    crate::string::str_any(core::str::from_utf8(bytes).map_err(|_| crate::ConvError::InvalidUtf8)?)
                } else {
                    crate::string::bytes_any(bytes)
                })
            }
            ti::DL_TENSOR_PTR | ti::OBJECT_RVALUE_REF => {
                Err(crate::ConvError::mismatch(&crate::TypeDesc::Any, raw.type_index))
            }
            i if ti::is_object(i) => {
                // SAFETY: the view borrows a live object; the new Any owns the added reference.
                unsafe {
                    object::inc_ref(raw.ptr().cast());
                    Ok(Any::from_raw(raw))
                }
            }
            // SAFETY: plain values own nothing.
            _ => Ok(unsafe { Any::from_raw(raw) }),
        }
    }

    /// Converts to a Rust value.
    pub fn to<T: crate::FromAny>(&self) -> crate::Result<T> {
        T::from_any(*self).map_err(crate::Error::from)
    }
}

impl fmt::Debug for AnyView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = &self.raw;
        let name = ti::display_name(r.type_index);
        match r.type_index {
            ti::NONE => f.write_str("None"),
            ti::INT => write!(f, "{}", r.i64()),
            ti::BOOL => write!(f, "{}", if r.i64() != 0 { "True" } else { "False" }),
            ti::FLOAT => write!(f, "{:?}", r.f64()),
            ti::SMALL_STR | ti::STR => match crate::string::view_bytes(self) {
                Ok(b) => write!(f, "{:?}", String::from_utf8_lossy(b)),
                Err(_) => f.write_str("str(?)"),
            },
            _ => write!(f, "{name}({:#x})", r.i64()),
        }
    }
}

/// Size of the `TVMFFIAny` struct, for generated code.
pub const ANY_SIZE: usize = size_of::<RawAny>();
