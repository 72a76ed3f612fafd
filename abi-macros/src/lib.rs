//! Proc-macros of **abi**, re-exported by `abi_core`. Each macro runs the one skeleton in
//! `skeleton.rs`: parse -> model -> validate -> expand; errors are collected and reported
//! together, spanned on the offending token, next to a fallback that keeps later uses of
//! the item compiling.

mod attr;
mod case;
mod errors;
mod expand;
mod mangle;
mod model;
mod parse;
mod skeleton;
#[cfg(test)]
mod snapshot_tests;
mod validate;

use proc_macro::TokenStream;

/// Exports a free function through the TVM FFI packed-call ABI.
///
/// Generates `__tvm_ffi_<name>` (the packed shim), `__tvm_ffi__metadata_<name>` (JSON with
/// `type_schema`, `arg_names`, `iree.abi` and `signature`, rendered at compile time) and
/// `__tvm_ffi__doc_<name>` (the `///` docs). The function stays callable from Rust.
///
/// Options: `name = "c_identifier"` overrides the exported name; `crate = "path"` names the
/// runtime crate when it is not `::abi_core`. Parameters may carry `#[abi(expand)]` to pass
/// a derived struct as one argument slot per leaf field.
///
/// `op` makes it a framework op: destination-passing (it returns `()` or `Result<()>`), its
/// input tensors first, then its outputs, each mutable tensor marked `#[abi(out = x)]` (the
/// shape of input `x`), `#[abi(out = [a.0, n, 3])]` (an input's axis, an integer scalar, a
/// constant) or `#[abi(inout)]` (in place), scalars before, between or after those groups;
/// `backward = path` names the op computing its gradients. Its rules are published in the
/// metadata (`abi.op`); an op with an `inout` tensor also exports `<name>__jax`, in JAX's
/// argument order.
///
/// ```ignore
/// /// Adds two integers.
/// #[abi_core::export_fn]
/// pub fn add(a: i64, b: i64) -> i64 { a + b }
/// ```
#[proc_macro_attribute]
pub fn export_fn(attr: TokenStream, item: TokenStream) -> TokenStream {
    skeleton::run::<model::ExportFn>((attr.into(), item.into())).into()
}

/// Makes a struct an ABI type: it crosses the boundary as a tuple (an Array object) of its
/// fields in declaration order, nested structs nested. Reflection: named structs are
/// `["sdict", ["x", T], ...]`, tuple structs `["stuple", T, ...]`.
///
/// Field option `#[abi(rename = "key")]` changes the reflected key, never the order. Struct
/// option `#[abi(crate = "path")]` names the runtime crate. Structs whose leaves are all
/// scalars can also be passed expanded, one argument slot per leaf (`#[abi(expand)]` on
/// the parameter).
#[proc_macro_derive(AbiStruct, attributes(abi))]
pub fn derive_abi_struct(input: TokenStream) -> TokenStream {
    skeleton::run::<model::StructDef>(input.into()).into()
}

/// Makes a fieldless enum an ABI type: each value crosses as the name of its variant, a
/// string (so every host reads it without a table), and its names are published in the
/// metadata (Python packages make it an `enum.Enum`).
///
/// Enum option `#[abi(rename_all = "...")]` applies one of serde's case rules
/// (`lowercase`, `snake_case`, `kebab-case`...) to every name; variant option
/// `#[abi(rename = "...")]` names one variant. `#[abi(crate = "path")]` names the runtime
/// crate. An unknown name passed in is a `ValueError` listing the names.
///
/// ```ignore
/// #[derive(abi_core::AbiEnum)]
/// #[abi(rename_all = "lowercase")]
/// pub enum Interp { Nearest, Bilinear, #[abi(rename = "cubic")] Bicubic }
/// ```
#[proc_macro_derive(AbiEnum, attributes(abi))]
pub fn derive_abi_enum(input: TokenStream) -> TokenStream {
    skeleton::run::<model::EnumDef>(input.into()).into()
}

/// Makes an error enum's variants error kinds: `From<Self> for abi_core::Error` (so an
/// export may return `Result<T, Self>`) raises the variant's kind, `<crate>.<Enum>.<Variant>`,
/// with the error's `Display` text as its message (derive `Display` with `thiserror`, or
/// write it). The kinds are published in the library's records; the Python package makes
/// each an exception class subclassing one class per type and the variant's `base`.
///
/// Variant options: `#[abi(base = ValueError)]` (one of the builtin kinds tvm_ffi maps to
/// Python's exceptions; `RuntimeError` by default), `#[abi(kind = "mylib.BadShape")]` (the
/// whole kind, never a builtin one). `#[abi(crate = "path")]` names the runtime crate.
///
/// ```ignore
/// #[derive(Debug, thiserror::Error, abi_core::AbiError)]
/// pub enum KernelError {
///     #[error("bad shape: {0}")]
///     #[abi(base = ValueError)]
///     BadShape(String),
///     #[error("internal: {0}")]
///     Internal(String),
/// }
/// ```
#[proc_macro_derive(AbiError, attributes(abi))]
pub fn derive_abi_error(input: TokenStream) -> TokenStream {
    skeleton::run::<model::ErrorDef>(input.into()).into()
}

/// Declares typed imports: functions that live elsewhere, called like Rust functions.
///
/// ```ignore
/// #[abi_core::import(MathLib)]            // generates `pub struct MathLib`
/// extern "C" {
///     /// Adds two integers.
///     fn add(a: i64, b: i64) -> i64;
///     #[abi(name = "greet_v2")]
///     fn greet(name: &str) -> String;
///     #[abi(optional, fallback = local_fast_add)]
///     fn fast_add(a: i64, b: i64) -> i64;
/// }
/// let math = MathLib::bind(&abi_core::Library::open("libmath.so")?)?;
/// let three: i64 = math.add(1, 2)?;
/// ```
///
/// `bind` (a library), `bind_globals` (the global registry) and `bind_linked` (exports
/// linked into this binary) resolve every function by its exported name, compare the
/// declared signature with published metadata, and fail listing every missing or
/// mismatched import. Optional imports may be absent (`has_<name>()`); a `fallback` runs
/// instead. Each method returns `abi_core::Result<T>`.
#[proc_macro_attribute]
pub fn import(attr: TokenStream, item: TokenStream) -> TokenStream {
    skeleton::run::<model::ImportSet>((attr.into(), item.into())).into()
}

/// Makes a struct a user object type: a class hosts see, registered in the process's type
/// table under `#[abi(type_key = "namespace.Name")]`.
///
/// Field options: `#[abi(get)]` reflects a read-only copy; `#[abi(get, set)]` a writable
/// field, which must be an atomic, `Mutex<T>` or `RwLock<T>` (objects are shared by every
/// holder and every thread); `#[abi(parent)]` on the first field makes the type a child of
/// that field's type. Unmarked fields stay private to Rust. The struct must be
/// `Send + Sync`; hold values through `abi_core::Obj<T>`, borrow them as `&T` parameters.
#[proc_macro_derive(Object, attributes(abi))]
pub fn derive_object(input: TokenStream) -> TokenStream {
    skeleton::run::<model::ObjectDef>(input.into()).into()
}

/// Exposes the functions of an impl block as methods of an `Object` type: `&self`
/// methods, static methods (no receiver), and one `#[abi(init)]` constructor, which
/// Python's `__init__` calls (`__ffi_init__`).
#[proc_macro_attribute]
pub fn methods(attr: TokenStream, item: TokenStream) -> TokenStream {
    skeleton::run::<model::MethodsBlock>((attr.into(), item.into())).into()
}
