//! Array (71) and List (75) objects: a `TVMFFISeqCell` pointing at owned `Any` elements.

use core::ffi::c_void;
use core::fmt;
use core::mem::{offset_of, ManuallyDrop};

use static_assertions::{assert_eq_size, const_assert_eq};

use crate::any::{Any, AnyView, RawAny};
use crate::object::{new_object, ObjectRef};
use crate::type_index as ti;

/// `TVMFFISeqCell`.
#[repr(C)]
#[derive(Debug)]
pub struct SeqCell {
    /// First element (`Any[size]`).
    pub data: *mut RawAny,
    /// Elements in use.
    pub size: i64,
    /// Elements allocated.
    pub capacity: i64,
    /// Frees `data` when non-null (C++ lists); null when the owner frees it.
    pub data_deleter: Option<unsafe extern "C" fn(*mut c_void)>,
}

assert_eq_size!(SeqCell, [u8; 32]);
const_assert_eq!(offset_of!(SeqCell, size), 8);
const_assert_eq!(offset_of!(SeqCell, data_deleter), 24);

/// Our array: the cell points into a `Vec<Any>` buffer that our deleter frees. The cell's
/// current size is read at destruction, so a host that moved elements out is honoured.
#[repr(C)]
struct ArrayCell(SeqCell);

// SAFETY: the elements are owned `Any`s (Send + Sync); the buffer is owned by the cell.
unsafe impl Send for ArrayCell {}
// SAFETY: see above.
unsafe impl Sync for ArrayCell {}

impl Drop for ArrayCell {
    fn drop(&mut self) {
        let cell = &self.0;
        // SAFETY: `data` came from a Vec<Any> of this capacity; `size` elements are owned.
        drop(unsafe { Vec::from_raw_parts(cell.data.cast::<Any>(), cell.size as usize, cell.capacity as usize) });
    }
}

/// An owned Array or List object (ours or a host's), read through its sequence cell.
#[derive(Clone)]
pub struct Array(ObjectRef);

impl Array {
    /// A new Array object holding `items` in order.
    pub fn new(items: Vec<Any>) -> Array {
        let mut items = ManuallyDrop::new(items);
        let cell = SeqCell {
            data: items.as_mut_ptr().cast(),
            size: items.len() as i64,
            capacity: items.capacity() as i64,
            data_deleter: None,
        };
        Array(new_object(ti::ARRAY, ArrayCell(cell)))
    }

    /// Wraps an Array or List object.
    pub fn from_object(obj: ObjectRef) -> Result<Array, ObjectRef> {
        match obj.type_index() {
            ti::ARRAY | ti::LIST => Ok(Array(obj)),
            _ => Err(obj),
        }
    }

    /// The underlying object.
    pub fn as_object(&self) -> &ObjectRef {
        &self.0
    }

    /// The elements as borrowed views, in order.
    pub fn as_slice(&self) -> &[AnyView<'_>] {
        // SAFETY: Array/List objects start their cell with a SeqCell.
        unsafe { seq_slice(self.0.as_ptr().cast()) }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.as_slice().len()
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The elements of an Array/List object as views.
///
/// # Safety
/// `obj` is a live Array or List object, alive for `'a`.
pub(crate) unsafe fn seq_slice<'a>(obj: *mut crate::object::ObjectHeader) -> &'a [AnyView<'a>] {
    // SAFETY: guaranteed by the caller.
    let cell = unsafe { &*crate::object::cell_ptr::<SeqCell>(obj) };
    if cell.size <= 0 || cell.data.is_null() {
        return &[];
    }
    // SAFETY: the cell owns `size` initialised elements, alive while the object is.
    unsafe { AnyView::slice_from_raw(core::slice::from_raw_parts(cell.data, cell.size as usize)) }
}

impl fmt::Debug for Array {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}
