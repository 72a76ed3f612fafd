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
    /// `op` (its span): a framework op (destination-passing, with output rules).
    pub op: Option<Span>,
    /// `backward = path` (with the span of its key); refused without `op`.
    pub backward: Option<(syn::Path, Span)>,
    /// `gil = "release" | "keep"`: `true` to release the GIL for Python callers.
    pub release_gil: Option<bool>,
}

/// An op output's shape rule, as written in `#[abi(out = ...)]`.
pub enum OutRule {
    /// `out = x`: the shape of input `x`.
    Like(syn::Ident),
    /// `out = [a.0, n, 3]`, with the span of the list (`None` where the list was
    /// malformed, an error already reported).
    Shape(Vec<DimRule>, Option<Span>),
}

/// One item of a shape rule.
pub enum DimRule {
    /// `a.0`: an axis of an input tensor.
    Axis(syn::Ident, syn::LitInt),
    /// `n`: an integer scalar parameter.
    Scalar(syn::Ident),
    /// `3`: a constant.
    Const(syn::LitInt),
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
    /// `#[abi(out = rule)]` (with the span of its key): an op's output.
    pub out: Option<(OutRule, Span)>,
    /// `#[abi(inout)]` (its span): an op's in-place tensor.
    pub inout: Option<Span>,
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
    /// A path to a variant of a fieldless enum (`Interp::Nearest`).
    Variant(syn::Path),
}

/// An enum deriving `AbiEnum`.
pub struct EnumDef {
    /// The enum name.
    pub ident: syn::Ident,
    /// Its generic parameters (refused, but the fallback names them).
    pub generics: syn::Generics,
    /// The runtime crate path.
    pub krate: syn::Path,
    /// `rename_all = "..."`, as written.
    pub rename_all: Option<syn::LitStr>,
    /// The variants, in declaration order.
    pub variants: Vec<EnumVariant>,
    /// What is wrong with the item itself, found while parsing: a union or struct, no
    /// variants (the span and message, reported by validation).
    pub not_an_enum: Option<(Span, &'static str)>,
}

impl EnumDef {
    /// Whether a variant holds fields: the enum crosses as tagged tuples, not names.
    pub fn has_data(&self) -> bool {
        self.variants.iter().any(|v| v.shape != VariantShape::Unit)
    }

    /// Each variant's name and the span to report it at: its rename, else its identifier
    /// after `rename_all` (as written when the rule is unknown, which validation reports).
    pub fn names(&self) -> Vec<(String, Span)> {
        let rule = self.rename_all.as_ref().map(syn::LitStr::value);
        self.variants
            .iter()
            .map(|v| match &v.rename {
                Some(lit) => (lit.value(), lit.span()),
                None => {
                    let ident = v.ident.to_string();
                    (rule.as_deref().and_then(|r| crate::case::apply(r, &ident)).unwrap_or(ident), v.ident.span())
                }
            })
            .collect()
    }
}

/// One variant of an [`EnumDef`].
pub struct EnumVariant {
    /// The variant.
    pub ident: syn::Ident,
    /// `#[abi(rename = "...")]`, as written.
    pub rename: Option<syn::LitStr>,
    /// Its fields (none for a unit variant).
    pub fields: Vec<Field>,
    /// How its fields are written.
    pub shape: VariantShape,
    /// Its explicit discriminant (refused).
    pub discriminant: Option<syn::Expr>,
}

/// How a variant's fields are written.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum VariantShape {
    /// `Empty`.
    Unit,
    /// `Pair(f64, f64)`.
    Tuple,
    /// `Circle { r: f64 }`.
    Named,
}

/// An enum deriving `AbiError`.
pub struct ErrorDef {
    /// The enum name.
    pub ident: syn::Ident,
    /// Its generic parameters (refused, but the fallback names them).
    pub generics: syn::Generics,
    /// The runtime crate path.
    pub krate: syn::Path,
    /// Its `///` docs.
    pub doc: String,
    /// The variants, in declaration order.
    pub variants: Vec<ErrorVariant>,
    /// What is wrong with the item itself (the span and message, reported by validation).
    pub not_an_enum: Option<(Span, &'static str)>,
}

/// One variant of an [`ErrorDef`]: one error kind.
pub struct ErrorVariant {
    /// The variant.
    pub ident: syn::Ident,
    /// Its `///` docs.
    pub doc: String,
    /// `#[abi(base = ValueError)]`, as written.
    pub base: Option<syn::Path>,
    /// `#[abi(kind = "...")]`, as written.
    pub kind: Option<syn::LitStr>,
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

/// What a parameter's type is to an op, read from how it is written.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum OpType {
    /// `HostTensor`, `StridedTensor` (`device` false) or `DeviceTensor` (true).
    Input { device: bool },
    /// `HostTensorMut`, `StridedTensorMut` (`device` false) or `DeviceTensorMut` (true).
    Mutable { device: bool },
    /// `i64`, `i32` (`int` true), `f64`, `f32`, `bool`.
    Scalar { int: bool },
    /// Another type named by a plain path (`Interp`): a scalar if it is a fieldless enum,
    /// which the expansion checks at compile time.
    Named,
    /// Anything else.
    Other,
}

/// The role of an op's parameter, from its type and its `out`/`inout` option.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum OpRole {
    /// An input tensor.
    Input,
    /// An output (`out = ...`).
    Output,
    /// An in-place tensor (`inout`).
    InOut,
    /// A scalar.
    Scalar,
}

impl Param {
    /// How an op sees this parameter's type.
    pub fn op_type(&self) -> OpType {
        let syn::Type::Path(p) = peel(&self.ty) else { return OpType::Other };
        let Some(last) = p.path.segments.last() else { return OpType::Other };
        match last.ident.to_string().as_str() {
            "HostTensor" | "StridedTensor" => OpType::Input { device: false },
            "DeviceTensor" => OpType::Input { device: true },
            "HostTensorMut" | "StridedTensorMut" => OpType::Mutable { device: false },
            "DeviceTensorMut" => OpType::Mutable { device: true },
            "i64" | "i32" if p.qself.is_none() && p.path.segments.len() == 1 => OpType::Scalar { int: true },
            "f64" | "f32" | "bool" if p.qself.is_none() && p.path.segments.len() == 1 => OpType::Scalar { int: false },
            _ if p.qself.is_none() && last.arguments.is_none() => OpType::Named,
            _ => OpType::Other,
        }
    }

    /// Whether it is an op's input tensor that takes any strides (`StridedTensor`).
    pub fn op_strided_input(&self) -> bool {
        let syn::Type::Path(p) = peel(&self.ty) else { return false };
        self.op_role() == OpRole::Input && p.path.segments.last().is_some_and(|s| s.ident == "StridedTensor")
    }

    /// Its role in an op (a mutable tensor without `out` or `inout`, and an unsupported
    /// type, are refused by validation; they read as outputs and scalars here).
    pub fn op_role(&self) -> OpRole {
        match self.op_type() {
            OpType::Input { .. } => OpRole::Input,
            OpType::Mutable { .. } if self.inout.is_some() && self.out.is_none() => OpRole::InOut,
            OpType::Mutable { .. } => OpRole::Output,
            OpType::Scalar { .. } | OpType::Named | OpType::Other => OpRole::Scalar,
        }
    }
}

/// A type without the invisible groups and parentheses around it.
fn peel(ty: &syn::Type) -> &syn::Type {
    match ty {
        syn::Type::Group(g) => peel(&g.elem),
        syn::Type::Paren(p) => peel(&p.elem),
        other => other,
    }
}
