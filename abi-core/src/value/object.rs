//! The 24-byte object header, the strong/weak reference protocol (docs/ABI.md section 2), the
//! owning [`ObjectRef`] handle and allocation of objects whose memory Rust manages.

use core::ffi::c_void;
use core::mem::{align_of, offset_of, ManuallyDrop};
use core::ptr::NonNull;
use core::sync::atomic::{AtomicU64, Ordering};

use static_assertions::const_assert_eq;

use crate::ffi::{
    cell_ptr, ObjectHeader, CELL_OFFSET, DELETER_BOTH, DELETER_STRONG, DELETER_WEAK, INITIAL_REF_COUNT, STRONG_MASK,
    WEAK_UNIT,
};

/// Adds a strong reference.
///
/// # Safety
/// `obj` points to a live object.
#[inline(always)]
pub unsafe fn inc_ref(obj: *mut ObjectHeader) {
    // SAFETY: the caller guarantees `obj` is live.
    unsafe { (*obj).combined_ref_count.fetch_add(1, Ordering::Relaxed) };
}

/// Releases a strong reference, running the deleter as the protocol requires.
///
/// # Safety
/// `obj` points to a live object and the caller owns the strong reference it releases.
#[inline]
pub unsafe fn dec_ref(obj: *mut ObjectHeader) {
    // SAFETY: the caller owns a strong reference, so the object is live.
    let header = unsafe { &*obj };
    let old = header.combined_ref_count.fetch_sub(1, Ordering::Release);
    if old & STRONG_MASK == 1 {
        // SAFETY: this was the last strong reference.
        unsafe { release_last_strong(obj, old) }
    }
}

#[cold]
unsafe fn release_last_strong(obj: *mut ObjectHeader, old: u64) {
    // SAFETY: the caller dropped the last strong reference; the weak unit keeps memory alive.
    let header = unsafe { &*obj };
    acquire(&header.combined_ref_count);
    let Some(deleter) = header.deleter else {
        return;
    };
    if old == INITIAL_REF_COUNT {
        // No weak references besides the strong group's own unit: one call does both.
        // SAFETY: nothing else references the object.
        unsafe { deleter(obj.cast(), DELETER_BOTH) };
        return;
    }
    // SAFETY: the payload is no longer reachable through strong references.
    unsafe { deleter(obj.cast(), DELETER_STRONG) };
    let old_weak = header.combined_ref_count.fetch_sub(WEAK_UNIT, Ordering::Release);
    if old_weak >> 32 == 1 {
        acquire(&header.combined_ref_count);
        // SAFETY: the last weak unit is gone: free the memory.
        unsafe { deleter(obj.cast(), DELETER_WEAK) };
    }
}

/// Makes every release decrement of `count` before this thread's last one happen before
/// what follows (destroying the value or freeing the memory): an acquire load of the
/// count, not a fence, as std's `Arc` does under ThreadSanitizer, which does not model
/// fences (with one it reports the free racing another thread's decrement). Every change
/// of the count is a read-modify-write, so the load reads from the release sequence of
/// each earlier decrement: the same guarantee as the fence.
#[inline(always)]
fn acquire(count: &AtomicU64) {
    count.load(Ordering::Acquire);
}

/// Adds a weak reference: the memory stays until the last weak reference goes, the value
/// only until the last strong one.
///
/// # Safety
/// The caller holds a strong or weak reference to `obj`.
#[inline]
pub unsafe fn inc_weak(obj: *mut ObjectHeader) {
    // SAFETY: the caller's reference keeps the memory alive.
    unsafe { (*obj).combined_ref_count.fetch_add(WEAK_UNIT, Ordering::Relaxed) };
}

/// Releases a weak reference, freeing the memory when it was the last reference of any kind.
///
/// # Safety
/// The caller owns the weak reference it releases.
#[inline]
pub unsafe fn dec_weak(obj: *mut ObjectHeader) {
    // SAFETY: the caller's weak reference keeps the memory alive until this subtraction.
    let header = unsafe { &*obj };
    if header.combined_ref_count.fetch_sub(WEAK_UNIT, Ordering::Release) == WEAK_UNIT {
        acquire(&header.combined_ref_count);
        if let Some(deleter) = header.deleter {
            // SAFETY: no strong and no other weak reference is left: free the memory.
            unsafe { deleter(obj.cast(), DELETER_WEAK) };
        }
    }
}

