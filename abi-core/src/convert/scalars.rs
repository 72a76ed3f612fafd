//! Scalars: `()`, bool, every integer width, floats (`f32`, `f64`, `f16`, `bf16`),
//! DataType, Device and opaque pointers. Accepts what tvm-ffi's C++ `TypeTraits` accept
//! (an int or bool where a float is wanted, an int where a bool is wanted), never
//! truncating; and, beyond them, the BigInt objects Python passes for ints outside i64,
//! wherever an integer or a float is wanted (the C++ traits refuse them): a value that fits
//! the type converts, any other is out of range, named. `u64` and `usize` values beyond
//! i64 cross as BigInt objects both ways.

use core::ffi::c_void;

use half::{bf16, f16};

use super::call_arg::into_arg;
use super::{AbiType, Expand, FromArg, IntoAny, ListItem};
use crate::ffi::type_index as ti;
use crate::ffi::{DataType, Device, RawAny, RawValue};
use crate::reflect::TypeDesc;
use crate::value::any::{Any, AnyView};
use crate::value::big_int;
use crate::value::conv_error::{ConvError, Number};

impl AbiType for () {
    const DESC: &'static TypeDesc = &TypeDesc::None;
}

impl<'a> FromArg<'a> for () {
    #[inline(always)]
    fn from_arg(v: &'a AnyView<'a>) -> Result<(), ConvError> {
        if v.type_index() == ti::NONE {
            Ok(())
        } else {
            Err(ConvError::mismatch(Self::DESC, v.type_index()))
        }
    }
}

impl IntoAny for () {
    #[inline(always)]
    fn into_any(self) -> Result<Any, ConvError> {
        Ok(Any::NONE)
    }
}
into_arg!(plain: ());

impl AbiType for bool {
    const DESC: &'static TypeDesc = &TypeDesc::Bool;
}
impl ListItem for bool {}

impl<'a> FromArg<'a> for bool {
    #[inline(always)]
    fn from_arg(v: &'a AnyView<'a>) -> Result<bool, ConvError> {
        let raw = v.raw();
        if raw.type_index == ti::BOOL || raw.type_index == ti::INT {
            Ok(raw.i64() != 0)
        } else {
            Err(ConvError::mismatch(Self::DESC, raw.type_index))
        }
    }

    const HAS_FAST_PATH: bool = true;

    #[inline(always)]
    fn fast_path(v: &'a AnyView<'a>) -> Option<bool> {
        let raw = v.raw();
        (raw.type_index == ti::BOOL).then(|| raw.i64() != 0)
    }

    fn exact_slot(v: &'a AnyView<'a>) -> Result<RawAny, ConvError> {
        Self::from_arg(v).map(|b| RawAny::from_i64(ti::BOOL, b as i64))
    }
}

impl IntoAny for bool {
    #[inline(always)]
    fn into_any(self) -> Result<Any, ConvError> {
        // SAFETY: a plain value owns nothing.
        Ok(unsafe { Any::from_raw(RawAny::from_i64(ti::BOOL, self as i64)) })
    }
}
into_arg!(plain: bool);

// Bool where an integer is wanted, an out-of-range Int, or a BigInt: off the fast path.
#[cold]
#[inline(never)]
fn int_slow<T: TryFrom<i128>>(raw: &RawAny, desc: &'static TypeDesc, target: &'static str) -> Result<T, ConvError> {
    let value = match raw.type_index {
        ti::INT | ti::BOOL => i128::from(raw.i64()),
        ti::BIG_INT => {
            // SAFETY: an argument's object outlives its conversion.
            let Some(words) = (unsafe { big_int::words(raw) }) else {
                return Err(ConvError::refused(desc, raw));
            };
            match big_int::to_i128(words) {
                Some(v) => v,
                None => return Err(big_int::out_of_range(words, target)),
            }
        }
        other => return Err(ConvError::mismatch(desc, other)),
    };
    T::try_from(value).map_err(|_| ConvError::OutOfRange { value: Number::Int(value), target })
}

