//! [`Obj<T>`]: an owned strong reference to a user object (a [`Object`] value behind the
//! object header), shared with every other holder: Python, C++ and Rust, any thread.

use core::fmt;
use core::marker::PhantomData;
use core::ops::Deref;

use crate::runtime::object_types::class::{is_subtype, Object};
use crate::value::error::Result;
use crate::value::object::{new_object, ObjectRef};

/// An owned strong reference to an object of type `T` (or of a subtype of `T`).
///
/// `Clone` adds a reference; the value is dropped exactly once, when the last strong
/// reference (from any holder) goes. `Deref` gives `&T`: objects are shared, so mutation
/// goes through interior mutability (atomics, locks) the type chooses.
#[repr(transparent)]
pub struct Obj<T: Object> {
    obj: ObjectRef,
    _type: PhantomData<T>,
}

impl<T: Object> Obj<T> {
    /// Moves `value` into a new object.
    ///
    /// # Panics
    /// When `T` could not be registered in the process's type table (a different layout
    /// is registered under its key); [`Obj::try_new`] returns that error instead. The
    /// unwind skips the panic hook (`std::panic::resume_unwind`): in an exported function,
    /// a method or a callback the caller gets that `TypeError` unchanged (the library said
    /// once, when it loaded, that the type was refused); anywhere else (a host program's
    /// `main`, a thread) the error is printed to stderr where the unwind ends.
    pub fn new(value: T) -> Obj<T> {
        Obj::try_new(value).unwrap_or_else(|e| refused_type(e))
    }

    /// Moves `value` into a new object, or fails with the type's registration error (a
    /// `TypeError` naming both layouts).
    pub fn try_new(value: T) -> Result<Obj<T>> {
        let index = T::type_index()?;
        Ok(Obj { obj: new_object(index, value), _type: PhantomData })
    }

    /// Wraps an object reference when it holds a `T` (or a subtype), or gives it back.
    pub fn from_object(obj: ObjectRef) -> core::result::Result<Obj<T>, ObjectRef> {
        match Obj::<T>::accepts_index(obj.type_index()) {
            Ok(true) => Ok(Obj { obj, _type: PhantomData }),
            _ => Err(obj),
        }
    }

    /// Wraps an object reference already known to hold a `T` (or a subtype).
    ///
    /// # Safety
    /// `obj`'s type index passed [`Obj::accepts_index`].
    #[inline(always)]
    pub(crate) unsafe fn from_object_unchecked(obj: ObjectRef) -> Obj<T> {
        Obj { obj, _type: PhantomData }
    }

    /// Whether objects of `type_index` hold a `T`: one compare once the type is
    /// registered, the ancestry (or the type's registration error) otherwise.
    #[inline(always)]
    pub(crate) fn accepts_index(type_index: i32) -> Result<bool> {
        if T::slot().ready_index() == type_index {
            return Ok(true);
        }
        Self::accepts_slow(type_index)
    }

    #[cold]
    #[inline(never)]
    fn accepts_slow(type_index: i32) -> Result<bool> {
        let target = T::type_index()?;
        Ok(is_subtype(type_index, target))
    }

    /// The underlying object reference.
    pub fn as_object(&self) -> &ObjectRef {
        &self.obj
    }

    /// Gives up the typed handle, keeping the reference.
    pub fn into_object(self) -> ObjectRef {
        self.obj
    }

    /// Whether two handles refer to the same object.
    pub fn ptr_eq(a: &Obj<T>, b: &Obj<T>) -> bool {
        core::ptr::eq(a.obj.as_ptr(), b.obj.as_ptr())
    }

    /// The current number of strong references.
    pub fn strong_count(this: &Obj<T>) -> u32 {
        this.obj.strong_count()
    }
}

impl<T: Object> Deref for Obj<T> {
    type Target = T;
    #[inline(always)]
    fn deref(&self) -> &T {
        // SAFETY: the object holds a `T` (or a subtype, which embeds its parent at offset
        // 0) at the cell offset, alive while `self` holds its reference.
        unsafe { self.obj.cell::<T>() }
    }
}

impl<T: Object> Clone for Obj<T> {
    #[inline]
    fn clone(&self) -> Obj<T> {
        Obj { obj: self.obj.clone(), _type: PhantomData }
    }
}

impl<T: Object + fmt::Debug> fmt::Debug for Obj<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Obj").field(&**self).finish()
    }
}

impl<T: Object> From<Obj<T>> for ObjectRef {
    fn from(o: Obj<T>) -> ObjectRef {
        o.obj
    }
}

/// What an `#[abi(init)]` method may return: the new value, an `Obj` of it, or either in
/// a `Result`.
#[diagnostic::on_unimplemented(
    message = "`#[abi(init)]` must return the new object, not `{Self}`",
    label = "expected `{T}`, `Obj<{T}>`, or a `Result` of one",
    note = "the constructor Python's `__init__` calls returns the object it made"
)]
pub trait InitResult<T> {}
impl<T: Object> InitResult<T> for T {}
impl<T: Object> InitResult<T> for Obj<T> {}
impl<T: Object, E> InitResult<T> for core::result::Result<T, E> {}
impl<T: Object, E> InitResult<T> for core::result::Result<Obj<T>, E> {}

/// Compile-time check of an `#[abi(init)]` method's return type (for generated code).
pub const fn check_init<T: Object, R: InitResult<T>>() {}

#[cold]
#[inline(never)]
fn refused_type(e: crate::Error) -> ! {
    crate::runtime::calls::boundary::RefusedType::unwind(e)
}
