//! Shape objects (69): an immutable list of i64 dimensions.

use core::fmt;

use crate::ffi::type_index as ti;
use crate::value::object::{new_object, object_handle, ObjectRef};

/// `TVMFFIShapeCell` followed by the owned dimensions. A `Vec`, not a `Box`: `data` points
/// into it, and moving a `Box` (into the cell) would assert unique access and invalidate
/// that pointer; moving a `Vec` leaves pointers to its buffer valid.
#[repr(C)]
struct ShapeCell {
    data: *const i64,
    size: usize,
    dims: Vec<i64>,
}

// SAFETY: immutable after construction; `data` points into `dims`.
unsafe impl Send for ShapeCell {}
// SAFETY: see above.
unsafe impl Sync for ShapeCell {}

/// The public prefix of every Shape cell.
#[repr(C)]
struct ShapeView {
    data: *const i64,
    size: usize,
}

/// An owned Shape object.
#[derive(Clone)]
pub struct Shape(ObjectRef);

object_handle!(Shape, ti::SHAPE);

impl Shape {
    /// A new Shape object.
    pub fn new(dims: &[i64]) -> Shape {
        let dims = dims.to_vec();
        Shape(new_object(ti::SHAPE, ShapeCell { data: dims.as_ptr(), size: dims.len(), dims }))
    }

    /// The dimensions.
    pub fn dims(&self) -> &[i64] {
        // SAFETY: every Shape object starts its cell with {data, size}.
        let v = unsafe { self.0.cell::<ShapeView>() };
        if v.size == 0 {
            return &[];
        }
        // SAFETY: `size` dims live as long as the object.
        unsafe { core::slice::from_raw_parts(v.data, v.size) }
    }
}

impl fmt::Debug for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Shape({:?})", self.dims())
    }
}