// A `u64` or `usize` beyond i64, which only a BigInt holds: the rest of their fast path.
#[cold]
#[inline(never)]
fn wide_fast_path(raw: &RawAny) -> Option<u64> {
    if raw.type_index != ti::BIG_INT {
        return None;
    }
    // SAFETY: an argument's object outlives its conversion.
    let words = unsafe { big_int::words(raw) }?;
    big_int::to_i128(words).and_then(|v| u64::try_from(v).ok())
}

macro_rules! int_type {
    ($($t:ident: $bits:expr, $signed:expr, $wide:expr;)*) => {$(
        impl AbiType for $t {
            const DESC: &'static TypeDesc = &TypeDesc::Int { bits: $bits, signed: $signed };
        }

        impl<'a> FromArg<'a> for $t {
            #[inline(always)]
            #[allow(irrefutable_let_patterns)]
            fn from_arg(v: &'a AnyView<'a>) -> Result<$t, ConvError> {
                let raw = v.raw();
                if raw.type_index == ti::INT {
                    if let Ok(x) = <$t>::try_from(raw.i64()) {
                        return Ok(x);
                    }
                }
                int_slow(raw, Self::DESC, stringify!($t))
            }

            const HAS_FAST_PATH: bool = true;
            // The values of `u64` and `usize` beyond i64 come in BigInt objects, which the
            // fast path reads and a converted result must release.
            const FAST_PATH_PLAIN: bool = !$wide;

            #[inline(always)]
            #[allow(irrefutable_let_patterns)]
            fn fast_path(v: &'a AnyView<'a>) -> Option<$t> {
                let raw = v.raw();
                if raw.type_index != ti::INT {
                    return if $wide { wide_fast_path(raw).map(|x| x as $t) } else { None };
                }
                <$t>::try_from(raw.i64()).ok()
            }

            // An Int for every value within i64; beyond, the BigInt slot itself, which the
            // fast path reads (only `u64` and `usize` have such values).
            #[allow(irrefutable_let_patterns)]
            fn exact_slot(v: &'a AnyView<'a>) -> Result<RawAny, ConvError> {
                let x = Self::from_arg(v)?;
                Ok(if let Ok(x) = i64::try_from(x) { RawAny::from_i64(ti::INT, x) } else { *v.raw() })
            }
        }

        impl IntoAny for $t {
            #[inline(always)]
            #[allow(irrefutable_let_patterns)]
            fn into_any(self) -> Result<Any, ConvError> {
                if let Ok(x) = i64::try_from(self) {
                    // SAFETY: a plain value owns nothing.
                    Ok(unsafe { Any::from_raw(RawAny::from_i64(ti::INT, x)) })
                } else {
                    Ok(big_int::big_int_any(self as i128))
                }
            }
        }
    )*};
}

int_type! {
    i8: 8, true, false; i16: 16, true, false; i32: 32, true, false; i64: 64, true, false;
    isize: 64, true, false; u8: 8, false, false; u16: 16, false, false; u32: 32, false, false;
    u64: 64, false, true; usize: 64, false, true;
}

// Values within i64 pass as plain Ints; `u64` and `usize` values beyond pass as a BigInt
// object held for the call.
into_arg!(plain: i8);
into_arg!(plain: i16);
into_arg!(plain: i32);
into_arg!(plain: i64);
into_arg!(plain: isize);
into_arg!(plain: u8);
into_arg!(plain: u16);
into_arg!(plain: u32);
into_arg!(owned: [] u64);
into_arg!(owned: [] usize);

// Every integer but `u8` can be a list element: `Vec<u8>` is bytes.
impl ListItem for i8 {}
impl ListItem for i16 {}
impl ListItem for i32 {}
impl ListItem for i64 {}
impl ListItem for isize {}
impl ListItem for u16 {}
impl ListItem for u32 {}
impl ListItem for u64 {}
impl ListItem for usize {}

