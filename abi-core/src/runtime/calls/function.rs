//! Function objects: Rust closures callable by any host through `safe_call`, and calls of
//! any Function object received from a host (results owned, errors propagated unchanged).

use core::ffi::c_void;
use core::fmt;
use core::marker::PhantomData;
use core::ptr::NonNull;

use crate::ffi::type_index as ti;
use crate::ffi::{cell_ptr, FunctionCell, ObjectHeader, RawAny, SafeCall};
use crate::runtime::calls::boundary::{args_slice, ffi_boundary};
use crate::runtime::calls::error_slot::take_raised_after;
use crate::value::any::{Any, AnyView};
use crate::value::error::{Error, Result};
use crate::value::object::{new_object, object_handle, ObjectRef};

/// The cell of a Rust-made Function: its packed entry is monomorphised for its state (a
/// closure), so calls reach the state with no dynamic dispatch.
#[repr(C)]
struct StateCell<S> {
    base: FunctionCell,
    state: S,
}

// SAFETY: cpp_call is always null here; the state is Send + Sync.
unsafe impl<S: Send> Send for StateCell<S> {}
// SAFETY: see above.
unsafe impl<S: Sync> Sync for StateCell<S> {}

#[repr(C)]
struct PlainCell(FunctionCell);
// SAFETY: a bare function pointer and a null pointer.
unsafe impl Send for PlainCell {}
// SAFETY: see above.
unsafe impl Sync for PlainCell {}

/// The packed entry of a closure made by [`Function::from_closure`], monomorphised for it.
unsafe extern "C" fn closure_entry<F>(handle: *mut c_void, args: *const RawAny, n: i32, result: *mut RawAny) -> i32
where
    F: Fn(&[AnyView<'_>]) -> Result<Any> + Send + Sync + 'static,
{
    // SAFETY: hosts call a Function's safe_call with the object itself as handle and `n`
    // valid arguments; the object was made by `from_closure::<F>`.
    unsafe {
        ffi_boundary(result, || {
            let args = args_slice(args, n)?;
            Function::state::<F>(handle)(args)
        })
    }
}

/// An owned Function object (type index 68).
#[derive(Clone)]
pub struct Function(ObjectRef);

object_handle!(Function, ti::FUNCTION);

/// A borrowed Function object, valid for `'a` (e.g. a callback argument).
#[derive(Clone, Copy)]
pub struct FunctionRef<'a> {
    obj: NonNull<ObjectHeader>,
    _borrow: PhantomData<&'a ()>,
}

impl Function {
    /// Wraps a Rust closure; any host can call it.
    pub fn from_closure<F>(f: F) -> Function
    where
        F: Fn(&[AnyView<'_>]) -> Result<Any> + Send + Sync + 'static,
    {
        Function::from_state(f, closure_entry::<F>)
    }

    /// A Function holding `state`, called through `safe_call`, which reads the state with
    /// [`Function::state`] from the handle it is given.
    pub(crate) fn from_state<S: Send + Sync + 'static>(state: S, safe_call: SafeCall) -> Function {
        let cell = StateCell { base: FunctionCell { safe_call, cpp_call: core::ptr::null_mut() }, state };
        Function(new_object(ti::FUNCTION, cell))
    }

    /// The state of a Function made by [`Function::from_state`], from the `handle` its
    /// packed entry receives.
    ///
    /// # Safety
    /// `handle` is a live Function object made by `from_state::<S>`.
    #[inline(always)]
    pub(crate) unsafe fn state<'a, S>(handle: *mut c_void) -> &'a S {
        // SAFETY: forwarded from the caller: the cell is a StateCell<S>.
        unsafe { &(*cell_ptr::<StateCell<S>>(handle.cast())).state }
    }

    /// Wraps a packed function pointer (an exported shim, which ignores its handle).
    pub fn from_safe_call(f: SafeCall) -> Function {
        Function(new_object(ti::FUNCTION, PlainCell(FunctionCell { safe_call: f, cpp_call: core::ptr::null_mut() })))
    }

    /// A borrowed handle.
    pub fn view(&self) -> FunctionRef<'_> {
        // SAFETY: `self` keeps the object alive for the borrow.
        unsafe { FunctionRef::from_raw(NonNull::new_unchecked(self.0.as_ptr())) }
    }

    /// Calls with packed arguments.
    pub fn call_packed(&self, args: &[AnyView<'_>]) -> Result<Any> {
        self.view().call_packed(args)
    }
}

impl<'a> FunctionRef<'a> {
    /// Borrows a Function object.
    ///
    /// # Safety
    /// `obj` is a live Function object for `'a`.
    pub unsafe fn from_raw(obj: NonNull<ObjectHeader>) -> FunctionRef<'a> {
        FunctionRef { obj, _borrow: PhantomData }
    }

    /// Calls with packed arguments; the result is owned, a failure carries the callee's
    /// error unchanged.
    #[inline]
    pub fn call_packed(&self, args: &[AnyView<'_>]) -> Result<Any> {
        // SAFETY: AnyView is repr(transparent) over RawAny.
        self.call_raw(unsafe { core::slice::from_raw_parts(args.as_ptr().cast(), args.len()) })
    }

    /// Calls with raw packed arguments (valid for the call).
    #[inline]
    pub fn call_raw(&self, args: &[RawAny]) -> Result<Any> {
        let n = i32::try_from(args.len()).map_err(|_| Error::value_error("too many arguments"))?;
        let obj = self.obj.as_ptr();
        // SAFETY: the object is a live Function whose cell starts with safe_call.
        let safe_call = unsafe { (*cell_ptr::<FunctionCell>(obj)).safe_call };
        let mut result = RawAny::NONE;
        // SAFETY: the calling convention: handle is the object, args live for the call,
        // result starts as None.
        let rc = unsafe { safe_call(obj.cast(), args.as_ptr(), n, &mut result) };
        if rc == 0 {
            // SAFETY: a successful call transfers ownership of the result.
            Ok(unsafe { Any::from_raw(result) })
        } else {
            Err(take_raised_after(rc))
        }
    }

    /// The object pointer (borrowed).
    pub fn as_ptr(&self) -> *mut ObjectHeader {
        self.obj.as_ptr()
    }

    /// An owned handle (adds a reference).
    pub fn to_function(&self) -> Function {
        // SAFETY: live for 'a.
        Function(unsafe { ObjectRef::from_borrowed(self.obj) })
    }
}

impl fmt::Debug for Function {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Function({:p})", self.0.as_ptr())
    }
}

impl fmt::Debug for FunctionRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "FunctionRef({:p})", self.obj.as_ptr())
    }
}
