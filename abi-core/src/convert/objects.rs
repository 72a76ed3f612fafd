//! Conversions of user objects: `Obj<T>` (an owned strong reference) both ways, `&T`
//! arguments of exports (borrowed for the call, type-checked with one compare), `&Obj<T>`
//! arguments of outgoing calls; [`Reflected`] objects of any type, as `ffi.Object`; and
//! the field accessors the type table calls, which read copies and write only through
//! interior mutability.

use core::ffi::c_void;
use core::ptr::NonNull;
use core::sync::atomic::Ordering;
use std::sync::{Mutex, RwLock};

use crate::convert::call_arg::{into_arg, IntoArg};
use crate::convert::{AbiType, FromAny, FromArg, IntoAny, ListItem};
use crate::ffi::RawAny;
use crate::reflect::TypeDesc;
use crate::runtime::calls::boundary::ffi_boundary;
use crate::runtime::object_types::class::Object;
use crate::runtime::object_types::obj::Obj;
use crate::runtime::object_types::reflected::Reflected;
use crate::value::any::{Any, AnyView};
use crate::value::conv_error::ConvError;
use crate::value::object::ObjectRef;

impl AbiType for Reflected {
    const DESC: &'static TypeDesc = &TypeDesc::Object;
}
impl ListItem for Reflected {}

impl<'a> FromArg<'a> for Reflected {
    fn from_arg(v: &'a AnyView<'a>) -> Result<Reflected, ConvError> {
        ObjectRef::from_arg(v).map(Reflected::new)
    }
}

impl IntoAny for Reflected {
    fn into_any(self) -> Result<Any, ConvError> {
        Ok(Any::from(self.object().clone()))
    }
}
into_arg!(owned: [] Reflected);

impl<T: Object> AbiType for Obj<T> {
    const DESC: &'static TypeDesc = T::CLASS.desc;
}
impl<T: Object> ListItem for Obj<T> {}

/// The object a view holds when its index is exactly `T`'s registered one (one compare and
/// a null check): the fast path of every object parameter.
#[inline(always)]
fn exact_instance<T: Object>(v: &AnyView<'_>) -> Option<NonNull<crate::ffi::ObjectHeader>> {
    let obj = v.raw().ptr().cast::<crate::ffi::ObjectHeader>();
    if v.type_index() != T::slot().ready_index() || obj.is_null() {
        return None;
    }
    // SAFETY: checked non-null just above.
    Some(unsafe { NonNull::new_unchecked(obj) })
}

/// The object a view holds when it is a `T`, else the conversion error.
#[inline(always)]
fn instance<T: Object>(v: &AnyView<'_>) -> Result<NonNull<crate::ffi::ObjectHeader>, ConvError> {
    match exact_instance::<T>(v) {
        Some(obj) => Ok(obj),
        None => instance_slow::<T>(v),
    }
}

/// [`instance`] for subtypes, a type not registered yet, and every refusal.
#[cold]
#[inline(never)]
fn instance_slow<T: Object>(v: &AnyView<'_>) -> Result<NonNull<crate::ffi::ObjectHeader>, ConvError> {
    let ty = v.type_index();
    if let Some(obj) = v.object().and_then(NonNull::new) {
        match Obj::<T>::accepts_index(ty) {
            Ok(true) => return Ok(obj),
            Ok(false) => {}
            Err(e) => return Err(e.into()),
        }
    }
    Err(ConvError::refused(T::CLASS.desc, v.raw()))
}

impl<'a, T: Object> FromArg<'a> for Obj<T> {
    #[inline]
    fn from_arg(v: &'a AnyView<'a>) -> Result<Obj<T>, ConvError> {
        let obj = instance::<T>(v)?;
        // SAFETY: a live object borrowed by the view, of a type `instance` accepted; we add
        // our own reference.
        Ok(unsafe { Obj::from_object_unchecked(ObjectRef::from_borrowed(obj)) })
    }
}

impl<T: Object> IntoAny for Obj<T> {
    #[inline]
    fn into_any(self) -> Result<Any, ConvError> {
        Ok(Any::from(self.into_object()))
    }
}
into_arg!(owned: [T: Object] Obj<T>);

impl<T: Object> AbiType for &Obj<T> {
    const DESC: &'static TypeDesc = T::CLASS.desc;
}

impl<T: Object> IntoArg for &Obj<T> {
    type Slot = RawAny;
    #[inline(always)]
    fn into_slot(self) -> Result<RawAny, ConvError> {
        let obj = self.as_object();
        // Borrowed for the call: `self` keeps the reference.
        Ok(RawAny::from_ptr(obj.type_index(), obj.as_ptr().cast()))
    }
}

