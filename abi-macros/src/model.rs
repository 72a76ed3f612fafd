//! The macros' model: plain data that keeps the user's tokens for spans.

use proc_macro2::Span;

/// A function marked `#[export_fn]`.
pub struct ExportFn {
    /// The user's item, re-emitted unchanged (minus our helper attributes).
    pub item: syn::ItemFn,
    /// The exported name and where it came from (the option literal or the fn name).
    pub name: String,
    /// Span of the exported name.
    pub name_span: Span,
    /// Path of the runtime crate.
    pub krate: syn::Path,
    /// Parameters in order.
    pub params: Vec<Param>,
    /// The return type, `None` for `()`.
    pub ret: Option<syn::Type>,
    /// The collected `///` docs.
    pub doc: String,
    /// `global = "..."`: the global registry name, registered when the library loads.
    pub global: Option<syn::LitStr>,
    /// `iree` (its span): also a function of the library's IREE VM module.
    pub iree: Option<Span>,
}

/// One parameter.
pub struct Param {
    /// The binding name.
    pub name: syn::Ident,
    /// The declared type.
    pub ty: syn::Type,
    /// `#[abi(expand)]` (its span): one argument slot per leaf field.
    pub expand: Option<Span>,
    /// `#[abi(default)]` or `#[abi(default = literal)]`: the value an omitted argument takes.
    pub default: Option<ParamDefault>,
}

/// A parameter's default, as written.
pub struct ParamDefault {
    /// The literal; `None` for a bare `#[abi(default)]` (an `Option` parameter's `None`).
    pub value: Option<DefaultLit>,
    /// The span of the `default` key.
    pub span: Span,
}

/// A default's literal.
pub enum DefaultLit {
    /// An integer, negated when written `-3`.
    Int(syn::LitInt, bool),
    /// A float, negated when written `-1.5`.
    Float(syn::LitFloat, bool),
    /// `true` or `false`.
    Bool(syn::LitBool),
    /// A string.
    Str(syn::LitStr),
    /// `None`.
    None(Span),
}

/// A type deriving `AbiStruct`.
pub struct StructDef {
    /// The struct name.
    pub ident: syn::Ident,
    /// Its generic parameters (refused, but the fallback names them).
    pub generics: syn::Generics,
    /// Path of the runtime crate.
    pub krate: syn::Path,
    /// Fields in declaration order.
    pub fields: Vec<Field>,
    /// A tuple struct (`Pair(i64, i64)`).
    pub tuple_like: bool,
}

/// One field of a [`StructDef`].
pub struct Field {
    /// How to access it (`x` or `0`).
    pub member: syn::Member,
    /// The reflected key: the name, its `rename`, or the index for tuple structs.
    pub key: String,
    /// Span of the key (the rename literal when given).
    pub key_span: Span,
    /// Whether the key came from `#[abi(rename = "...")]`.
    pub renamed: bool,
    /// The field type.
    pub ty: syn::Type,
}

/// An `#[import(Name)]` extern block: the struct to generate and its functions.
pub struct ImportSet {
    /// The generated struct.
    pub ident: syn::Ident,
    /// Its visibility (default `pub`).
    pub vis: syn::Visibility,
    /// Path of the runtime crate.
    pub krate: syn::Path,
    /// Docs for the struct (the extern block's docs).
    pub attrs: Vec<syn::Attribute>,
    /// The declared functions in order.
    pub fns: Vec<ImportFn>,
}

/// One declared import.
pub struct ImportFn {
    /// The declared signature (the method's name and parameters).
    pub sig: syn::Signature,
    /// The attributes kept on the method (docs).
    pub attrs: Vec<syn::Attribute>,
    /// The exported name resolved at bind time.
    pub name: String,
    /// Span of that name.
    pub name_span: Span,
    /// Parameters in order.
    pub params: Vec<Param>,
    /// The return type, `None` for `()`.
    pub ret: Option<syn::Type>,
    /// `#[abi(optional)]`: absence is not a bind error.
    pub optional: bool,
    /// `#[abi(fallback = path)]`: called when the optional import is absent.
    pub fallback: Option<syn::Path>,
    /// `#[abi(unchecked)]`: bound without comparing signatures (for callees whose
    /// metadata has none, such as C++ packed globals).
    pub unchecked: bool,
}

/// A struct deriving `Object`.
pub struct ObjectDef {
    /// The struct name.
    pub ident: syn::Ident,
    /// Its generic parameters (refused, but the fallback names them).
    pub generics: syn::Generics,
    /// Path of the runtime crate.
    pub krate: syn::Path,
    /// `#[abi(type_key = "...")]`.
    pub type_key: Option<syn::LitStr>,
    /// The `///` docs.
    pub doc: String,
    /// Fields in declaration order.
    pub fields: Vec<ObjectField>,
}

/// How a field of an object is reflected.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Not reflected.
    Hidden,
    /// `#[abi(get)]`: a read-only copy.
    Get,
    /// `#[abi(get, set)]`: read and written through the field's own synchronisation.
    GetSet,
}

/// One field of an [`ObjectDef`].
pub struct ObjectField {
    /// The field name.
    pub ident: syn::Ident,
    /// The field type.
    pub ty: syn::Type,
    /// The `///` docs.
    pub doc: String,
    /// Reflection.
    pub access: Access,
    /// `#[abi(parent)]` (its span): the parent type, embedded first.
    pub parent: Option<Span>,
}

/// An `#[methods]` impl block.
pub struct MethodsBlock {
    /// The block, re-emitted without our helper attributes.
    pub item: syn::ItemImpl,
    /// Path of the runtime crate.
    pub krate: syn::Path,
    /// The methods in order.
    pub methods: Vec<Method>,
}

/// What kind of method a `#[methods]` function is.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum MethodKind {
    /// Takes `&self`.
    Instance,
    /// No receiver.
    Static,
    /// `#[abi(init)]`: the constructor Python's `__init__` calls (`__ffi_init__`).
    Init,
}

/// One method of a [`MethodsBlock`].
pub struct Method {
    /// The Rust name.
    pub ident: syn::Ident,
    /// The declared signature.
    pub sig: syn::Signature,
    /// The reflected name (`__ffi_init__` for the constructor).
    pub name: String,
    /// Its kind.
    pub kind: MethodKind,
    /// Parameters in slot order (`self` first for instance methods).
    pub params: Vec<Param>,
    /// The return type with `Self` replaced, `None` for `()`.
    pub ret: Option<syn::Type>,
    /// The `///` docs.
    pub doc: String,
}