/// Adds a strong reference if the value is still alive (its strong count is not zero).
///
/// # Safety
/// The caller holds a weak reference to `obj`.
pub unsafe fn try_upgrade(obj: *mut ObjectHeader) -> bool {
    // SAFETY: the caller's weak reference keeps the header readable.
    let count = unsafe { &(*obj).combined_ref_count };
    let mut old = count.load(Ordering::Relaxed);
    // A compare-exchange, never an add: the count must not rise from zero, because the value
    // of an object whose strong count reached zero is being (or has been) dropped.
    while old & STRONG_MASK != 0 {
        match count.compare_exchange_weak(old, old + 1, Ordering::AcqRel, Ordering::Relaxed) {
            Ok(_) => return true,
            Err(current) => old = current,
        }
    }
    false
}

/// The strong count of a live object (for tests and diagnostics).
///
/// # Safety
/// `obj` points to a live object.
pub unsafe fn strong_count(obj: *const ObjectHeader) -> u32 {
    // SAFETY: the caller guarantees liveness.
    (unsafe { (*obj).combined_ref_count.load(Ordering::Acquire) } & STRONG_MASK) as u32
}

/// An owned strong reference to an object of any type.
#[derive(Debug)]
#[repr(transparent)]
pub struct ObjectRef(NonNull<ObjectHeader>);

// SAFETY: the reference count is atomic; objects are shared immutably, as in tvm-ffi.
unsafe impl Send for ObjectRef {}
// SAFETY: see above.
unsafe impl Sync for ObjectRef {}

impl ObjectRef {
    /// Takes ownership of one strong reference.
    ///
    /// # Safety
    /// `ptr` is a live object and the caller transfers one strong reference. `ptr` must
    /// carry provenance over the whole object, header and cell (derive it from a pointer to
    /// the object, not from `&obj.header`: a reference to one field grants no access to the
    /// fields after it, which the cell readers and the deleter touch).
    #[inline(always)]
    pub unsafe fn from_raw(ptr: NonNull<ObjectHeader>) -> ObjectRef {
        ObjectRef(ptr)
    }

    /// Adds a reference to a borrowed object.
    ///
    /// # Safety
    /// `ptr` is a live object, with provenance over all of it (as [`ObjectRef::from_raw`]).
    #[inline(always)]
    pub unsafe fn from_borrowed(ptr: NonNull<ObjectHeader>) -> ObjectRef {
        // SAFETY: the caller guarantees liveness.
        unsafe { inc_ref(ptr.as_ptr()) };
        ObjectRef(ptr)
    }

    /// The header pointer (still owned by `self`).
    #[inline(always)]
    pub fn as_ptr(&self) -> *mut ObjectHeader {
        self.0.as_ptr()
    }

    /// Gives up ownership of the reference.
    #[inline(always)]
    pub fn into_raw(self) -> NonNull<ObjectHeader> {
        ManuallyDrop::new(self).0
    }

    /// The object's type index.
    #[inline(always)]
    pub fn type_index(&self) -> i32 {
        // SAFETY: `self` keeps the object alive.
        unsafe { (*self.0.as_ptr()).type_index }
    }

    /// The current strong count.
    pub fn strong_count(&self) -> u32 {
        // SAFETY: `self` keeps the object alive.
        unsafe { strong_count(self.0.as_ptr()) }
    }

    /// The cell at offset 24, read as `C`.
    ///
    /// # Safety
    /// The object's layout must begin with a `C` at [`CELL_OFFSET`].
    #[inline(always)]
    pub unsafe fn cell<C>(&self) -> &C {
        // SAFETY: guaranteed by the caller; `self` keeps the object alive.
        unsafe { &*cell_ptr::<C>(self.0.as_ptr()) }
    }
}

impl Clone for ObjectRef {
    #[inline]
    fn clone(&self) -> ObjectRef {
        // SAFETY: `self` keeps the object alive.
        unsafe { ObjectRef::from_borrowed(self.0) }
    }
}

impl Drop for ObjectRef {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: `self` owns one strong reference.
        unsafe { dec_ref(self.0.as_ptr()) }
    }
}