impl<T: Object> AbiType for &T {
    const DESC: &'static TypeDesc = T::CLASS.desc;
}

impl<'a, T: Object> FromArg<'a> for &'a T {
    #[inline(always)]
    fn from_arg(v: &'a AnyView<'a>) -> Result<&'a T, ConvError> {
        let obj = instance::<T>(v)?;
        // SAFETY: an object holding a `T` (or a subtype, which embeds it at offset 0) at the
        // cell offset, borrowed by the view for 'a.
        Ok(unsafe { &*crate::ffi::cell_ptr::<T>(obj.as_ptr()) })
    }

    // A borrow is never a result (`&T` is not `FromAny`), so matching an object here does
    // not break `fast_path`'s promise to `FromAny::from_result`.
    const HAS_FAST_PATH: bool = true;

    #[inline(always)]
    fn fast_path(v: &'a AnyView<'a>) -> Option<&'a T> {
        let obj = exact_instance::<T>(v)?;
        // SAFETY: an object of `T`'s own index holds a `T` at the cell offset, borrowed by
        // the view for 'a.
        Some(unsafe { &*crate::ffi::cell_ptr::<T>(obj.as_ptr()) })
    }

    // The object under `T`'s own index: `fast_path` takes it to the same `&T` as `from_arg`
    // (a subtype embeds `T` at offset 0). `instance` accepted it, so `T` is registered.
    fn exact_slot(v: &'a AnyView<'a>) -> Result<RawAny, ConvError> {
        let obj = instance::<T>(v)?;
        Ok(RawAny::from_ptr(T::slot().ready_index(), obj.as_ptr().cast()))
    }
}

/// A field exposed read-only (`#[abi(get)]`): reading it copies the value.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a reflected field: `#[abi(get)]` copies the value out",
    label = "not `Clone` and convertible to an ABI value",
    note = "a read-only field must be `Clone` and an ABI type (int, float, bool, String, Vec<T>, Option<T>, tensors, objects, ...)",
    note = "for atomics and locks use `#[abi(get, set)]`, or leave the field unreflected"
)]
pub trait FieldGet {
    /// The field's reflection.
    const FIELD: &'static TypeDesc;
    /// A copy of the value.
    fn get_any(&self) -> Result<Any, ConvError>;
}

impl<T: Clone + IntoAny> FieldGet for T {
    const FIELD: &'static TypeDesc = T::DESC;
    #[inline]
    fn get_any(&self) -> Result<Any, ConvError> {
        self.clone().into_any()
    }
}