// Int, Bool or BigInt where a float is wanted: rounded to nearest, like Python's
// `float(int)`; an integer beyond the largest finite f64 is out of range.
#[cold]
#[inline(never)]
fn float_slow(raw: &RawAny, desc: &'static TypeDesc, target: &'static str) -> Result<f64, ConvError> {
    match raw.type_index {
        ti::INT | ti::BOOL => Ok(raw.i64() as f64),
        ti::BIG_INT => {
            // SAFETY: an argument's object outlives its conversion.
            let Some(words) = (unsafe { big_int::words(raw) }) else {
                return Err(ConvError::refused(desc, raw));
            };
            let x = big_int::to_f64(words);
            if x.is_infinite() {
                return Err(big_int::out_of_range(words, target));
            }
            Ok(x)
        }
        other => Err(ConvError::mismatch(desc, other)),
    }
}

#[inline(always)]
fn float_arg(raw: &RawAny, desc: &'static TypeDesc, target: &'static str) -> Result<f64, ConvError> {
    if raw.type_index == ti::FLOAT {
        Ok(raw.f64())
    } else {
        float_slow(raw, desc, target)
    }
}

// A finite value beyond a narrow float's range, named as it was passed (an integer
// argument as that integer).
#[cold]
#[inline(never)]
fn narrow_out_of_range(raw: &RawAny, x: f64, target: &'static str) -> ConvError {
    let value = match raw.type_index {
        ti::INT => Number::Int(i128::from(raw.i64())),
        ti::BIG_INT => {
            // SAFETY: an argument's object outlives its conversion; `float_arg` read it
            // already, so the handle is not null.
            if let Some(words) = unsafe { big_int::words(raw) } {
                return big_int::out_of_range(words, target);
            }
            Number::Float(x)
        }
        _ => Number::Float(x),
    };
    ConvError::OutOfRange { value, target }
}

#[inline(always)]
fn float_any(x: f64) -> Any {
    // SAFETY: a plain value owns nothing.
    unsafe { Any::from_raw(RawAny { type_index: ti::FLOAT, small_len: 0, value: RawValue { v_float64: x } }) }
}

impl AbiType for f64 {
    const DESC: &'static TypeDesc = &TypeDesc::Float { bits: 64, brain: false };
}
impl ListItem for f64 {}

impl<'a> FromArg<'a> for f64 {
    #[inline(always)]
    fn from_arg(v: &'a AnyView<'a>) -> Result<f64, ConvError> {
        float_arg(v.raw(), Self::DESC, "f64")
    }

    const HAS_FAST_PATH: bool = true;

    #[inline(always)]
    fn fast_path(v: &'a AnyView<'a>) -> Option<f64> {
        let raw = v.raw();
        (raw.type_index == ti::FLOAT).then(|| raw.f64())
    }

    fn exact_slot(v: &'a AnyView<'a>) -> Result<RawAny, ConvError> {
        Self::from_arg(v).map(|x| RawAny { type_index: ti::FLOAT, small_len: 0, value: RawValue { v_float64: x } })
    }
}

impl IntoAny for f64 {
    #[inline(always)]
    fn into_any(self) -> Result<Any, ConvError> {
        Ok(float_any(self))
    }
}
into_arg!(plain: f64);

// A narrower float rounds like `as`, but a finite value beyond its range is an error.
macro_rules! narrow_float {
    ($($t:ty: $bits:expr, $brain:expr, $from:expr, $to:expr;)*) => {$(
        impl AbiType for $t {
            const DESC: &'static TypeDesc = &TypeDesc::Float { bits: $bits, brain: $brain };
        }
        impl ListItem for $t {}

        impl<'a> FromArg<'a> for $t {
            #[inline(always)]
            fn from_arg(v: &'a AnyView<'a>) -> Result<$t, ConvError> {
                let x = float_arg(v.raw(), Self::DESC, stringify!($t))?;
                let from: fn(f64) -> $t = $from;
                let y = from(x);
                let to: fn($t) -> f64 = $to;
                if to(y).is_infinite() && x.is_finite() {
                    return Err(narrow_out_of_range(v.raw(), x, stringify!($t)));
                }
                Ok(y)
            }

            const HAS_FAST_PATH: bool = true;

            // A float in range: what `from_arg` returns for it, with no error to build.
            #[inline(always)]
            fn fast_path(v: &'a AnyView<'a>) -> Option<$t> {
                let raw = v.raw();
                if raw.type_index != ti::FLOAT {
                    return None;
                }
                let (x, from, to): (f64, fn(f64) -> $t, fn($t) -> f64) = (raw.f64(), $from, $to);
                let y = from(x);
                (!to(y).is_infinite() || !x.is_finite()).then_some(y)
            }

            // The value widened back: it narrows to itself, in range (infinite only when
            // `from_arg`'s input was).
            fn exact_slot(v: &'a AnyView<'a>) -> Result<RawAny, ConvError> {
                let to: fn($t) -> f64 = $to;
                Self::from_arg(v).map(|y| RawAny { type_index: ti::FLOAT, small_len: 0, value: RawValue { v_float64: to(y) } })
            }
        }

        impl IntoAny for $t {
            #[inline(always)]
            fn into_any(self) -> Result<Any, ConvError> {
                let to: fn($t) -> f64 = $to;
                Ok(float_any(to(self)))
            }
        }
        into_arg!(plain: $t);
    )*};
}

