//! List objects (75), the mutable Array: under a tvm-ffi host made by its global `ffi.List`
//! (C++ code may grow a list, reallocating its elements its own way); without one, an
//! object of our Array layout with the List type index.

use std::sync::OnceLock;

use crate::ffi::type_index as ti;
use crate::runtime::calls::function::Function;
use crate::runtime::process::discovery::embedded_map_mark;
use crate::value::any::{Any, AnyView};
use crate::value::array::Array;
use crate::value::error::{Error, Result};

/// The global function that builds a list under a tvm-ffi host.
const MAKE_LIST: &str = "ffi.List";

impl Array {
    /// A new List object holding `items` in order.
    pub fn new_list(items: Vec<Any>) -> Result<Array> {
        if embedded_map_mark().is_some() {
            return Ok(Array::with_index(ti::LIST, items));
        }
        static MAKE: OnceLock<Option<Function>> = OnceLock::new();
        let make = MAKE
            .get_or_init(|| Function::get_global(MAKE_LIST))
            .as_ref()
            .ok_or_else(|| Error::runtime_error(format!("the tvm-ffi runtime has no `{MAKE_LIST}`")))?;
        let args: Vec<AnyView<'_>> = items.iter().map(Any::view).collect();
        let list: Array = make.call_packed(&args)?.to()?;
        match list.is_list() {
            true => Ok(list),
            false => Err(Error::type_error(format!("{MAKE_LIST} did not return a list"))),
        }
    }
}
