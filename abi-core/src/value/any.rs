//! The owned [`Any`] and the borrowed [`AnyView`]: a `TVMFFIAny` ([`crate::ffi::RawAny`])
//! with the ownership rules of docs/ABI.md section 3 (an object value holds one reference),
//! and the traits that convert Rust values to and from them (implemented in `convert`).

use core::fmt;
use core::marker::PhantomData;
use core::mem::ManuallyDrop;

use static_assertions::assert_eq_size;

use crate::ffi::type_index as ti;
use crate::ffi::{ObjectHeader, RawAny};
use crate::reflect::type_desc::TypeDesc;
use crate::value::conv_error::ConvError;
use crate::value::error::{Error, Result as AbiResult};
use crate::value::object::{self, ObjectHandle};

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
    /// hold a borrowed kind. A null pointer under an object index (what a malformed callee
    /// may return) is tolerated: it owns nothing, and cloning or dropping it touches nothing;
    /// every conversion refuses it.
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
}

impl Drop for Any {
    #[inline]
    fn drop(&mut self) {
        if ti::is_object(self.0.type_index) {
            let obj = self.0.ptr().cast::<ObjectHeader>();
            if obj.is_null() {
                // A null handle under an object index (a host's or a callback's malformed
                // result) holds nothing. Out of line, so the common path stays one branch.
                return null_handle();
            }
            // SAFETY: an owned object-typed Any holds one strong reference to a live object.
            unsafe { object::dec_ref(obj) }
        }
    }
}

impl Clone for Any {
    #[inline]
    fn clone(&self) -> Any {
        if ti::is_object(self.0.type_index) {
            let obj = self.0.ptr().cast::<ObjectHeader>();
            if obj.is_null() {
                null_handle();
                return Any(self.0);
            }
            // SAFETY: `self` keeps the object alive; the clone owns the added reference.
            unsafe { object::inc_ref(obj) }
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
            // SAFETY: the view keeps what it points to alive.
            ti::SMALL_STR | ti::STR => match unsafe { r.string_bytes() } {
                Some(b) => write!(f, "{:?}", String::from_utf8_lossy(b)),
                None => f.write_str("str(?)"),
            },
            _ => write!(f, "{name}({:#x})", r.i64()),
        }
    }
}

impl<T: ObjectHandle> From<T> for Any {
    /// An owned value holding the handle's reference, with the object's own type index.
    #[inline]
    fn from(handle: T) -> Any {
        let obj = handle.into_object();
        let ty = obj.type_index();
        // SAFETY: the reference moves into the Any.
        unsafe { Any::from_raw(RawAny::from_ptr(ty, obj.into_raw().as_ptr().cast())) }
    }
}

/// What cloning or dropping a null object handle does: nothing (it owns no reference).
/// Cold and out of line, so the null test stays a branch the common path never takes.
#[cold]
#[inline(never)]
fn null_handle() {}

/// A type with a fixed ABI description.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be passed across the ABI boundary",
    label = "unsupported ABI type",
    note = "supported: (), bool, integers, f32, f64, f16, bf16, &str, String, &[u8], Vec<u8>, Option<T>, Vec<T>, tuples, maps, Any, tensors, functions",
    note = "derive `abi_core::AbiStruct` for local structs"
)]
pub trait AbiType {
    /// The reflection of this type.
    const DESC: &'static TypeDesc;
}

/// Owned conversion out of any view: every `T: for<'a> FromArg<'a>`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be received as an owned ABI value",
    label = "unsupported result type",
    note = "supported: (), bool, integers, floats, String, Vec<u8>, Option<T>, Vec<T>, tuples, maps, Any, Tensor, Function, derived structs"
)]
pub trait FromAny: Sized {
    /// The reflection of this type, reachable through this trait so that generated code
    /// naming a result type reports an unsupported one once.
    #[doc(hidden)]
    const RESULT: &'static TypeDesc;

    /// Converts, copying or adding references as needed.
    fn from_any(v: AnyView<'_>) -> Result<Self, ConvError>;

    /// Converts a call's result, trying the exact-type path first (which needs no release
    /// of `out`).
    #[doc(hidden)]
    fn from_result(out: Any) -> Result<Self, ConvError>;
}

/// Converts `Self` into an owned value to return or pass across the ABI.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned across the ABI boundary",
    label = "unsupported return type",
    note = "supported: (), bool, integers, floats, String, &str, Vec<u8>, Option<T>, Vec<T>, tuples, maps, Any, Tensor, Function, derived structs, object types and `Obj<T>`, and Result<T, E> of those"
)]
pub trait IntoAny: AbiType {
    /// Converts; fails only when the value cannot be represented (a map that no runtime
    /// in the process can build, say).
    fn into_any(self) -> Result<Any, ConvError>;

    /// [`IntoAny::into_any`] as an export's result going to `sink`: the same value, except
    /// where a type makes it in the form the caller takes best (a `String` for the Python
    /// door, a Python `str`).
    #[doc(hidden)]
    #[inline(always)]
    fn into_result_any(self, sink: crate::ffi::ResultSink) -> Result<Any, ConvError>
    where
        Self: Sized,
    {
        let _ = sink;
        self.into_any()
    }
}

impl Any {
    /// Converts to a Rust value, owning (cloning) what it needs.
    pub fn to<T: FromAny>(&self) -> AbiResult<T> {
        T::from_any(self.view()).map_err(Error::from)
    }

    /// Builds from a Rust value.
    pub fn from_value<T: IntoAny>(v: T) -> AbiResult<Any> {
        v.into_any().map_err(Error::from)
    }
}

impl AnyView<'_> {
    /// Converts to a Rust value.
    pub fn to<T: FromAny>(&self) -> AbiResult<T> {
        T::from_any(*self).map_err(Error::from)
    }
}
