//! One model of the generated package: its enum classes, classes of enums with data, named
//! tuples, exception classes,
//! classes and functions, each function with its Python parameters, its type signatures
//! (one per array type for ops), its docs and the route a call takes. `build.rs` makes it
//! from a listing; the runtime module (`runtime.rs`) and the stub file (`stub.rs`) are
//! rendered from it and read nothing else.

pub use super::records::Converter;

/// How a signature's first parameter is treated.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Receiver {
    /// A free function.
    None,
    /// A static method.
    Static,
    /// An instance method: the first parameter is the receiver, written `self`.
    Instance,
    /// The constructor: `self` added, the result (the new object) is `None` for Python.
    Init,
}

impl Receiver {
    /// Whether Python code writes `self` first.
    pub fn has_self(self) -> bool {
        matches!(self, Receiver::Instance | Receiver::Init)
    }
}

/// The package.
#[derive(Debug)]
pub struct Package {
    /// The Python package's name.
    pub name: String,
    /// The library file's name.
    pub lib_name: String,
    /// Enum classes for the library's fieldless enums.
    pub enums: Vec<EnumClass>,
    /// Classes for the library's enums with data.
    pub tagged: Vec<TaggedItem>,
    /// Named tuples for the library's structs.
    pub records: Vec<Record>,
    /// Exception classes for the library's error types.
    pub errors: Vec<ErrorClass>,
    /// Registered classes, every parent before its children.
    pub classes: Vec<ClassItem>,
    /// Module-level functions, in the listing's order.
    pub functions: Vec<Function>,
    /// Whether the package has ops (and so the `torch` and `jax` namespaces).
    pub has_ops: bool,
    /// `__all__`.
    pub all: Vec<String>,
    /// The functions converting results into what the stubs promise, each after those it
    /// calls.
    pub converters: Vec<(String, Converter)>,
}

/// The base class of an enum with data, and its variants' classes beneath it.
#[derive(Debug)]
pub struct TaggedItem {
    /// Its name: the enum's, or `Figure_2` for a second enum called `Figure`.
    pub name: String,
    /// The alias of what an argument may be (`FigureLike`).
    pub like: String,
    pub doc: String,
    /// Its variants' classes, in declaration order.
    pub variants: Vec<VariantItem>,
}

/// The class of one variant of an enum with data (`Figure.Circle`): the tuple of its name
/// and its fields.
#[derive(Debug)]
pub struct VariantItem {
    /// Its Python name (`Circle`).
    pub name: String,
    /// The name it crosses as, the tuple's first item.
    pub tag: String,
    pub doc: String,
    /// Whether its constructor takes the fields by position only (a tuple variant's).
    pub positional: bool,
    /// Its fields: `(attribute, annotation)`, as results have them.
    pub fields: Vec<(String, String)>,
    /// The annotations its constructor takes them with, as arguments have them (an enum
    /// field takes its `...Like` alias), in the same order.
    pub params: Vec<String>,
}

/// A named tuple for a struct.
#[derive(Debug)]
pub struct Record {
    /// Its name (`Point`).
    pub name: String,
    /// The alias of what an argument may be (`PointLike`).
    pub like: String,
    /// Its fields: `(name, annotation as a result, annotation as an argument)`.
    pub fields: Vec<(String, String, String)>,
}

/// A `str` enum class for a fieldless enum.
#[derive(Clone, Debug)]
pub struct EnumClass {
    /// Its name: the enum's, or `Interp_2` for a second enum called `Interp`.
    pub name: String,
    /// The alias of what an argument may be (`InterpLike`).
    pub like: String,
    /// Its docstring, naming the names (the Rust enum's docs are not published).
    pub doc: String,
    /// Its members: `(Python name, the name it crosses as)`, in declaration order.
    pub members: Vec<(String, String)>,
}

/// The exception class of an error type, a `RuntimeError`.
#[derive(Debug)]
pub struct ErrorClass {
    /// Its name: the type's, or `SamplingError_2` for a second type called `SamplingError`.
    pub name: String,
    pub doc: String,
    /// A class per kind, in declaration order.
    pub kinds: Vec<KindClass>,
}

/// The exception class of an error kind: a subclass of its type's class, and an attribute
/// of it (`SamplingError.BadSize`).
#[derive(Debug)]
pub struct KindClass {
    /// Its name: the variant's.
    pub name: String,
    /// Whether the module also has it by its name (`BadSize`).
    pub module_level: bool,
    /// The kind `tvm_ffi` raises it for (`abi_interop_lib.SamplingError.BadSize`).
    pub kind: String,
    /// The builtin exception it derives from too (`ValueError`); `None` for `RuntimeError`,
    /// which its type's class is.
    pub base: Option<String>,
    pub doc: String,
}

/// How a parameter is passed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Passing {
    /// Only by position (its name is invented, or a later one's is).
    PositionalOnly,
    /// By position or keyword.
    Either,
    /// Only by keyword (an op's outputs).
    KeywordOnly,
}

/// A parameter of a Python `def`.
#[derive(Clone, Debug)]
pub struct Param {
    /// Its Python name (`self`, `*args` included).
    pub name: String,
    /// Its annotation in the stubs; `None` for `self`.
    pub annotation: Option<String>,
    /// Its default, a Python expression.
    pub default: Option<String>,
    /// How callers pass it.
    pub passing: Passing,
}

impl Param {
    /// A parameter passed by position or keyword, without a default.
    pub fn plain(name: &str, annotation: Option<String>) -> Param {
        Param { name: name.to_owned(), annotation, default: None, passing: Passing::Either }
    }
}

