//! [`Reflected`]: any object, whatever runtime or language made it, read and called
//! through its type's reflection in the type table: its fields by name (read with the
//! registered getter, written with the setter of a writable one), its methods by name.
//! This is how Rust reaches objects of C++ types (`testing.TestIntPair`) and of abi
//! libraries it does not link; [`reflected_type!`](crate::reflected_type) names one type
//! over it for typed handles (what `abi bindgen` writes).

use core::ffi::c_void;
use core::ptr::NonNull;

use crate::convert::{FromAny, IntoAny};
use crate::ffi::type_table::{field_flags, FieldInfo, FieldSetter, MethodInfo, TypeInfo};
use crate::ffi::{type_index as ti, RawAny};
use crate::runtime::calls::error_slot::take_raised_after;
use crate::runtime::calls::function::FunctionRef;
use crate::runtime::object_types::type_registry::type_api;
use crate::value::any::{Any, AnyView};
use crate::value::error::{Error, Result};
use crate::value::object::ObjectRef;

/// A setter given as a Function object rather than a function pointer.
const SETTER_IS_FUNCTION_OBJ: i64 = 1 << 11;

/// An owned object read and called through its type's reflection.
#[derive(Clone)]
pub struct Reflected(ObjectRef);

impl Reflected {
    /// Wraps an object reference.
    pub fn new(obj: ObjectRef) -> Reflected {
        Reflected(obj)
    }

    /// The object.
    pub fn object(&self) -> &ObjectRef {
        &self.0
    }

    /// The object's type key (`testing.TestIntPair`).
    pub fn type_key(&self) -> String {
        // SAFETY: the info of a live object's type; its key is valid for the process.
        String::from_utf8_lossy(unsafe { self.info().type_key.as_slice() }).into_owned()
    }

    /// Whether the object's type is `key` or derives from it.
    pub fn is_instance_of(&self, key: &str) -> bool {
        self.lineage().iter().any(|info| {
            // SAFETY: infos of registered types; their keys live for the process.
            unsafe { info.type_key.as_slice() == key.as_bytes() }
        })
    }

    /// The names of its reflected fields, its ancestors' first.
    pub fn field_names(&self) -> Vec<String> {
        self.fields().map(|f| name_of(&f.name)).collect()
    }

    /// The names of its reflected methods (static ones too), its ancestors' first.
    pub fn method_names(&self) -> Vec<String> {
        self.methods().map(|m| name_of(&m.name)).collect()
    }

    /// Reads the field `name`, converted to `T`.
    pub fn get<T: FromAny>(&self, name: &str) -> Result<T> {
        let field = self.field(name)?;
        let getter = field
            .getter
            .ok_or_else(|| Error::attribute_error(format!("field `{name}` of {} has no getter", self.type_key())))?;
        let mut out = RawAny::NONE;
        // SAFETY: the registered getter of this type's field, given the field's address in
        // this live object; it writes an owned value or raises.
        let rc = unsafe { getter(self.field_addr(field), &mut out) };
        if rc != 0 {
            return Err(take_raised_after(rc));
        }
        // SAFETY: the getter transferred one reference to `out`.
        let value = unsafe { Any::from_raw(out) };
        value.to().map_err(|e| Error::type_error(format!("field `{name}` of {}: {}", self.type_key(), e.message())))
    }

    /// Writes `value` into the field `name`; an `AttributeError` when the field is not
    /// writable.
    pub fn set<V: IntoAny>(&self, name: &str, value: V) -> Result<()> {
        let field = self.field(name)?;
        if field.flags & field_flags::WRITABLE == 0 || field.setter.is_null() {
            return Err(Error::attribute_error(format!("field `{name}` of {} is read-only", self.type_key())));
        }
        let value = value.into_any().map_err(Error::from)?;
        let addr = self.field_addr(field);
        let rc = if field.flags & SETTER_IS_FUNCTION_OBJ != 0 {
            // SAFETY: with this flag the setter is a Function object the table keeps alive.
            let f = unsafe { FunctionRef::from_raw(NonNull::new_unchecked(field.setter.cast())) };
            let addr = RawAny::from_ptr(ti::OPAQUE_PTR, addr);
            // SAFETY: an opaque pointer holds no reference.
            let args = [unsafe { AnyView::from_raw(addr) }, value.view()];
            return f.call_packed(&args).map(drop);
        } else {
            // SAFETY: without the flag the setter is a `TVMFFIFieldSetter`.
            let setter: FieldSetter = unsafe { core::mem::transmute::<*mut c_void, FieldSetter>(field.setter) };
            // SAFETY: the field's address in this live object and a value valid for the call.
            unsafe { setter(addr, value.as_raw()) }
        };
        if rc != 0 {
            return Err(take_raised_after(rc));
        }
        Ok(())
    }

