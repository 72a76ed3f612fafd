//! Fieldless enums (`#[derive(AbiEnum)]`): each value crosses as the name of its variant, a
//! string every host reads without a table. An argument takes any string form whose bytes
//! are one of the names (an unknown one is a `ValueError` listing them); a result is the
//! name, inline up to 7 bytes, else a static Str object ([`StaticStr`]): no allocation
//! either way.

use crate::ffi::type_index as ti;
use crate::ffi::RawAny;
use crate::reflect::{EnumDesc, TypeDesc};
use crate::value::any::{AbiType, Any, AnyView, FromAny};
use crate::value::conv_error::ConvError;
use crate::value::string::{is_str_form, view_bytes};

pub use crate::value::string::StaticStr;

/// A fieldless enum that crosses as the names of its variants: what
/// `#[derive(abi_core::AbiEnum)]` implements for an enum whose variants hold no fields (an
/// enum with data crosses as tagged tuples and has no such names).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a fieldless enum deriving `AbiEnum`",
    label = "not a fieldless enum",
    note = "names, `name()` and defaults naming a variant (`default = Enum::Variant`) are for enums whose variants hold no fields; an enum with data takes no default"
)]
pub trait AbiEnum: AbiType + Sized {
    /// The enum's name and its variants' names, in declaration order.
    const ENUM: &'static EnumDesc;

    /// The variant whose name is `name` (the bytes of a string).
    fn from_name(name: &[u8]) -> Option<Self>;

    /// The variant's position in declaration order (its index in [`EnumDesc::names`]).
    fn position(&self) -> usize;

    /// The name the variant crosses as.
    fn name(&self) -> &'static str {
        Self::ENUM.names[self.position()]
    }

    /// The names as static Str objects, in declaration order.
    #[doc(hidden)]
    fn name_objects() -> &'static [StaticStr];

    /// The names as JSON strings (quoted), in declaration order: a default naming a
    /// variant by its path publishes one.
    #[doc(hidden)]
    const JSON_NAMES: &'static [&'static str];
}

/// An argument of enum `T`: any string form naming one of its variants.
#[inline]
pub fn enum_from_arg<T: AbiEnum>(v: &AnyView<'_>) -> Result<T, ConvError> {
    if let Some(value) = enum_fast_path(v) {
        return Ok(value);
    }
    enum_refused::<T>(v)
}

// Why `v` is not a value of `T`: not a string, or a string naming no variant.
#[cold]
#[inline(never)]
fn enum_refused<T: AbiEnum>(v: &AnyView<'_>) -> Result<T, ConvError> {
    if !is_str_form(v.type_index()) {
        return Err(ConvError::refused(T::DESC, v.raw()));
    }
    let bytes = view_bytes(v)?;
    T::from_name(bytes).ok_or_else(|| ConvError::unknown_name(T::ENUM, bytes))
}

/// The fast path of an argument of enum `T`: the inline form read in place, every other
/// string form out of line; `None` for anything that is not one of the names.
#[inline(always)]
pub fn enum_fast_path<T: AbiEnum>(v: &AnyView<'_>) -> Option<T> {
    let raw = v.raw();
    if raw.type_index == ti::SMALL_STR {
        let len = (raw.small_len as usize).min(ti::SMALL_STR_MAX_LEN);
        return T::from_name(&raw.bytes()[..len]);
    }
    enum_fast_slow(v)
}

#[inline(never)]
fn enum_fast_slow<T: AbiEnum>(v: &AnyView<'_>) -> Option<T> {
    if !is_str_form(v.type_index()) {
        return None;
    }
    T::from_name(view_bytes(v).ok()?)
}

/// The exact slot of an argument of enum `T`: the slot itself, which the fast path takes
/// whenever the full conversion does.
pub fn enum_exact_slot<T: AbiEnum>(v: &AnyView<'_>) -> Result<RawAny, ConvError> {
    enum_from_arg::<T>(v).map(|_| *v.raw())
}

/// The value of `value`: its name, with no allocation.
#[inline]
pub fn enum_any<T: AbiEnum>(value: &T) -> Any {
    T::name_objects()[value.position()].any()
}

/// The value of a parameter's string default (`#[abi(default = "...")]`) for a parameter
/// of type `T`, converted as an argument holding the string: `with_nul` is the literal then a
/// NUL, passed as a C string when it holds no other NUL (so a default name allocates
/// nothing). Panics (caught by the shim as an error) when the string is not a value of `T`,
/// which the compile-time [`str_default_suits`] and [`str_default_names`] rule out.
pub fn default_from_str<T: FromAny>(with_nul: &'static str) -> T {
    let text = &with_nul[..with_nul.len() - 1];
    let owned;
    let raw = match text.contains('\0') {
        false => RawAny::from_ptr(ti::RAW_STR, with_nul.as_ptr().cast_mut().cast()),
        true => {
            owned = crate::value::string::str_any(text);
            *owned.as_raw()
        }
    };
    // SAFETY: a C string of static text, or a value `owned` holds for the conversion.
    let view = unsafe { AnyView::from_raw(raw) };
    match T::from_any(view) {
        Ok(value) => value,
        Err(e) => panic!("the default {text:?} is not a value of the parameter: {e}"),
    }
}

/// The JSON name of the variant at `position` (`T::JSON_NAMES`), as a const function so the
/// parameter's description that publishes it stays a constant. A position past the names
/// (an enum whose derive failed, its discriminants refused) gives `null`: the derive's
/// error is then the only one.
#[doc(hidden)]
pub const fn enum_json_name(json_names: &'static [&'static str], position: usize) -> &'static str {
    if position < json_names.len() {
        json_names[position]
    } else {
        "null"
    }
}

/// Whether a string default suits a parameter of type `desc`: a string, bytes, `Any`, a
/// fieldless enum, or an `Option` of one.
pub const fn str_default_suits(desc: &TypeDesc) -> bool {
    match desc {
        TypeDesc::Str | TypeDesc::Bytes | TypeDesc::Any | TypeDesc::Enum(_) => true,
        TypeDesc::Optional(inner) => str_default_suits(inner),
        _ => false,
    }
}

/// Whether `name`, a string default of a parameter of type `desc`, is one of its names when
/// it is a fieldless enum (or an `Option` of one); true for every other type.
pub const fn str_default_names(desc: &TypeDesc, name: &str) -> bool {
    match desc {
        TypeDesc::Enum(e) => e.position(name).is_some(),
        TypeDesc::Optional(inner) => str_default_names(inner, name),
        _ => true,
    }
}

/// Whether an op's scalar of type `desc` is a fieldless enum (a string to torch and JAX),
/// checked at compile time for a scalar whose type the macro cannot classify by its spelling.
pub const fn op_scalar_is_enum(desc: &TypeDesc) -> bool {
    matches!(desc, TypeDesc::Enum(_))
}
