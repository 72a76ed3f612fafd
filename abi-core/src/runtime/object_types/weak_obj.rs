//! [`WeakObj<T>`]: a weak reference to a user object, the Rust face of the weak half of the
//! reference protocol (docs/ABI.md section 2) that C++ `WeakObjectPtr` uses too.

use core::fmt;
use core::marker::PhantomData;
use core::ptr::NonNull;

use crate::ffi::ObjectHeader;
use crate::runtime::object_types::class::Object;
use crate::runtime::object_types::obj::Obj;
use crate::value::object::{dec_weak, inc_weak, strong_count, try_upgrade, ObjectRef};

/// A weak reference to an object of type `T`: it keeps the object's memory, not its value.
///
/// Made by [`Obj::downgrade`]. The value is dropped when the last strong reference goes,
/// whatever weak references remain (from Rust or from a C++ `WeakObjectPtr`);
/// [`WeakObj::upgrade`] then returns `None`. The memory is freed with the last reference
/// of either kind.
pub struct WeakObj<T: Object> {
    obj: NonNull<ObjectHeader>,
    _type: PhantomData<T>,
}

// SAFETY: the reference counts are atomic and `T: Send + Sync` (required by `Object`); a
// weak reference only reads the header or upgrades to an `Obj<T>`, itself `Send + Sync`.
unsafe impl<T: Object> Send for WeakObj<T> {}
// SAFETY: see above.
unsafe impl<T: Object> Sync for WeakObj<T> {}

impl<T: Object> Obj<T> {
    /// A weak reference to the same object.
    pub fn downgrade(this: &Obj<T>) -> WeakObj<T> {
        let obj = this.as_object().as_ptr();
        // SAFETY: `this` holds a strong reference, so the object is live.
        unsafe { inc_weak(obj) };
        // SAFETY: an object header pointer is never null.
        WeakObj { obj: unsafe { NonNull::new_unchecked(obj) }, _type: PhantomData }
    }
}

impl<T: Object> WeakObj<T> {
    /// A strong reference, if the value has not been dropped yet.
    pub fn upgrade(&self) -> Option<Obj<T>> {
        // SAFETY: `self` holds a weak reference, so the header is readable.
        if !unsafe { try_upgrade(self.obj.as_ptr()) } {
            return None;
        }
        // SAFETY: `try_upgrade` added the strong reference handed over here, and the object
        // held a `T` when `self` was made from an `Obj<T>`.
        Some(unsafe { Obj::from_object_unchecked(ObjectRef::from_raw(self.obj)) })
    }

    /// The number of strong references left (0 once the value is dropped).
    pub fn strong_count(&self) -> u32 {
        // SAFETY: `self` holds a weak reference, so the header is readable.
        unsafe { strong_count(self.obj.as_ptr()) }
    }
}

impl<T: Object> Clone for WeakObj<T> {
    fn clone(&self) -> WeakObj<T> {
        // SAFETY: `self` holds a weak reference, so the memory is live.
        unsafe { inc_weak(self.obj.as_ptr()) };
        WeakObj { obj: self.obj, _type: PhantomData }
    }
}

impl<T: Object> Drop for WeakObj<T> {
    fn drop(&mut self) {
        // SAFETY: `self` owns the weak reference it releases.
        unsafe { dec_weak(self.obj.as_ptr()) }
    }
}

impl<T: Object> fmt::Debug for WeakObj<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WeakObj").field("type_key", &T::CLASS.key).field("strong", &self.strong_count()).finish()
    }
}
