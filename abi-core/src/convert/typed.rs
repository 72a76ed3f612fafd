//! [`TypedFunction`]: a Function object with a Rust signature, used as a callback parameter
//! (`TypedFunction<fn(i64) -> i64>`) and called like a Rust function.

use core::ffi::c_void;
use core::fmt;
use core::marker::PhantomData;

use crate::convert::call_arg::{into_arg, ArgSlot, IntoArg};
use crate::convert::export_call::{Full, Mode, Slots};
use crate::convert::overlap::check_slot_overlaps;
use crate::convert::{AbiType, FromAny, FromArg, IntoAny, ListItem};
use crate::ffi::RawAny;
use crate::reflect::{Access, TypeDesc};
use crate::runtime::calls::boundary::{ffi_boundary, CallError};
use crate::runtime::calls::function::Function;
use crate::value::any::{Any, AnyView};
use crate::value::conv_error::{ConvError, ReturnError};
use crate::value::error::{Error, Result};

/// A function signature usable in [`TypedFunction`]: `fn(A, B, ...) -> R`.
pub trait Signature {
    /// Parameter types.
    const PARAMS: &'static [&'static TypeDesc];
    /// Result type.
    const RET: &'static TypeDesc;
}

/// A Function object called with Rust types. Arguments are packed on the stack; the
/// result is converted with the same checks as exported functions' arguments.
pub struct TypedFunction<F> {
    func: Function,
    _sig: PhantomData<fn() -> F>,
}

impl<F> Clone for TypedFunction<F> {
    fn clone(&self) -> Self {
        TypedFunction { func: self.func.clone(), _sig: PhantomData }
    }
}

impl<F> fmt::Debug for TypedFunction<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TypedFunction({:?})", self.func)
    }
}

impl<F> TypedFunction<F> {
    /// Wraps a Function object; the signature is trusted (checked at each call's result).
    pub fn from_function(func: Function) -> Self {
        TypedFunction { func, _sig: PhantomData }
    }

    /// The untyped Function object.
    pub fn as_function(&self) -> &Function {
        &self.func
    }
}

impl<F: Signature> AbiType for TypedFunction<F> {
    const DESC: &'static TypeDesc = &TypeDesc::Callable { params: F::PARAMS, ret: F::RET };
}
impl<F: Signature> ListItem for TypedFunction<F> {}

impl<'a, F: Signature> FromArg<'a> for TypedFunction<F> {
    #[inline]
    fn from_arg(v: &'a AnyView<'a>) -> core::result::Result<Self, ConvError> {
        match Function::from_arg(v) {
            Ok(func) => Ok(TypedFunction::from_function(func)),
            Err(_) => Err(ConvError::mismatch(Self::DESC, v.type_index())),
        }
    }
}

impl<F: Signature> IntoAny for TypedFunction<F> {
    fn into_any(self) -> core::result::Result<Any, ConvError> {
        self.func.into_any()
    }
}

into_arg!(owned: [F: Signature] TypedFunction<F>);

#[cold]
fn arg_error(index: usize, e: ConvError) -> Error {
    Error::new(e.kind(), format!("callback argument #{index}: {e}"))
}

#[cold]
fn arity_error(expected: usize, got: i32) -> Error {
    Error::type_error(format!("callback takes {expected} arguments, got {got}"))
}

/// A closure's argument failed in the exports' full conversion pass.
#[cold]
fn call_error(e: CallError) -> Error {
    match e {
        CallError::Arg { slot, err } => arg_error(slot as usize, err),
        CallError::Overlap { slot, other } => Error::value_error(format!(
            "callback argument #{slot} shares memory with argument #{other}, which one of them may write"
        )),
        CallError::Return(ReturnError::User(e)) => e,
        CallError::Return(ReturnError::Conv(e)) => e.into(),
    }
}

#[cold]
fn result_error(e: ConvError) -> Error {
    Error::new(e.kind(), format!("callback result: {e}"))
}

macro_rules! typed_arity {
    ($($arg:ident $idx:tt),*) => {
        impl<R: AbiType, $($arg: AbiType),*> Signature for fn($($arg),*) -> R {
            const PARAMS: &'static [&'static TypeDesc] = &[$($arg::DESC),*];
            const RET: &'static TypeDesc = R::DESC;
        }

        impl<R: FromAny + AbiType, $($arg: IntoArg),*> TypedFunction<fn($($arg),*) -> R> {
            /// Calls the function.
            #[allow(non_snake_case, clippy::too_many_arguments)]
            #[inline]
            pub fn call(&self, $($arg: $arg),*) -> Result<R> {
                $(let $arg = $arg.into_slot().map_err(|e| arg_error($idx, e))?;)*
                let raw = [$($arg.raw()),*];
                let bound = self.func.view();
                let out = bound.call_raw(&raw)?;
                R::from_result(out).map_err(result_error)
            }
        }

        impl<R: IntoAny, $($arg: for<'a> FromArg<'a>),*> TypedFunction<fn($($arg),*) -> R> {
            /// Wraps a Rust closure: any host can call it, with arguments checked as for
            /// exported functions.
            pub fn new<Body>(f: Body) -> Self
            where
                Body: Fn($($arg),*) -> R + Send + Sync + 'static,
            {
                TypedFunction::from_function(Function::from_state(f, Self::entry::<Body>))
            }

            /// The packed entry of a closure `Body`: monomorphised, so a call converts its
            /// arguments and runs the closure with no dynamic dispatch.
            #[allow(non_snake_case, unused_variables)]
            unsafe extern "C" fn entry<Body>(handle: *mut c_void, args: *const RawAny, n: i32, result: *mut RawAny) -> i32
            where
                Body: Fn($($arg),*) -> R + Send + Sync + 'static,
            {
                const N: usize = 0 $(+ { let _ = $idx; 1 })*;
                let accesses: [Access; N] = [$(<$arg as FromArg<'static>>::ACCESS),*];
                // SAFETY: hosts call a Function's entry with the object as handle and `n`
                // valid argument slots; the object was made by `new::<Body>`.
                unsafe {
                    ffi_boundary(result, || {
                        if n as usize != N || n < 0 || (N > 0 && args.is_null()) {
                            return Err(arity_error(N, n));
                        }
                        let slots: &[AnyView<'_>] = if N == 0 { &[] } else { core::slice::from_raw_parts(args.cast(), N) };
                        if Access::any_conflict(&accesses) {
                            check_slot_overlaps(&accesses, slots).map_err(call_error)?;
                        }
                        // SAFETY: the overlap check ran when the arguments need it; each slot
                        // converts once.
                        let slots = Slots::new(slots);
                        $(let $arg = Full::arg::<$arg>(slots, $idx).map_err(call_error)?;)*
                        Function::state::<Body>(handle)($($arg),*).into_any().map_err(Error::from)
                    })
                }
            }
        }
    };
}

typed_arity!();
typed_arity!(A 0);
typed_arity!(A 0, B 1);
typed_arity!(A 0, B 1, C 2);
typed_arity!(A 0, B 1, C 2, D 3);
typed_arity!(A 0, B 1, C 2, D 3, E 4);
typed_arity!(A 0, B 1, C 2, D 3, E 4, F 5);
