//! IREE VM references (`iree_vm_ref_t`) without IREE's code: the 16-byte `{ptr, type}` pair
//! a `r` slot holds, its type name read from the type descriptor, and the intrusive counter
//! it is retained and released through (IREE 3.13's `vm/ref.h`; docs/IREE-DYNAMIC-MODULE.md).
//! Arguments are borrowed ([`RawRef`]); results and what HAL imports return are owned
//! ([`VmRef`], released on drop).

use core::ffi::c_void;
use core::sync::atomic::{AtomicI32, Ordering};

use crate::iree::vm::StringView;

/// `iree_vm_ref_t`: the object and its type (a descriptor address whose low 3 bits give the
/// counter's offset from the object, in 4-byte units).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct RawRef {
    /// The object, or null.
    pub ptr: *mut c_void,
    /// The type: descriptor address | counter offset.
    pub type_: usize,
}

/// The head of `iree_vm_ref_type_descriptor_t`.
#[repr(C)]
struct Descriptor {
    destroy: Option<unsafe extern "C" fn(*mut c_void)>,
    type_name: StringView,
}

const TAG_BITS: usize = 0b111;

static_assertions::const_assert_eq!(core::mem::size_of::<RawRef>(), 16);
static_assertions::const_assert_eq!(core::mem::offset_of!(Descriptor, type_name), 8);

impl RawRef {
    /// The null reference.
    pub const NULL: RawRef = RawRef { ptr: core::ptr::null_mut(), type_: 0 };

    /// Reads the reference in a `r` slot.
    ///
    /// # Safety
    /// `slot` has 16 readable bytes.
    pub unsafe fn read(slot: *const u8) -> RawRef {
        // SAFETY: the caller's contract; unaligned reads need nothing of the host.
        unsafe { slot.cast::<RawRef>().read_unaligned() }
    }

    /// The registered type name (`hal.buffer_view`); empty for a null reference.
    ///
    /// # Safety
    /// A non-null reference is a live IREE reference (its descriptor is valid).
    pub unsafe fn type_name(&self) -> &[u8] {
        let descriptor = (self.type_ & !TAG_BITS) as *const Descriptor;
        if self.ptr.is_null() || descriptor.is_null() {
            return &[];
        }
        // SAFETY: the caller's contract; descriptors are static in IREE.
        unsafe { (*descriptor).type_name.bytes() }
    }

    /// The intrusive counter.
    ///
    /// # Safety
    /// A live, non-null reference.
    unsafe fn counter(&self) -> &AtomicI32 {
        // SAFETY: IREE keeps an `iree_atomic_ref_count_t` (an i32) `type & 7` i32s into
        // the object.
        unsafe { &*self.ptr.cast::<AtomicI32>().add(self.type_ & TAG_BITS) }
    }
}

/// An owned reference: released (and destroyed at zero) when dropped.
#[derive(Debug)]
pub struct VmRef(RawRef);

impl VmRef {
    /// Takes ownership of a reference an IREE function moved to us.
    ///
    /// # Safety
    /// `raw` is null or a live reference whose count includes this one.
    pub unsafe fn from_owned(raw: RawRef) -> VmRef {
        VmRef(raw)
    }

    /// A new owned reference to a borrowed one (retains it).
    ///
    /// # Safety
    /// `raw` is null or live.
    pub unsafe fn retain(raw: RawRef) -> VmRef {
        if !raw.ptr.is_null() {
            // SAFETY: live (the caller's contract).
            unsafe { raw.counter() }.fetch_add(1, Ordering::Relaxed);
        }
        VmRef(raw)
    }

    /// The reference, borrowed.
    pub fn raw(&self) -> RawRef {
        self.0
    }

    /// Whether it refers to nothing.
    pub fn is_null(&self) -> bool {
        self.0.ptr.is_null()
    }

    /// Gives the reference away (a result moved to the caller).
    pub fn into_raw(self) -> RawRef {
        let raw = self.0;
        core::mem::forget(self);
        raw
    }
}

impl Drop for VmRef {
    fn drop(&mut self) {
        if self.0.ptr.is_null() {
            return;
        }
        // SAFETY: owned, so live; the counter includes this reference.
        if unsafe { self.0.counter() }.fetch_sub(1, Ordering::AcqRel) == 1 {
            let descriptor = (self.0.type_ & !TAG_BITS) as *const Descriptor;
            // SAFETY: the last reference: IREE's release destroys through the descriptor.
            if let Some(destroy) = unsafe { (*descriptor).destroy } {
                // SAFETY: as above.
                unsafe { destroy(self.0.ptr) };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static DESTROYED: AtomicI32 = AtomicI32::new(0);

    unsafe extern "C" fn destroy(_: *mut c_void) {
        DESTROYED.fetch_add(1, Ordering::Relaxed);
    }

    #[repr(C, align(8))]
    struct Object {
        payload: i32,
        counter: AtomicI32,
    }

    #[repr(C, align(8))]
    struct AlignedDescriptor(Descriptor, usize);

    // SAFETY: read-only static data.
    unsafe impl Sync for AlignedDescriptor {}

    static TYPE: AlignedDescriptor =
        AlignedDescriptor(Descriptor { destroy: Some(destroy), type_name: StringView::of("test.object") }, 0);

    #[test]
    fn counts_through_the_tagged_type_and_destroys_at_zero() {
        let mut object = Object { payload: 7, counter: AtomicI32::new(1) };
        // The counter is one i32 into the object: tag 1.
        let raw = RawRef { ptr: (&raw mut object).cast(), type_: (&raw const TYPE) as usize | 1 };
        // SAFETY: a live object with a static descriptor.
        unsafe {
            assert_eq!(raw.type_name(), b"test.object");
            let extra = VmRef::retain(raw);
            assert_eq!(object.counter.load(Ordering::Relaxed), 2);
            drop(extra);
            assert_eq!(DESTROYED.load(Ordering::Relaxed), 0);
            drop(VmRef::from_owned(raw));
        }
        assert_eq!(object.counter.load(Ordering::Relaxed), 0);
        assert_eq!(DESTROYED.load(Ordering::Relaxed), 1);
        assert_eq!(object.payload, 7);
        // SAFETY: null references have no descriptor to read.
        assert!(unsafe { RawRef::NULL.type_name() }.is_empty());
    }
}