    /// Calls the method `name` with `args` (the object first for an instance method),
    /// converting the result to `R`.
    pub fn call<R: FromAny>(&self, name: &str, args: &[AnyView<'_>]) -> Result<R> {
        let method = self.method(name)?;
        let f = method_function(&method.method, name)?;
        let result = if method.flags & field_flags::STATIC_METHOD != 0 {
            f.call_packed(args)?
        } else {
            let this = RawAny::from_ptr(self.0.type_index(), self.0.as_ptr().cast());
            // SAFETY: `self` keeps the object alive for the call.
            let mut all = vec![unsafe { AnyView::from_raw(this) }];
            all.extend_from_slice(args);
            f.call_packed(&all)?
        };
        result.to().map_err(|e| Error::type_error(format!("{}.{name}: the result {}", self.type_key(), e.message())))
    }

    /// Calls the static method `name` of the type `type_key` with `args`, converting the
    /// result to `R`: no object is needed.
    pub fn call_static<R: FromAny>(type_key: &str, name: &str, args: &[AnyView<'_>]) -> Result<R> {
        let api = type_api();
        let key = crate::ffi::ByteArray::from_slice(type_key.as_bytes());
        let mut index = 0;
        // SAFETY: a valid key and out pointer; a miss returns non-zero with an error raised.
        let rc = unsafe { (api.key_to_index)(&key, &mut index) };
        if rc != 0 {
            let _ = take_raised_after(rc);
            return Err(Error::attribute_error(format!("no type `{type_key}` is registered in this process")));
        }
        // SAFETY: the info of a registered index.
        let info = unsafe { &*(api.get_type_info)(index) };
        let method = lineage(info)
            .into_iter()
            // SAFETY: `num_methods` records, registered for the process.
            .flat_map(|i| unsafe { records(i.methods, i.num_methods) })
            .rfind(|m| name_is(&m.name, name))
            .ok_or_else(|| Error::attribute_error(format!("{type_key} has no method `{name}`")))?;
        let result = method_function(&method.method, name)?.call_packed(args)?;
        result.to().map_err(|e| Error::type_error(format!("{type_key}.{name}: the result {}", e.message())))
    }

    /// The object's type and its ancestors, the root first.
    fn lineage(&self) -> Vec<&'static TypeInfo> {
        lineage(self.info())
    }

    fn info(&self) -> &'static TypeInfo {
        // SAFETY: a live object's index is registered in the table of the runtime that made
        // it, which is this library's (one runtime per process); type infos are never freed.
        unsafe { &*(type_api().get_type_info)(self.0.type_index()) }
    }

    fn fields(&self) -> impl DoubleEndedIterator<Item = &'static FieldInfo> {
        self.lineage().into_iter().flat_map(|info| {
            // SAFETY: `num_fields` records, registered for the process.
            unsafe { records(info.fields, info.num_fields) }
        })
    }

    fn methods(&self) -> impl DoubleEndedIterator<Item = &'static MethodInfo> {
        self.lineage().into_iter().flat_map(|info| {
            // SAFETY: `num_methods` records, registered for the process.
            unsafe { records(info.methods, info.num_methods) }
        })
    }

    fn field(&self, name: &str) -> Result<&'static FieldInfo> {
        // The last match: a type's own field hides an ancestor's of the same name.
        self.fields().rfind(|f| name_is(&f.name, name)).ok_or_else(|| {
            Error::attribute_error(format!(
                "{} has no field `{name}` (it has: {})",
                self.type_key(),
                self.field_names().join(", ")
            ))
        })
    }

    fn method(&self, name: &str) -> Result<&'static MethodInfo> {
        self.methods().rfind(|m| name_is(&m.name, name)).ok_or_else(|| {
            Error::attribute_error(format!(
                "{} has no method `{name}` (it has: {})",
                self.type_key(),
                self.method_names().join(", ")
            ))
        })
    }

    fn field_addr(&self, field: &FieldInfo) -> *mut c_void {
        // SAFETY: the offset of a registered field lies within the object.
        unsafe { self.0.as_ptr().cast::<u8>().offset(field.offset as isize).cast() }
    }
}

impl core::fmt::Debug for Reflected {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}({:p})", self.type_key(), self.0.as_ptr())
    }
}

