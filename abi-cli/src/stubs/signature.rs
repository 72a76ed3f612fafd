//! A published signature as Python sees it, shared by the package (`__init__.py`, whose
//! functions take keywords by the Rust parameter names) and the stubs (`__init__.pyi`):
//! parameter names, which of them are positional-only, defaults and annotations.

use std::collections::BTreeSet;

use abi_core::schema::{Metadata, TypeSchema};
use abi_shared::vocab::Kind;

use super::model::{Param, Passing, Receiver};
use super::records::{plain_list, Records};
use super::stub::BUFFER;
use super::{is_python_name, ClassNames};
use crate::read::Export;

/// How Python names a reflected method and treats its first parameter: `__init__` for the
/// constructor; `None` when Python cannot name it.
pub fn method_receiver(m: &abi_core::schema::Method) -> Option<(&str, Receiver)> {
    let (py_name, receiver) = match (m.name.as_str(), m.is_static) {
        (abi_core::schema::Method::INIT, _) => ("__init__", Receiver::Init),
        (_, true) => (m.name.as_str(), Receiver::Static),
        (_, false) => (m.name.as_str(), Receiver::Instance),
    };
    (receiver == Receiver::Init || is_python_name(py_name)).then_some((py_name, receiver))
}

/// One parameter.
#[derive(Debug)]
pub struct PyParam {
    /// The Python name: the Rust name where it is a Python identifier, else `p_x` for an
    /// expanded leaf `p.x` or `_<index>`.
    pub name: String,
    /// Whether callers may pass it by keyword (its Python name is its published name).
    pub keyword: bool,
    /// Its annotation in the stubs.
    pub annotation: String,
    /// Its default as a Python expression, when it has one.
    pub default: Option<String>,
}

/// A signature.
#[derive(Debug)]
pub struct PySignature {
    /// How the first parameter is treated.
    pub receiver: Receiver,
    /// The parameters Python passes (an instance method's receiver left out).
    pub params: Vec<PyParam>,
    /// The result annotation.
    pub ret: String,
    /// The result's type, which the package's wrapper converts as [`Records::converter`]
    /// says (`None` for a constructor).
    pub result: Option<TypeSchema>,
}

/// The signature of published metadata, `None` without a `type_schema`.
pub fn py_signature(
    meta: &Metadata,
    receiver: Receiver,
    classes: &ClassNames,
    records: &Records,
) -> Option<PySignature> {
    let ret = &meta.type_schema.as_ref()?.ret;
    let skip = usize::from(receiver == Receiver::Instance);
    let defaults = meta.defaults();
    let mut used = BTreeSet::new();
    let params = meta
        .params()
        .into_iter()
        .enumerate()
        .skip(skip)
        .map(|(i, (published, t))| {
            // Names a C++ library does not publish are invented (`_0`): positional-only.
            let keyword = meta.arg_names.is_some() && is_python_name(&published) && published != "self";
            let leaf = published.replace('.', "_");
            let name = if (keyword || is_python_name(&leaf)) && leaf != "self" && !used.contains(&leaf) {
                leaf
            } else {
                format!("_{i}")
            };
            used.insert(name.clone());
            let default = defaults.get(i).and_then(|d| d.as_ref()).map(|value| {
                records.enums().default_member(&t, value).unwrap_or_else(|| abi_core::schema::python_literal(value))
            });
            PyParam { name, keyword, annotation: annotation(&t, classes, records, Flow::In), default }
        })
        .collect();
    let (ret, result) = match receiver {
        Receiver::Init => (Kind::None.stub().to_owned(), None),
        _ => match plain_list(ret) {
            Some(item) => (
                format!("{}[{}]", Kind::Array.python(), annotation(item, classes, records, Flow::Result)),
                Some(ret.clone()),
            ),
            None => (annotation(ret, classes, records, Flow::Result), Some(ret.clone())),
        },
    };
    Some(PySignature { receiver, params, ret, result })
}

impl PySignature {
    /// The `def` parameters: `self` for methods, then each parameter, positional-only
    /// where it or a later one cannot be a keyword; `annotated` for the stubs.
    pub fn params(&self, annotated: bool) -> Vec<Param> {
        let mut out = Vec::new();
        if self.receiver.has_self() {
            out.push(Param::plain("self", None));
        }
        let positional_only = self.params.iter().rposition(|p| !p.keyword).map_or(0, |i| i + 1);
        for (i, p) in self.params.iter().enumerate() {
            out.push(Param {
                name: p.name.clone(),
                annotation: annotated.then(|| p.annotation.clone()),
                default: p.default.clone(),
                passing: if i < positional_only { Passing::PositionalOnly } else { Passing::Either },
            });
        }
        out
    }

