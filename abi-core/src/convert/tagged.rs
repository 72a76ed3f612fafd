//! Enums whose variants hold fields (`#[derive(AbiEnum)]` on `enum Shape { Circle { r: f64 },
//! Empty }`): a value crosses as a tagged tuple, an Array of the variant's name then its
//! fields in declaration order (`("Circle", 2.0)`, `("Empty",)`), on the struct machinery:
//! every host reads it without a type registered, and the variant's name is looked up as a
//! fieldless enum's is. The generated code converts the fields; this reads the tag.

use crate::ffi::type_index as ti;
use crate::reflect::{StructDesc, TaggedDesc, TypeDesc};
use crate::value::any::AnyView;
use crate::value::array::seq_slice;
use crate::value::conv_error::ConvError;
use crate::value::error::Error;
use crate::value::string::{is_str_form, view_bytes};

/// The variant an argument of the enum `desc` (a [`TypeDesc::Tagged`]) names, by position,
/// and the items holding its fields: an Array or List whose first item is one of the names
/// and whose other items are as many as that variant's fields.
#[inline]
pub fn tagged_items<'a>(v: &'a AnyView<'a>, desc: &'static TypeDesc) -> Result<(usize, &'a [AnyView<'a>]), ConvError> {
    let TypeDesc::Tagged(tagged) = desc else { unreachable!("tagged_items takes an enum with data's description") };
    let ty = v.type_index();
    if (ty != ti::ARRAY && ty != ti::LIST) || v.raw().ptr().is_null() {
        return Err(ConvError::refused(desc, v.raw()));
    }
    // SAFETY: an Array/List object borrowed by the view for 'a.
    let items = unsafe { seq_slice(v.raw().ptr().cast()) };
    let Some((tag, fields)) = items.split_first().filter(|(tag, _)| is_str_form(tag.type_index())) else {
        return Err(no_tag(tagged, items.first()));
    };
    let name = view_bytes(tag)?;
    let position = tagged
        .tags
        .names
        .iter()
        .position(|n| n.as_bytes() == name)
        .ok_or_else(|| ConvError::unknown_name(&tagged.tags, name))?;
    let variant = &tagged.variants[position];
    if fields.len() != variant.fields.len() {
        return Err(wrong_length(variant, items.len()));
    }
    Ok((position, fields))
}

// A variant's name with too few or too many fields.
#[cold]
fn wrong_length(variant: &StructDesc, items: usize) -> ConvError {
    let n = variant.fields.len();
    let names: Vec<&str> = variant.fields.iter().map(|f| f.name).collect();
    let fields = match n {
        0 => "no fields".to_owned(),
        1 => format!("1 field ({})", names[0]),
        _ => format!("{n} fields ({})", names.join(", ")),
    };
    ConvError::Other(Box::new(Error::type_error(format!(
        "expected {}: its name then {fields}, got a tuple of {items} item{}",
        variant.name,
        if items == 1 { "" } else { "s" }
    ))))
}

// An Array whose first item is not a string: no variant named.
#[cold]
fn no_tag(tagged: &TaggedDesc, first: Option<&AnyView<'_>>) -> ConvError {
    let names: Vec<String> = tagged.tags.names.iter().map(|n| format!("{n:?}")).collect();
    let got = match first {
        Some(item) => format!("a tuple starting with {}", ti::display_name(item.type_index())),
        None => "an empty tuple".to_owned(),
    };
    ConvError::Other(Box::new(Error::type_error(format!(
        "expected {}: a tuple of a variant's name ({}) then its fields, got {got}",
        tagged.tags.name,
        names.join(", ")
    ))))
}
