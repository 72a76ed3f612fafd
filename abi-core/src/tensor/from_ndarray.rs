//! [`Tensor::from_ndarray`] (cargo feature `ndarray`): an owned `ndarray` array into a
//! compact CPU tensor, its buffer moved in when the array is in standard (row-major) layout.

use ndarray::{Array, Dimension};

use crate::tensor::{Element, Tensor};
use crate::value::error::{Error, Result};

impl Tensor {
    /// A compact row-major CPU tensor of `array`'s shape and elements. An array in standard
    /// layout (row-major and contiguous, sliced or not) moves its buffer into the tensor
    /// without a copy; any other (transposed, column-major, stepped, reversed) is copied
    /// into row-major order.
    ///
    /// ```
    /// # use abi_core::Tensor;
    /// let a = ndarray::Array::from_shape_vec((2, 3), vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
    /// let at = Tensor::from_ndarray(a.t().to_owned()).unwrap();
    /// assert_eq!(at.view().shape(), [3, 2]);
    /// assert_eq!(at.view().as_slice::<f32>().unwrap(), [1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
    /// ```
    pub fn from_ndarray<T: Element, D: Dimension>(array: Array<T, D>) -> Result<Tensor> {
        let shape = array
            .shape()
            .iter()
            .map(|&d| i64::try_from(d))
            .collect::<core::result::Result<Vec<i64>, _>>()
            .map_err(|_| Error::value_error(format!("array shape {:?} does not fit int64", array.shape())))?;
        if !array.is_standard_layout() {
            return Tensor::from_vec(array.iter().copied().collect(), &shape);
        }
        let numel = array.len();
        let (data, first) = array.into_raw_vec_and_offset();
        // Standard layout: the `numel` elements are consecutive from `first` (no offset when
        // there are none).
        let first = first.unwrap_or(0);
        debug_assert!(first + numel <= data.len());
        Tensor::from_vec_at(data, first, &shape)
    }
}