    /// The arguments a wrapper passes on, in order (`self` first for an instance method).
    pub fn call_args(&self) -> Vec<String> {
        let receiver = (self.receiver == Receiver::Instance).then(|| "self".to_owned());
        receiver.into_iter().chain(self.params.iter().map(|p| p.name.clone())).collect()
    }

    /// The names of every parameter (for avoiding them elsewhere).
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.params.iter().map(|p| p.name.as_str())
    }
}

/// An export's help text: its Python signature, then its docs (with the tensor notes).
pub fn help_text(e: &Export) -> Option<String> {
    let sig = e.metadata.as_ref().map(|m| m.python_signature(&e.name));
    let doc = with_tensor_notes(e.doc.as_deref().unwrap_or_default(), e.metadata.as_ref(), Receiver::None);
    match (sig, doc.is_empty()) {
        (Some(sig), true) => Some(sig),
        (Some(sig), false) => Some(format!("{sig}\n\n{doc}")),
        (None, false) => Some(doc),
        (None, true) => None,
    }
}

/// What annotations cannot say about typed tensors (`tvm_ffi.Tensor` has no dtype or rank),
/// as a docstring paragraph: `Tensors: x is Tensor[f32, 2]; returns Tensor[f32, 1].`, a
/// parameter converting other dtypes (`HostTensorAs`) saying so.
fn tensor_notes(meta: &Metadata, receiver: Receiver) -> Option<String> {
    let typed =
        |t: &TypeSchema| matches!(t, TypeSchema::Tensor(tensor) if tensor.elem.is_some() || tensor.rank.is_some());
    let skip = usize::from(receiver == Receiver::Instance);
    let mut notes: Vec<String> = meta
        .params()
        .iter()
        .enumerate()
        .skip(skip)
        .filter(|(_, (_, t))| typed(t))
        .map(|(_, (n, t))| match t {
            TypeSchema::Tensor(tensor) if tensor.cast => format!("{n} is {} (other dtypes cast same_kind)", t.python()),
            _ => format!("{n} is {}", t.python()),
        })
        .collect();
    if let Some(ret) = meta.type_schema.as_ref().map(|f| &f.ret).filter(|t| typed(t)) {
        notes.push(format!("returns {}", ret.python()));
    }
    (!notes.is_empty()).then(|| format!("Tensors: {}.", notes.join("; ")))
}

/// `doc` with the tensor notes of `meta` appended as their own paragraph.
pub fn with_tensor_notes(doc: &str, meta: Option<&Metadata>, receiver: Receiver) -> String {
    match meta.and_then(|m| tensor_notes(m, receiver)) {
        Some(notes) if doc.is_empty() => notes,
        Some(notes) => format!("{doc}\n\n{notes}"),
        None => doc.to_owned(),
    }
}

/// Which way a value crosses: into the library (an argument, a callback's result), where
/// `tvm_ffi` converts any DLPack array to a tensor; out of it as `tvm_ffi` gives it (a
/// field, a callback's argument), where it is a `tvm_ffi.Tensor`, a struct or an enum with
/// data a sequence and an enum its name; or as a wrapper's result, which the wrapper
/// converts (named tuples, tuples, enum members, variants' classes).
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Flow {
    In,
    Out,
    Result,
}

impl Flow {
    fn reversed(self) -> Flow {
        match self {
            Flow::In => Flow::Out,
            Flow::Out | Flow::Result => Flow::In,
        }
    }

    /// Inside a function value, which no wrapper converts.
    fn unconverted(self) -> Flow {
        match self {
            Flow::Result => Flow::Out,
            other => other,
        }
    }
}

/// The protocol of arrays `tvm_ffi` takes as tensor arguments (numpy, PyTorch, JAX...), so
/// a numpy argument type-checks where a tensor is expected.
pub const DLPACK_ARRAY: &str = "_DLPackArray";

