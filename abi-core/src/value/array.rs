//! Array (71) and List (75) objects: a `TVMFFISeqCell` pointing at owned `Any` elements.

use core::fmt;
use core::mem::ManuallyDrop;

use crate::ffi::type_index as ti;
use crate::ffi::{cell_ptr, ObjectHeader, SeqCell};
use crate::value::any::{Any, AnyView};
use crate::value::object::{new_object, object_handle, ObjectRef};

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

object_handle!(Array, ti::ARRAY | ti::LIST);

impl Array {
    /// A new Array object holding `items` in order.
    pub fn new(items: Vec<Any>) -> Array {
        Array::with_index(ti::ARRAY, items)
    }

    /// A new object of `index` (Array, or List, whose layout is the same) holding `items`.
    pub(crate) fn with_index(index: i32, items: Vec<Any>) -> Array {
        let mut items = ManuallyDrop::new(items);
        let cell = SeqCell {
            data: items.as_mut_ptr().cast(),
            size: items.len() as i64,
            capacity: items.capacity() as i64,
            data_deleter: None,
        };
        Array(new_object(index, ArrayCell(cell)))
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

    /// Whether this is a List object rather than an Array.
    pub fn is_list(&self) -> bool {
        self.0.type_index() == ti::LIST
    }
}

/// The elements of an Array/List object as views.
///
/// # Safety
/// `obj` is a live Array or List object, alive for `'a`.
pub(crate) unsafe fn seq_slice<'a>(obj: *mut ObjectHeader) -> &'a [AnyView<'a>] {
    // SAFETY: guaranteed by the caller.
    let cell = unsafe { &*cell_ptr::<SeqCell>(obj) };
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
