//! Strings and bytes: `&str`/`String` from every string form, `&[u8]`/`Vec<u8>` from every
//! byte form; results use the small inline form up to 7 bytes and objects above.

use super::call_arg::into_arg;
use super::export_call::{Mode, Slots};
use super::{AbiType, FromArg, IntoAny, ListItem};
use crate::ffi::type_index as ti;
use crate::ffi::RawAny;
use crate::reflect::type_texts::TypeTexts;
use crate::reflect::{Access, ExactSlot, TypeDesc};
use crate::value::any::{Any, AnyView};
use crate::value::conv_error::ConvError;
use crate::value::object::{ObjectHandle, ObjectRef};
use crate::value::string::{
    bytes_any, is_bytes_form, is_str_form, str_any, string_any, vec_bytes_any, view_bytes, Bytes, Str,
};

// An inline string whose 8 payload bytes are all ASCII: any prefix of it is UTF-8 with no
// further scan.
#[inline(always)]
fn small_ascii<'a>(v: &'a AnyView<'a>) -> Option<&'a str> {
    let raw = v.raw();
    if raw.type_index != ti::SMALL_STR {
        return None;
    }
    let payload = raw.bytes();
    if u64::from_ne_bytes(*payload) & 0x8080_8080_8080_8080 != 0 {
        return None;
    }
    let len = (raw.small_len as usize).min(ti::SMALL_STR_MAX_LEN);
    // SAFETY: every byte of the payload is ASCII, so any prefix of it is UTF-8.
    Some(unsafe { core::str::from_utf8_unchecked(&payload[..len]) })
}

#[inline(always)]
fn str_arg<'a>(v: &'a AnyView<'a>) -> Result<&'a str, ConvError> {
    match small_ascii(v) {
        Some(s) => Ok(s),
        None => str_arg_slow(v),
    }
}

// Every other string form, and the errors: out of line, so an export taking `&str` keeps
// only the inline check and a call.
#[inline(never)]
fn str_arg_slow<'a>(v: &'a AnyView<'a>) -> Result<&'a str, ConvError> {
    if !is_str_form(v.type_index()) {
        return Err(ConvError::refused(&TypeDesc::Str, v.raw()));
    }
    let bytes = view_bytes(v)?;
    core::str::from_utf8(bytes).map_err(|_| ConvError::InvalidUtf8)
}

// `str_arg` with no error to build, for the fast path.
#[inline(never)]
fn str_fast_slow<'a>(v: &'a AnyView<'a>) -> Option<&'a str> {
    if !is_str_form(v.type_index()) {
        return None;
    }
    core::str::from_utf8(view_bytes(v).ok()?).ok()
}

#[inline(always)]
fn bytes_arg<'a>(v: &'a AnyView<'a>) -> Result<&'a [u8], ConvError> {
    let ty = v.type_index();
    if is_bytes_form(ty) || is_str_form(ty) {
        view_bytes(v)
    } else {
        Err(ConvError::refused(&TypeDesc::Bytes, v.raw()))
    }
}

impl AbiType for &str {
    const DESC: &'static TypeDesc = &TypeDesc::Str;
}
impl ListItem for &str {}

impl<'a> FromArg<'a> for &'a str {
    #[inline(always)]
    fn from_arg(v: &'a AnyView<'a>) -> Result<&'a str, ConvError> {
        str_arg(v)
    }

    // Every string form: the fast path is the whole conversion without its errors, so an
    // export taking `&str` leaves them to the shared retry instead of carrying the full pass.
    const HAS_FAST_PATH: bool = true;

    #[inline(always)]
    fn fast_path(v: &'a AnyView<'a>) -> Option<&'a str> {
        match small_ascii(v) {
            Some(s) => Some(s),
            None => str_fast_slow(v),
        }
    }

    // The fast path takes every form `from_arg` takes: the slot itself.
    fn exact_slot(v: &'a AnyView<'a>) -> Result<RawAny, ConvError> {
        str_arg(v).map(|_| *v.raw())
    }
}

impl IntoAny for &str {
    #[inline]
    fn into_any(self) -> Result<Any, ConvError> {
        Ok(str_any(self))
    }
}

impl AbiType for String {
    const DESC: &'static TypeDesc = &TypeDesc::Str;
}
impl ListItem for String {}

impl<'a> FromArg<'a> for String {
    #[inline]
    fn from_arg(v: &'a AnyView<'a>) -> Result<String, ConvError> {
        str_arg(v).map(str::to_owned)
    }
}

impl IntoAny for String {
    #[inline]
    fn into_any(self) -> Result<Any, ConvError> {
        Ok(string_any(self))
    }

    #[inline]
    fn into_result_any(self, sink: crate::ffi::ResultSink) -> Result<Any, ConvError> {
        // Above the inline form's length, the Python door takes a `str` made here in place of
        // a Str object it would copy and release.
        if self.len() > ti::SMALL_STR_MAX_LEN {
            if let Some(raw) = sink.python_str(&self) {
                // SAFETY: an opaque pointer owns nothing as an Any; the door takes the
                // reference back.
                return Ok(unsafe { Any::from_raw(raw) });
            }
        }
        Ok(string_any(self))
    }
}
into_arg!(owned: [] String);

impl AbiType for &[u8] {
    const DESC: &'static TypeDesc = &TypeDesc::Bytes;
}
impl ListItem for &[u8] {}

