//! [`Bound`]: a resolved packed function (a library's shim, a Function object, or a shim
//! linked into this binary) with what keeps its code alive, called with owned results and
//! the callee's error taken from wherever the callee raised it.

use core::ffi::c_void;
use core::ptr::{self, NonNull};
use std::sync::Arc;

use crate::ffi::{cell_ptr, ObjectHeader, RawAny, SafeCall};
use crate::runtime::calls::error_slot::take_raised_after;
use crate::runtime::calls::function::Function;
use crate::runtime::process::discovery::host;
use crate::value::any::Any;
use crate::value::error::{Error, Result};
use crate::value::object::{ObjectHandle, ObjectRef};

/// `abi_error_move_from_raised`: how a library built with abi hands over its errors when no
/// tvm-ffi runtime is in the process.
pub(crate) type TakeError = unsafe extern "C" fn(*mut *mut c_void);

/// What keeps a bound function's code and handle alive.
#[derive(Clone, Debug)]
enum Keep {
    // Held so the library handle lives as long as the binding (it is never unloaded).
    #[allow(dead_code)]
    Library(Arc<dyn core::fmt::Debug + Send + Sync>),
    Function(Function),
    Static,
}

/// A resolved packed function, ready to call.
#[derive(Clone, Debug)]
pub struct Bound {
    safe_call: SafeCall,
    handle: *mut c_void,
    take_error: Option<TakeError>,
    keep: Keep,
}

// SAFETY: the handle is null or a Function object kept alive by `keep`; objects are
// thread-safe and packed functions are callable from any thread.
unsafe impl Send for Bound {}
// SAFETY: see above.
unsafe impl Sync for Bound {}

impl Bound {
    /// Binds a shim of a library handle kept alive by `keep` (the library itself).
    pub(crate) fn from_library_symbol(
        safe_call: SafeCall,
        take_error: Option<TakeError>,
        keep: Arc<dyn core::fmt::Debug + Send + Sync>,
    ) -> Bound {
        Bound { safe_call, handle: ptr::null_mut(), take_error, keep: Keep::Library(keep) }
    }

    /// Binds a Function object (its `safe_call` receives the object as handle).
    pub fn from_function(f: Function) -> Bound {
        let obj = f.as_object().as_ptr();
        // SAFETY: a Function object's cell starts with safe_call.
        let safe_call = unsafe { *cell_ptr::<SafeCall>(obj) };
        Bound { safe_call, handle: obj.cast(), take_error: None, keep: Keep::Function(f) }
    }

    /// Binds a shim linked into this binary.
    pub fn from_safe_call(safe_call: SafeCall) -> Bound {
        Bound { safe_call, handle: ptr::null_mut(), take_error: None, keep: Keep::Static }
    }

    /// Calls with packed arguments; the result is owned.
    #[inline]
    pub fn call_raw(&self, args: &[RawAny]) -> Result<Any> {
        // SAFETY: `args` is a valid slice for the call.
        unsafe { self.call_unchecked(args.as_ptr(), args.len() as i32) }
    }

    /// Calls with an explicit pointer and count, as a C caller would (the callee checks
    /// them; used to test hostile input).
    ///
    /// # Safety
    /// When `n > 0` and `args` is non-null, `args` points to `n` slots valid for the call.
    #[inline]
    pub unsafe fn call_unchecked(&self, args: *const RawAny, n: i32) -> Result<Any> {
        let mut result = RawAny::NONE;
        // SAFETY: the packed convention: `args` as guaranteed by the caller, `result` starts
        // as None; `keep` keeps the code and handle alive.
        let rc = unsafe { (self.safe_call)(self.handle, args, n, &mut result) };
        if rc == 0 {
            // SAFETY: success transfers ownership of the result.
            Ok(unsafe { Any::from_raw(result) })
        } else {
            Err(self.take_error(rc))
        }
    }

    #[cold]
    #[inline(never)]
    fn take_error(&self, code: i32) -> Error {
        if host().is_none() {
            if let Some(take) = self.take_error {
                let mut out: *mut c_void = ptr::null_mut();
                // SAFETY: the library's documented entry writes an owned Error or null.
                unsafe { take(&mut out) };
                if let Some(obj) = NonNull::new(out.cast::<ObjectHeader>()) {
                    // SAFETY: an owned reference.
                    if let Ok(e) = Error::from_object(unsafe { ObjectRef::from_raw(obj) }) {
                        return e;
                    }
                }
            }
        }
        take_raised_after(code)
    }

    /// A Function object calling this binding.
    pub fn to_function(&self) -> Function {
        match &self.keep {
            Keep::Function(f) => f.clone(),
            _ => {
                let this = self.clone();
                Function::from_closure(move |args| {
                    let raw: Vec<RawAny> = args.iter().map(|a| *a.raw()).collect();
                    this.call_raw(&raw)
                })
            }
        }
    }
}