/// A `def`'s parameter list: `a, b, /, c=1, *, y=None`, annotated for the stubs.
pub fn params_text(params: &[Param], annotated: bool) -> String {
    let positional_only = params.iter().rposition(|p| p.passing == Passing::PositionalOnly).map(|i| i + 1);
    let mut items = Vec::new();
    let mut keywords_started = false;
    for (i, p) in params.iter().enumerate() {
        if p.passing == Passing::KeywordOnly && !keywords_started {
            items.push("*".to_owned());
            keywords_started = true;
        }
        items.push(match (annotated.then_some(p.annotation.as_deref()).flatten(), &p.default) {
            (Some(t), Some(d)) => format!("{}: {t} = {d}", p.name),
            (Some(t), None) => format!("{}: {t}", p.name),
            (None, Some(d)) => format!("{}={d}", p.name),
            (None, None) => p.name.clone(),
        });
        if Some(i + 1) == positional_only {
            items.push("/".to_owned());
        }
    }
    items.join(", ")
}

/// One typed signature of a function in the stubs.
#[derive(Clone, Debug)]
pub struct StubDef {
    pub params: Vec<Param>,
    pub ret: String,
}

/// A module-level function.
#[derive(Debug)]
pub struct Function {
    /// The export's name, which the function takes.
    pub name: String,
    /// The docstring of its stub.
    pub doc: String,
    /// Its docs at run time (`help()`), when it has any.
    pub help: Option<String>,
    /// Its stub signatures: one, or one per array type (`@overload`).
    pub stubs: Vec<StubDef>,
    /// The route a call takes.
    pub route: Route,
}

/// The route a call of a function takes.
#[derive(Debug)]
pub enum Route {
    /// No published signature (a C++ library): the library's function itself.
    Library,
    /// A wrapper taking keywords and calling the library's function `native`, its result
    /// converted by `convert`; `arrays` when it takes tensors (or any value), which may be
    /// given arrays with no data (traced under `jax.jit`, meta or fake torch tensors) that
    /// the wrapper then names as the cause of the refusal.
    /// `readable`: the arguments that only read their tensor, so a read-only numpy array is
    /// passed to them as a versioned DLPack capsule (`abi.read_only`); `keep_gil`: calls
    /// keep the GIL (`Metadata::releases_gil`); `numpy_from`: for a tensor result, the
    /// arguments that take tensors: when one is a numpy array, so is the result; `tensors`:
    /// the positions of the arguments taking typed tensors, where a `memoryview`,
    /// `bytearray` or `array.array` is taken as a numpy array over its memory; `text`: an
    /// argument may hold a `str`, which `tvm_ffi` refuses with a `UnicodeEncodeError` when it
    /// is not valid UTF-8 (lone surrogates), and the wrapper names the argument.
    Packed {
        native: String,
        params: Vec<Param>,
        args: Vec<String>,
        convert: Option<String>,
        arrays: bool,
        readable: Vec<String>,
        keep_gil: bool,
        numpy_from: Vec<String>,
        tensors: Vec<usize>,
        text: bool,
    },
    /// An op: described for the support module, called through it.
    Op(OpRoute),
}

/// An op's route: its description for `_abi_ops.py` and its wrapper.
#[derive(Debug)]
pub struct OpRoute {
    /// The module-level name of its `Op`.
    pub native: String,
    /// The Python expression of its parameters (`[("x", "in", "float64", 2), ...]`).
    pub described: String,
    /// The other keywords of `Ops.op`: `(keyword, Python expression)`.
    pub extras: Vec<(&'static str, String)>,
    /// The wrapper's parameters: the arguments, then the outputs as keywords.
    pub params: Vec<Param>,
    /// The arguments' names, in order.
    pub args: Vec<String>,
    /// The outputs' names, in order.
    pub outs: Vec<String>,
    /// `pkg.torch.op` and `pkg.jax.op` in the stubs (methods of the namespaces' classes),
    /// one per array type.
    pub torch: Vec<StubDef>,
    pub jax: Vec<StubDef>,
}

/// A registered class.
#[derive(Debug)]
pub struct ClassItem {
    /// Its type key.
    pub key: String,
    /// Its Python name.
    pub name: String,
    /// Its base class's Python name.
    pub base: String,
    pub doc: String,
    /// Fields Python can name.
    pub fields: Vec<FieldItem>,
    /// Methods Python can name.
    pub methods: Vec<Method>,
}

/// A field of a class.
#[derive(Debug)]
pub struct FieldItem {
    pub name: String,
    pub annotation: String,
    pub writable: bool,
    pub doc: String,
}

/// A method of a class.
#[derive(Debug)]
pub struct Method {
    /// Its Python name (`__init__` for the constructor).
    pub py_name: String,
    /// How its first parameter is treated.
    pub receiver: Receiver,
    /// Its docs (with the tensor notes).
    pub doc: String,
    /// Its stub.
    pub stub: StubDef,
    /// Its wrapper, when its signature is published.
    pub call: Option<MethodCall>,
}

/// A method's wrapper, calling the library's function behind it.
#[derive(Debug)]
pub struct MethodCall {
    /// The module-level name of the library's function.
    pub native: String,
    /// The reflected method's name, which finds it.
    pub method: String,
    pub params: Vec<Param>,
    /// The arguments it passes on (`self` first for an instance method).
    pub args: Vec<String>,
    pub convert: Option<String>,
}