impl<'a> FromArg<'a> for &'a [u8] {
    #[inline(always)]
    fn from_arg(v: &'a AnyView<'a>) -> Result<&'a [u8], ConvError> {
        bytes_arg(v)
    }
}

impl IntoAny for &[u8] {
    #[inline]
    fn into_any(self) -> Result<Any, ConvError> {
        Ok(bytes_any(self))
    }
}

/// A shared slice parameter `&[E]`: an export converts one through this trait rather than
/// [`FromArg`], so that an element other than `u8` is refused with [`SliceElement`]'s
/// message, spanned on the parameter, naming what to take instead, and not with the unmet
/// bound of the `&T` impl for object types.
#[doc(hidden)]
pub trait SliceParam<'a>: Sized {
    /// As [`FromArg::PARAM`].
    const PARAM: (&'static TypeDesc, Option<ExactSlot>, Access);
    /// As [`FromArg::TEXTS`].
    const TEXTS: TypeTexts;
    /// As [`FromArg::convert`].
    fn convert<M: Mode>(slots: &'a Slots<'a>, slot: usize) -> Result<Self, M::Stop>;
}

impl<'a, E: SliceElement<'a>> SliceParam<'a> for &'a [E] {
    const PARAM: (&'static TypeDesc, Option<ExactSlot>, Access) = E::PARAM;
    const TEXTS: TypeTexts = E::TEXTS;
    #[inline(always)]
    fn convert<M: Mode>(slots: &'a Slots<'a>, slot: usize) -> Result<&'a [E], M::Stop> {
        E::convert::<M>(slots, slot)
    }
}

/// The element of a slice parameter: bytes only.
#[diagnostic::on_unimplemented(
    message = "`&[{Self}]` cannot be passed across the ABI boundary",
    label = "only `&[u8]` (bytes) is a slice parameter",
    note = "an array of numbers crosses as a tensor: take `HostTensor<'_, {Self}, 1>` (zero copy, from numpy, torch or any DLPack array)",
    note = "a list crosses as `Vec<{Self}>` (a copy of a Python list or tuple)"
)]
#[doc(hidden)]
pub trait SliceElement<'a>: Sized {
    /// `FromArg::PARAM` of `&[Self]`.
    const PARAM: (&'static TypeDesc, Option<ExactSlot>, Access);
    /// `FromArg::TEXTS` of `&[Self]`.
    const TEXTS: TypeTexts;
    /// `FromArg::convert` of `&[Self]`.
    fn convert<M: Mode>(slots: &'a Slots<'a>, slot: usize) -> Result<&'a [Self], M::Stop>;
}

impl<'a> SliceElement<'a> for u8 {
    const PARAM: (&'static TypeDesc, Option<ExactSlot>, Access) = <&[u8] as FromArg>::PARAM;
    const TEXTS: TypeTexts = <&[u8] as FromArg>::TEXTS;
    #[inline(always)]
    fn convert<M: Mode>(slots: &'a Slots<'a>, slot: usize) -> Result<&'a [u8], M::Stop> {
        <&'a [u8] as FromArg<'a>>::convert::<M>(slots, slot)
    }
}

impl AbiType for Vec<u8> {
    const DESC: &'static TypeDesc = &TypeDesc::Bytes;
}

impl ListItem for Vec<u8> {}

impl<'a> FromArg<'a> for Vec<u8> {
    #[inline]
    fn from_arg(v: &'a AnyView<'a>) -> Result<Vec<u8>, ConvError> {
        bytes_arg(v).map(<[u8]>::to_vec)
    }
}

impl IntoAny for Vec<u8> {
    #[inline]
    fn into_any(self) -> Result<Any, ConvError> {
        Ok(vec_bytes_any(self))
    }
}
into_arg!(owned: [] Vec<u8>);

macro_rules! byte_object_conv {
    ($t:ty, $desc:expr, $index:expr, $copy:expr) => {
        impl AbiType for $t {
            const DESC: &'static TypeDesc = &$desc;
        }
        impl ListItem for $t {}

        impl<'a> FromArg<'a> for $t {
            fn from_arg(v: &'a AnyView<'a>) -> Result<$t, ConvError> {
                match v.object().and_then(core::ptr::NonNull::new) {
                    // SAFETY: a live object of the right index and layout, borrowed by the view.
                    Some(obj) if v.type_index() == $index => Ok(unsafe {
                        <$t>::from_object_unchecked(ObjectRef::from_borrowed(obj))
                    }),
                    // Inline and borrowed forms carry no object: copy them into one (a null
                    // object handle is refused there).
                    _ => {
                        let copy: fn(&'a AnyView<'a>) -> Result<$t, ConvError> = $copy;
                        copy(v)
                    }
                }
            }
        }

        impl IntoAny for $t {
            fn into_any(self) -> Result<Any, ConvError> {
                Ok(Any::from(self))
            }
        }
        into_arg!(owned: [] $t);
    };
}

byte_object_conv!(Str, TypeDesc::Str, ti::STR, |v| str_arg(v).map(Str::new));
byte_object_conv!(Bytes, TypeDesc::Bytes, ti::BYTES, |v| {
    if is_bytes_form(v.type_index()) {
        view_bytes(v).map(Bytes::new)
    } else {
        Err(ConvError::refused(&TypeDesc::Bytes, v.raw()))
    }
});