/// A field exposed read-write (`#[abi(get, set)]`). Objects are shared by every holder and
/// every thread, so a writable field must synchronise itself: atomics, `Mutex<T>` and
/// `RwLock<T>` qualify, plain values do not (a setter would race with readers).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a writable field: objects are shared across threads",
    label = "not an atomic or a lock",
    note = "`#[abi(get, set)]` needs interior mutability that is safe to share: an atomic integer or bool, `Mutex<T>` or `RwLock<T>` of an ABI type",
    note = "use `#[abi(get)]` for a read-only copy"
)]
pub trait SharedField {
    /// The field's reflection.
    const FIELD: &'static TypeDesc;
    /// A copy of the current value.
    fn load_any(&self) -> Result<Any, ConvError>;
    /// Replaces the value.
    fn store_view(&self, v: &AnyView<'_>) -> Result<(), ConvError>;
}

macro_rules! atomic_field {
    ($($atomic:ty => $t:ty),* $(,)?) => {$(
        impl SharedField for $atomic {
            const FIELD: &'static TypeDesc = <$t as AbiType>::DESC;
            fn load_any(&self) -> Result<Any, ConvError> {
                self.load(Ordering::Acquire).into_any()
            }
            fn store_view(&self, v: &AnyView<'_>) -> Result<(), ConvError> {
                self.store(<$t as FromArg>::from_arg(v)?, Ordering::Release);
                Ok(())
            }
        }
    )*};
}

atomic_field!(
    core::sync::atomic::AtomicBool => bool,
    core::sync::atomic::AtomicI8 => i8,
    core::sync::atomic::AtomicI16 => i16,
    core::sync::atomic::AtomicI32 => i32,
    core::sync::atomic::AtomicI64 => i64,
    core::sync::atomic::AtomicU8 => u8,
    core::sync::atomic::AtomicU16 => u16,
    core::sync::atomic::AtomicU32 => u32,
    core::sync::atomic::AtomicU64 => u64,
    core::sync::atomic::AtomicIsize => isize,
    core::sync::atomic::AtomicUsize => usize,
);

impl<T: Clone + IntoAny + FromAny> SharedField for Mutex<T> {
    const FIELD: &'static TypeDesc = T::DESC;
    fn load_any(&self) -> Result<Any, ConvError> {
        let value = self.lock().unwrap_or_else(|e| e.into_inner()).clone();
        value.into_any()
    }
    fn store_view(&self, v: &AnyView<'_>) -> Result<(), ConvError> {
        let value = T::from_any(*v)?;
        *self.lock().unwrap_or_else(|e| e.into_inner()) = value;
        Ok(())
    }
}

impl<T: Clone + IntoAny + FromAny> SharedField for RwLock<T> {
    const FIELD: &'static TypeDesc = T::DESC;
    fn load_any(&self) -> Result<Any, ConvError> {
        let value = self.read().unwrap_or_else(|e| e.into_inner()).clone();
        value.into_any()
    }
    fn store_view(&self, v: &AnyView<'_>) -> Result<(), ConvError> {
        let value = T::from_any(*v)?;
        *self.write().unwrap_or_else(|e| e.into_inner()) = value;
        Ok(())
    }
}

/// Addresses below this are never an object: a host that hands a field accessor a null
/// object handle plus the field's offset lands here (docs/ABI.md section 10).
pub const NULL_PAGE: usize = 4096;

/// Field `I` of `T`'s reflected fields, at `field`; a `TypeError` naming the type and the
/// field when the object it belongs to would start inside the first page of memory. That
/// is a heuristic for a null handle: tvm_ffi, for one, builds instances with a null handle
/// when a class is called without its constructor registered, and passes `null + offset`.
///
/// # Safety
/// Unless refused, `field` points to a live `F`, field `I` of a live `T` object.
#[inline(always)]
unsafe fn field_at<'a, T: Object, F, const I: usize>(field: *mut c_void, access: &str) -> crate::Result<&'a F> {
    // The object starts `CELL_OFFSET + offset` bytes before the field; compared as one
    // constant, the check is a compare and a branch.
    let limit = const { NULL_PAGE + crate::ffi::CELL_OFFSET + T::CLASS.fields[I].offset };
    if (field as usize) < limit {
        return Err(null_object_field(T::CLASS.key, T::CLASS.fields[I].name, access));
    }
    // SAFETY: not a null handle; the rest is guaranteed by the caller.
    Ok(unsafe { &*field.cast::<F>() })
}

#[cold]
#[inline(never)]
fn null_object_field(key: &str, field: &str, access: &str) -> crate::Error {
    crate::Error::type_error(format!(
        "cannot {access} field `{field}` of `{key}`: the object handle is null (an instance made without its \
         constructor; register the class with tvm_ffi.register_object, as the package `abi stubs` writes does)"
    ))
}

/// The getter of read-only field `I` of `T`, of type `F` (`TVMFFIFieldGetter`).
///
/// # Safety
/// `field` points to a live `F` inside a `T` object, or is a null handle plus the field's
/// offset (refused); `result` is null or writable.
pub unsafe extern "C" fn get_field<T: Object, F: FieldGet, const I: usize>(
    field: *mut c_void,
    result: *mut RawAny,
) -> i32 {
    // SAFETY: guaranteed by the caller.
    unsafe { ffi_boundary(result, || Ok(field_at::<T, F, I>(field, "read")?.get_any()?)) }
}

/// The getter of writable field `I` of `T`, of type `F`.
///
/// # Safety
/// As [`get_field`].
pub unsafe extern "C" fn get_shared_field<T: Object, F: SharedField, const I: usize>(
    field: *mut c_void,
    result: *mut RawAny,
) -> i32 {
    // SAFETY: guaranteed by the caller.
    unsafe { ffi_boundary(result, || Ok(field_at::<T, F, I>(field, "read")?.load_any()?)) }
}

/// The setter of writable field `I` of `T`, of type `F` (`TVMFFIFieldSetter`): the value
/// is converted first, then stored through the field's own synchronisation.
///
/// # Safety
/// `field` is as in [`get_field`]; `value` is null or a live value.
pub unsafe extern "C" fn set_shared_field<T: Object, F: SharedField, const I: usize>(
    field: *mut c_void,
    value: *const RawAny,
) -> i32 {
    let mut unused = RawAny::NONE;
    // SAFETY: `unused` is writable; the rest is guaranteed by the caller.
    unsafe {
        ffi_boundary(&mut unused, || {
            let field = field_at::<T, F, I>(field, "write")?;
            let value = value.as_ref().ok_or_else(|| crate::Error::value_error("field value is a null pointer"))?;
            let view = AnyView::from_raw(*value);
            field.store_view(&view)?;
            Ok(Any::default())
        })
    }
}
