//! Two bugs Miri must report. `box_moved_after_pointer_taken` is the pattern the runtime's
//! Shape and Tensor cells once had (UB under Stacked Borrows, where moving a `Box` asserts
//! unique access); `write_through_shared_reference` is UB under every aliasing model.

#[cfg(test)]
mod tests {
    /// A pointer into a Box, then the Box moved into a struct, then the pointer read.
    #[test]
    fn box_moved_after_pointer_taken() {
        struct Cell {
            data: *const i64,
            _dims: Box<[i64]>,
        }
        let dims: Box<[i64]> = vec![1, 2, 3].into_boxed_slice();
        let data = dims.as_ptr();
        let cell = Cell { data, _dims: dims };
        // SAFETY: not sound: the move of `dims` invalidated `data` (the point of this test).
        assert_eq!(unsafe { *cell.data }, 1);
    }

    /// A write through a pointer derived from a shared reference.
    #[test]
    #[allow(invalid_reference_casting)]
    fn write_through_shared_reference() {
        let x = 1i64;
        let p = &x as *const i64 as *mut i64;
        // SAFETY: not sound: shared references grant no write access (the point of this test).
        unsafe { *p = 2 };
        assert_eq!(x, 2);
    }
}