/// The annotation of a type, as the values `tvm_ffi` accepts and returns (the stub
/// spellings of `abi_shared::vocab`): sequences for arrays, mappings for maps, tuples for
/// structs, `tvm_ffi` classes for tensors (or any DLPack array going in), the package's
/// classes for the object types the library declares, `tvm_ffi.Object` for others, its
/// enum classes for enums (`str` where no wrapper converts the name), and the classes of
/// its enums with data (a sequence where no wrapper converts the tuple).
pub fn annotation(t: &TypeSchema, classes: &ClassNames, records: &Records, flow: Flow) -> String {
    let list = |items: &[&TypeSchema], flow| {
        items.iter().map(|t| annotation(t, classes, records, flow)).collect::<Vec<_>>().join(", ")
    };
    match (t, t.kind()) {
        (TypeSchema::Named { key, .. }, _) => classes.get(key).unwrap_or(Kind::Object.stub()).to_owned(),
        (TypeSchema::Struct { name: Some(name), .. }, _) if flow == Flow::Result && records.has(name) => name.clone(),
        (TypeSchema::Struct { name: Some(name), .. }, _) if flow == Flow::In && records.has(name) => {
            records.argument(name).unwrap_or_default()
        }
        // A member or its name going in, a member as a wrapper's result; a name elsewhere.
        (TypeSchema::Enum { .. }, Some(kind)) => match (records.enums().class(t), flow) {
            (Some(class), Flow::In) => class.like.clone(),
            (Some(class), Flow::Result) => class.name.clone(),
            _ => kind.stub().to_owned(),
        },
        // An instance of a variant's class or a plain tuple going in, an instance as a
        // wrapper's result; elsewhere the Array `tvm_ffi` gives (a sequence of the name and
        // the fields), and any tuple going in where the enum has no classes.
        (TypeSchema::Tagged { .. }, _) => match (records.tagged().class(t), flow) {
            (Some(class), Flow::In) => class.like.clone(),
            (Some(class), Flow::Result) => class.name.clone(),
            (None, Flow::In) => format!("{}[{}, ...]", Kind::Tuple.stub(), Kind::Any.stub()),
            _ => format!("{}[{}]", Kind::Array.stub(), Kind::Any.stub()),
        },
        // A mapping is invariant in its key type: a dict keyed by members, or one keyed by
        // names (a mix is a dict of `str` keys), each type-checks.
        (TypeSchema::Map(k, v), Some(kind)) if flow == Flow::In && records.enums().class(k).is_some() => {
            let key = records.enums().class(k).map_or("", |c| c.name.as_str());
            let value = annotation(v, classes, records, flow);
            format!("{}[{m}[{key}, {value}], {m}[str, {value}]]", Kind::Variant.stub(), m = kind.stub())
        }
        (TypeSchema::Function(Some(f)), _) => format!(
            "{}[[{}], {}]",
            Kind::Callable.stub(),
            list(&f.params.iter().collect::<Vec<_>>(), flow.reversed()),
            annotation(&f.ret, classes, records, flow.unconverted())
        ),
        // A tensor parameter also takes a buffer object (`memoryview`, `bytearray`...).
        (TypeSchema::Tensor(_), Some(kind)) if flow == Flow::In => {
            format!("{}[{}, {DLPACK_ARRAY}, {BUFFER}]", Kind::Variant.stub(), kind.stub())
        }
        (TypeSchema::Tuple(items), Some(kind)) if items.is_empty() => format!("{}[()]", kind.stub()),
        (_, Some(kind)) if t.args().is_empty() && kind != Kind::Tuple => kind.stub().to_owned(),
        // No wrapper converts inside `tvm_ffi`'s own List, Dict and Variant values.
        (_, Some(kind @ (Kind::List | Kind::Dict | Kind::Variant))) => {
            format!("{}[{}]", kind.stub(), list(&t.args(), flow.unconverted()))
        }
        (_, Some(kind)) => format!("{}[{}]", kind.stub(), list(&t.args(), flow)),
        (_, None) => Kind::Any.stub().to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_tensors_are_described_in_the_docstring() {
        let meta = Metadata::parse(
            r#"{"type_schema":"{\"type\":\"ffi.Function\",\"named_args\":{\"return\":[{\"type\":\"ffi.Tensor\",\"dtype\":\"float32\",\"ndim\":1}],\"params\":[{\"type\":\"ffi.Tensor\",\"dtype\":\"uint8\",\"ndim\":2},{\"type\":\"ffi.Tensor\"},{\"type\":\"int\"}]}}","arg_names":["x","y","k"]}"#,
        )
        .unwrap();
        assert_eq!(
            with_tensor_notes("Scales.", Some(&meta), Receiver::None),
            "Scales.\n\nTensors: x is Tensor[u8, 2]; returns Tensor[f32, 1]."
        );
        let cast = Metadata::parse(
            r#"{"type_schema":"{\"type\":\"ffi.Function\",\"named_args\":{\"return\":[{\"type\":\"float\"}],\"params\":[{\"type\":\"ffi.Tensor\",\"dtype\":\"float32\",\"ndim\":1,\"cast\":\"same_kind\"}]}}","arg_names":["x"]}"#,
        )
        .unwrap();
        assert_eq!(
            with_tensor_notes("", Some(&cast), Receiver::None),
            "Tensors: x is Tensor[f32, 1] (other dtypes cast same_kind)."
        );
        let plain = Metadata::parse(r#"{"type_schema":"{\"type\":\"ffi.Function\",\"named_args\":{\"return\":[{\"type\":\"int\"}],\"params\":[{\"type\":\"ffi.Tensor\"}]}}"}"#).unwrap();
        assert_eq!(with_tensor_notes("", Some(&plain), Receiver::None), "", "untyped tensors say nothing");
    }
}