/// `info`'s type and its ancestors, the root first.
fn lineage(info: &'static TypeInfo) -> Vec<&'static TypeInfo> {
    let mut out = Vec::with_capacity(info.type_depth.max(0) as usize + 1);
    for d in 0..info.type_depth.max(0) as usize {
        // SAFETY: a type info lists `type_depth` ancestors, registered for the process.
        if let Some(a) = unsafe { (*info.type_ancestors.add(d)).as_ref() } {
            out.push(a);
        }
    }
    out.push(info);
    out
}

/// `n` records at `ptr` (none when null).
///
/// # Safety
/// `ptr` points at `n` records valid for the process, or is null.
unsafe fn records<T>(ptr: *const T, n: i32) -> &'static [T] {
    if ptr.is_null() || n <= 0 {
        return &[];
    }
    // SAFETY: guaranteed by the caller.
    unsafe { core::slice::from_raw_parts(ptr, n as usize) }
}

fn name_of(name: &crate::ffi::ByteArray) -> String {
    // SAFETY: a registered record's name lives as long as its record.
    String::from_utf8_lossy(unsafe { name.as_slice() }).into_owned()
}

fn name_is(name: &crate::ffi::ByteArray, wanted: &str) -> bool {
    // SAFETY: as above.
    unsafe { name.as_slice() == wanted.as_bytes() }
}

fn method_function<'a>(method: &'a RawAny, name: &str) -> Result<FunctionRef<'a>> {
    match NonNull::new(method.ptr().cast()) {
        // SAFETY: a method record holds a Function object the table keeps alive.
        Some(obj) if method.type_index == ti::FUNCTION => Ok(unsafe { FunctionRef::from_raw(obj) }),
        _ => Err(Error::type_error(format!("method `{name}` is not a function"))),
    }
}

/// Declares a typed handle over [`Reflected`] for the objects of one type key (and the
/// types deriving from it): a newtype that derefs to `Reflected`, converts from an
/// argument or result only when the object is an instance of the key, and is declared in
/// signatures by that key, so bind checks compare it with the callee's. Typed getters,
/// setters and methods are then written over [`Reflected::get`], [`Reflected::set`] and
/// [`Reflected::call`] (as `abi bindgen` does).
///
/// ```
/// abi_core::reflected_type! {
///     /// A pair of integers made by C++.
///     pub struct TestIntPair = "testing.TestIntPair";
/// }
///
/// impl TestIntPair {
///     /// The first integer.
///     pub fn a(&self) -> abi_core::Result<i64> {
///         self.get("a")
///     }
/// }
/// ```
#[macro_export]
macro_rules! reflected_type {
    ($(#[$attr:meta])* $vis:vis struct $name:ident = $key:literal;) => {
        $(#[$attr])*
        #[derive(Clone, Debug)]
        $vis struct $name($crate::Reflected);

        impl $name {
            /// The type key of these objects.
            pub const TYPE_KEY: &'static str = $key;
        }

        impl ::core::ops::Deref for $name {
            type Target = $crate::Reflected;
            fn deref(&self) -> &$crate::Reflected {
                &self.0
            }
        }

        impl $crate::AbiType for $name {
            const DESC: &'static $crate::TypeDesc = &$crate::TypeDesc::Class { key: $key };
        }
        impl $crate::ListItem for $name {}

        impl<'a> $crate::FromArg<'a> for $name {
            fn from_arg(v: &'a $crate::AnyView<'a>) -> ::core::result::Result<Self, $crate::ConvError> {
                let obj = <$crate::ObjectRef as $crate::FromArg<'a>>::from_arg(v)
                    .map_err(|_| $crate::ConvError::refused(<Self as $crate::AbiType>::DESC, v.raw()))?;
                let r = $crate::Reflected::new(obj);
                if r.is_instance_of($key) {
                    ::core::result::Result::Ok($name(r))
                } else {
                    ::core::result::Result::Err($crate::ConvError::refused(<Self as $crate::AbiType>::DESC, v.raw()))
                }
            }
        }

        impl $crate::IntoAny for $name {
            fn into_any(self) -> ::core::result::Result<$crate::Any, $crate::ConvError> {
                ::core::result::Result::Ok($crate::Any::from(self.0.object().clone()))
            }
        }

        impl $crate::IntoArg for $name {
            type Slot = $crate::Any;
            fn into_slot(self) -> ::core::result::Result<$crate::Any, $crate::ConvError> {
                $crate::IntoAny::into_any(self)
            }
        }

        impl $crate::AbiType for &$name {
            const DESC: &'static $crate::TypeDesc = <$name as $crate::AbiType>::DESC;
        }

        impl $crate::IntoArg for &$name {
            type Slot = $crate::RawAny;
            fn into_slot(self) -> ::core::result::Result<$crate::RawAny, $crate::ConvError> {
                let obj = self.0.object();
                ::core::result::Result::Ok($crate::RawAny::from_ptr(obj.type_index(), obj.as_ptr().cast()))
            }
        }
    };
}