/// An object allocated by Rust: header followed by a cell whose leading fields are the
/// public ABI cell of its type.
#[repr(C)]
struct RustObject<C> {
    header: ObjectHeader,
    cell: ManuallyDrop<C>,
}

/// The deleter of every [`RustObject`]: drops the cell on Strong, frees memory on Weak.
unsafe extern "C" fn rust_object_deleter<C>(obj: *mut c_void, flags: i32) {
    let obj = obj.cast::<RustObject<C>>();
    if flags & DELETER_STRONG != 0 {
        // SAFETY: called once when the last strong reference goes; the cell is initialised.
        unsafe { ManuallyDrop::drop(&mut (*obj).cell) };
    }
    if flags & DELETER_WEAK != 0 {
        // SAFETY: allocated by `Box` in `new_object`; the cell was dropped already (ManuallyDrop).
        drop(unsafe { Box::from_raw(obj) });
    }
}

/// Allocates an object of `type_index` holding `cell`, with one strong reference.
pub fn new_object<C: Send + Sync>(type_index: i32, cell: C) -> ObjectRef {
    const { assert!(align_of::<C>() <= 8, "object cells must start at offset 24") };
    const_assert_eq!(offset_of!(RustObject<[u64; 1]>, cell), CELL_OFFSET);
    let obj = Box::new(RustObject {
        header: ObjectHeader {
            combined_ref_count: AtomicU64::new(INITIAL_REF_COUNT),
            type_index,
            padding: 0,
            deleter: Some(rust_object_deleter::<C>),
        },
        cell: ManuallyDrop::new(cell),
    });
    let ptr = NonNull::from(Box::leak(obj)).cast::<ObjectHeader>();
    // SAFETY: freshly allocated with one strong reference.
    unsafe { ObjectRef::from_raw(ptr) }
}

/// A typed owning handle over [`ObjectRef`] for one family of object type indices
/// ([`crate::Str`], [`crate::Error`], [`crate::Function`], ...): the handle is what
/// crosses the API, the object behind it is shared with every other holder.
pub trait ObjectHandle: Sized {
    /// Whether an object of `type_index` has this handle's layout.
    fn accepts(type_index: i32) -> bool;

    /// Wraps `obj` without checking its type index.
    ///
    /// # Safety
    /// `Self::accepts(obj.type_index())` holds and the object has the layout that implies.
    unsafe fn from_object_unchecked(obj: ObjectRef) -> Self;

    /// The underlying object.
    fn as_object(&self) -> &ObjectRef;

    /// Gives up the handle, keeping the reference.
    fn into_object(self) -> ObjectRef;

    /// Wraps `obj` when its type index fits, or gives it back.
    #[inline]
    fn from_object(obj: ObjectRef) -> Result<Self, ObjectRef> {
        if Self::accepts(obj.type_index()) {
            // SAFETY: checked just above.
            Ok(unsafe { Self::from_object_unchecked(obj) })
        } else {
            Err(obj)
        }
    }
}

impl ObjectHandle for ObjectRef {
    #[inline(always)]
    fn accepts(type_index: i32) -> bool {
        crate::ffi::type_index::is_object(type_index)
    }
    #[inline(always)]
    unsafe fn from_object_unchecked(obj: ObjectRef) -> ObjectRef {
        obj
    }
    #[inline(always)]
    fn as_object(&self) -> &ObjectRef {
        self
    }
    #[inline(always)]
    fn into_object(self) -> ObjectRef {
        self
    }
}

/// Implements [`ObjectHandle`] for a newtype `$ty(ObjectRef)` accepting the type indices
/// that match `$pattern`.
macro_rules! object_handle {
    ($ty:ty, $pattern:pat) => {
        impl $crate::value::object::ObjectHandle for $ty {
            #[inline(always)]
            fn accepts(type_index: i32) -> bool {
                matches!(type_index, $pattern)
            }
            #[inline(always)]
            unsafe fn from_object_unchecked(obj: $crate::value::object::ObjectRef) -> Self {
                debug_assert!(<Self as $crate::value::object::ObjectHandle>::accepts(obj.type_index()));
                Self(obj)
            }
            #[inline(always)]
            fn as_object(&self) -> &$crate::value::object::ObjectRef {
                &self.0
            }
            #[inline(always)]
            fn into_object(self) -> $crate::value::object::ObjectRef {
                self.0
            }
        }
    };
}
pub(crate) use object_handle;
