//! The 24-byte object header, the strong/weak reference protocol (ABI.md section 2), the
//! owning [`ObjectRef`] handle and allocation of objects whose memory Rust manages.

use core::ffi::c_void;
use core::mem::{align_of, offset_of, size_of, ManuallyDrop};
use core::ptr::NonNull;
use core::sync::atomic::{fence, AtomicU64, Ordering};

use static_assertions::{assert_eq_size, const_assert_eq};

use crate::any::{Any, RawAny};

/// Deleter flag: destroy the payload (strong count reached zero).
pub const DELETER_STRONG: i32 = 1;
/// Deleter flag: free the memory (weak count reached zero).
pub const DELETER_WEAK: i32 = 2;
/// Both flags at once.
pub const DELETER_BOTH: i32 = DELETER_STRONG | DELETER_WEAK;

/// Reference count of a freshly created object: one strong, one weak unit.
pub const INITIAL_REF_COUNT: u64 = 0x1_0000_0001;
const STRONG_MASK: u64 = 0xFFFF_FFFF;
const WEAK_UNIT: u64 = 1 << 32;

/// The deleter signature: `deleter(obj, flags)`.
pub type Deleter = unsafe extern "C" fn(obj: *mut c_void, flags: i32);

/// `TVMFFIObject`: the header at offset 0 of every object.
#[repr(C)]
#[derive(Debug)]
pub struct ObjectHeader {
    /// Strong count in the low 32 bits, weak count in the high 32 bits.
    pub combined_ref_count: AtomicU64,
    /// The object's type index (>= 64).
    pub type_index: i32,
    /// Always zero.
    pub padding: u32,
    /// Called with [`DELETER_STRONG`], [`DELETER_WEAK`] or both.
    pub deleter: Option<Deleter>,
}

assert_eq_size!(ObjectHeader, [u8; 24]);
const_assert_eq!(offset_of!(ObjectHeader, combined_ref_count), 0);
const_assert_eq!(offset_of!(ObjectHeader, type_index), 8);
const_assert_eq!(offset_of!(ObjectHeader, padding), 12);
const_assert_eq!(offset_of!(ObjectHeader, deleter), 16);

/// Offset of the type-specific cell behind the header.
pub const CELL_OFFSET: usize = size_of::<ObjectHeader>();

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
    fence(Ordering::Acquire);
    // SAFETY: the caller dropped the last strong reference; the weak unit keeps memory alive.
    let header = unsafe { &*obj };
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
        fence(Ordering::Acquire);
        // SAFETY: the last weak unit is gone: free the memory.
        unsafe { deleter(obj.cast(), DELETER_WEAK) };
    }
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
    /// `ptr` is a live object and the caller transfers one strong reference.
    #[inline(always)]
    pub unsafe fn from_raw(ptr: NonNull<ObjectHeader>) -> ObjectRef {
        ObjectRef(ptr)
    }

    /// Adds a reference to a borrowed object.
    ///
    /// # Safety
    /// `ptr` is a live object.
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

    /// Converts into an owned [`Any`] with the object's own type index.
    #[inline]
    pub fn into_any(self) -> Any {
        let ty = self.type_index();
        // SAFETY: the reference moves into the Any.
        unsafe { Any::from_raw(RawAny::from_ptr(ty, self.into_raw().as_ptr().cast())) }
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

/// Pointer to the cell of `obj`.
#[inline(always)]
pub fn cell_ptr<C>(obj: *mut ObjectHeader) -> *mut C {
    obj.cast::<u8>().wrapping_add(CELL_OFFSET).cast()
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
