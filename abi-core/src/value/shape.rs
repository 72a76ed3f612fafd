//! Shape objects (69): an immutable list of i64 dimensions.

use core::fmt;

use crate::ffi::type_index as ti;
use crate::value::object::{new_object, object_handle, ObjectRef};

/// `TVMFFIShapeCell` followed by the owned dimensions.
#[repr(C)]
struct ShapeCell {
    data: *const i64,
    size: usize,
    dims: Box<[i64]>,
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
        let dims: Box<[i64]> = dims.into();
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