narrow_float! {
    f32: 32, false, |x| x as f32, |y| y as f64;
    f16: 16, false, f16::from_f64, f16::to_f64;
    bf16: 16, true, bf16::from_f64, bf16::to_f64;
}

macro_rules! inline_value {
    ($t:ty, $desc:expr, $index:expr, $field:ident) => {
        impl AbiType for $t {
            const DESC: &'static TypeDesc = &$desc;
        }
        impl ListItem for $t {}

        impl<'a> FromArg<'a> for $t {
            #[inline(always)]
            fn from_arg(v: &'a AnyView<'a>) -> Result<$t, ConvError> {
                let raw = v.raw();
                if raw.type_index == $index {
                    // SAFETY: the type index says which union field is live.
                    Ok(unsafe { raw.value.$field })
                } else {
                    Err(ConvError::mismatch(Self::DESC, raw.type_index))
                }
            }
        }

        impl IntoAny for $t {
            #[inline(always)]
            fn into_any(self) -> Result<Any, ConvError> {
                // All 8 payload bytes stay initialised (a 4-byte DataType too): hosts and
                // `RawValue`'s readers take the payload as a whole `u64`.
                let mut raw = RawAny::from_i64($index, 0);
                raw.value.$field = self;
                // SAFETY: a plain value owns nothing.
                Ok(unsafe { Any::from_raw(raw) })
            }
        }
        into_arg!(plain: $t);
    };
}

inline_value!(DataType, TypeDesc::DataType, ti::DATA_TYPE, v_dtype);
inline_value!(Device, TypeDesc::Device, ti::DEVICE, v_device);

impl AbiType for *mut c_void {
    const DESC: &'static TypeDesc = &TypeDesc::OpaquePtr;
}

impl<'a> FromArg<'a> for *mut c_void {
    #[inline(always)]
    fn from_arg(v: &'a AnyView<'a>) -> Result<*mut c_void, ConvError> {
        match v.type_index() {
            ti::OPAQUE_PTR => Ok(v.raw().ptr()),
            ti::NONE => Ok(core::ptr::null_mut()),
            other => Err(ConvError::mismatch(Self::DESC, other)),
        }
    }
}

impl IntoAny for *mut c_void {
    #[inline(always)]
    fn into_any(self) -> Result<Any, ConvError> {
        // SAFETY: an opaque pointer is not owned by the Any.
        Ok(unsafe { Any::from_raw(RawAny::from_ptr(ti::OPAQUE_PTR, self)) })
    }
}
into_arg!(plain: *mut c_void);

// Scalars are the leaves of expanded structs: one slot each.
macro_rules! expand_leaf {
    ($($t:ty),*) => {$(
        impl<'a> Expand<'a> for $t {
            const LEAVES: usize = 1;
            #[inline(always)]
            fn from_slots(slots: &'a [AnyView<'a>]) -> Result<$t, (u32, ConvError)> {
                <$t as FromArg<'a>>::from_arg(&slots[0]).map_err(|e| (0, e))
            }
        }
    )*};
}

expand_leaf!(bool, i8, i16, i32, i64, isize, u8, u16, u32, u64, usize, f32, f64, f16, bf16);
