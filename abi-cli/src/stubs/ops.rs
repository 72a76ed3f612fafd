//! Ops (`#[export_fn(op)]`, whose metadata holds `abi.op`) in the package: each op is
//! written as data, its parameters with their roles, dtypes, ranks and output shape rules,
//! for the support module `_abi_ops.py` (written verbatim, [`SUPPORT`]), which calls it
//! from numpy, torch and JAX; plus a thin wrapper `def op(x, k, *, y=None)` (its stubs, one
//! per array type, are `op_stubs.rs`'s).

use abi_core::schema::{Metadata, OpInfo, ShapeDim, ShapeRule, TypeSchema};
use abi_shared::vocab::Kind;

use super::literal::py_str;
use super::model::{params_text, OpRoute, Param, Passing};
use super::op_stubs;
use super::signature::{PyParam, PySignature};
use crate::read::{Export, Listing};

/// The support module's file name in the package.
pub const SUPPORT_FILE: &str = "_abi_ops.py";

/// The support module, as written into the package.
pub const SUPPORT: &str = include_str!("abi_ops.py");

/// One parameter of an op as the package describes it.
#[derive(Debug, PartialEq)]
pub enum Role {
    /// An input tensor.
    In,
    /// An output, with its shape rule.
    Out(ShapeRule),
    /// An in-place tensor.
    InOut,
    /// A scalar of this kind: `int`, `float`, `bool`, or `str` for a fieldless enum (which
    /// crosses as its name; [`OpParam::names`] holds the names).
    Scalar(&'static str),
}

/// One parameter of an op.
#[derive(Debug)]
pub struct OpParam {
    /// Its published name.
    pub name: String,
    pub role: Role,
    /// A tensor's dtype (`float32`), when published.
    pub dtype: Option<String>,
    /// A tensor's rank, when published.
    pub rank: Option<u32>,
    /// Whether a tensor parameter converts other dtypes (`HostTensorAs`).
    pub cast: bool,
    /// An enum scalar's names: the strings it takes (empty for every other parameter).
    pub names: Vec<String>,
}

/// An op, read from an export's metadata: every parameter with its role, and for tensors
/// the dtype and rank.
#[derive(Debug)]
pub struct Op<'a> {
    /// The export's metadata.
    pub info: &'a OpInfo,
    /// Its parameters in the export's order.
    pub params: Vec<OpParam>,
}

impl<'a> Op<'a> {
    /// The op an export describes, `None` for a plain export or an op whose metadata the
    /// package cannot use (an output without a dtype, a parameter of no role).
    pub fn of(meta: &'a Metadata) -> Option<Op<'a>> {
        let info = meta.op.as_ref()?;
        let mut params = Vec::new();
        for (name, t) in meta.params() {
            let role = if info.inputs.contains(&name) {
                Role::In
            } else if let Some(out) = info.outputs.iter().find(|o| o.name == name) {
                match &out.rule {
                    ShapeRule::InOut => Role::InOut,
                    rule => Role::Out(rule.clone()),
                }
            } else if info.scalars.contains(&name) {
                Role::Scalar(scalar_kind(&t)?)
            } else {
                return None;
            };
            let (dtype, rank, cast) = match &t {
                TypeSchema::Tensor(tensor) => {
                    (tensor.elem.as_ref().and_then(|e| e.dtype()).map(|d| d.to_string()), tensor.rank, tensor.cast)
                }
                _ => (None, None, false),
            };
            if matches!(role, Role::Out(_)) && dtype.is_none() {
                return None;
            }
            let names = match (&role, &t) {
                (Role::Scalar(_), TypeSchema::Enum { names, .. }) => names.clone(),
                _ => Vec::new(),
            };
            params.push(OpParam { name, role, dtype, rank, cast, names });
        }
        Some(Op { info, params })
    }

    /// The Python expression describing the parameters, for `Ops.op`:
    /// `[("x", "in", "float64", 2), ("kind", "str", ["relu", "tanh"]), ("y", "out", "float64", 2, "x")]`
    /// (an enum scalar with the names it takes).
    fn params_literal(&self) -> String {
        let items: Vec<String> = self
            .params
            .iter()
            .map(|OpParam { name, role, dtype, rank, names, .. }| {
                let dtype = dtype.as_deref().map_or(Kind::None.stub().to_owned(), py_str);
                let rank = rank.map_or(Kind::None.stub().to_owned(), |r| r.to_string());
                match role {
                    Role::In => format!("({}, \"in\", {dtype}, {rank})", py_str(name)),
                    Role::InOut => format!("({}, \"inout\", {dtype}, {rank})", py_str(name)),
                    Role::Scalar(kind) if *kind == Kind::Str.python() => {
                        let names: Vec<String> = names.iter().map(|n| py_str(n)).collect();
                        format!("({}, \"{kind}\", [{}])", py_str(name), names.join(", "))
                    }
                    Role::Scalar(kind) => format!("({}, \"{kind}\")", py_str(name)),
                    Role::Out(rule) => format!("({}, \"out\", {dtype}, {rank}, {})", py_str(name), rule_literal(rule)),
                }
            })
            .collect();
        format!("[{}]", items.join(", "))
    }

    /// Whether parameter `i` is an output.
    pub fn is_out(&self, i: usize) -> bool {
        self.params.get(i).is_some_and(|p| matches!(p.role, Role::Out(_)))
    }

    /// The number of results under JAX: the outputs and the in-place tensors.
    pub fn jax_results(&self) -> usize {
        self.params.iter().filter(|p| matches!(p.role, Role::Out(_) | Role::InOut)).count()
    }

    /// The index of the tensor whose framework the call follows: the first input or
    /// in-place tensor.
    pub fn first_tensor(&self) -> Option<usize> {
        self.params.iter().position(|p| matches!(p.role, Role::In | Role::InOut))
    }
}

/// `int`, `float`, `bool` or `str` (the Python names, which the support module reads) for
/// a scalar type an op may take: a fieldless enum crosses as its name, a string, which torch
/// schemas (`str`) and JAX attributes (a Python `str`, a String to the export) carry.
fn scalar_kind(t: &TypeSchema) -> Option<&'static str> {
    match t {
        TypeSchema::Int(_) => Some(Kind::Int.python()),
        TypeSchema::Float(_) => Some(Kind::Float.python()),
        TypeSchema::Bool => Some(Kind::Bool.python()),
        TypeSchema::Enum { .. } => Some(Kind::Str.python()),
        _ => None,
    }
}

/// `"x"` for `out = x`; `["a.0", "n", 3]` for a shape.
fn rule_literal(rule: &ShapeRule) -> String {
    match rule {
        ShapeRule::Like(input) => py_str(input),
        ShapeRule::Shape(dims) => {
            let items: Vec<String> = dims
                .iter()
                .map(|d| match d {
                    ShapeDim::Const(n) => n.to_string(),
                    other => py_str(&other.text()),
                })
                .collect();
            format!("[{}]", items.join(", "))
        }
        ShapeRule::InOut => Kind::None.stub().to_owned(),
    }
}

/// Exports that are ops' JAX-order entry points (`<name>__jax`): the support module calls
/// them, the package does not expose them.
pub fn jax_entries(listing: &Listing) -> Vec<&str> {
    listing.exports.iter().filter_map(|e| e.metadata.as_ref()?.op.as_ref()?.jax.as_deref()).collect()
}

/// Whether the listing has any op (the package then ships the support module and its
/// `torch` and `jax` namespaces).
pub fn any(listing: &Listing) -> bool {
    listing.exports.iter().any(|e| e.metadata.as_ref().and_then(Op::of).is_some())
}

/// The module's preamble for ops: the support module and the package's ops.
pub fn py_prelude(package: &str) -> String {
    format!(
        "\nfrom . import _abi_ops\n\n_OPS = _abi_ops.Ops({})\n\n\n\
         def __getattr__(name):\n    \
             # `{package}.torch` and `{package}.jax`: made on first use, importing the framework then.\n    \
             if name in (\"torch\", \"jax\"):\n        \
                 return _OPS.namespace(name)\n    \
             raise AttributeError(f\"module {{__name__!r}} has no attribute {{name!r}}\")\n",
        py_str(package)
    )
}

/// The module's last statement for ops: the torch ops defined at import when torch is
/// already imported (a first use under `torch.compile` could not define them).
pub fn py_postlude() -> &'static str {
    "\n\n_OPS.torch_if_imported()\n"
}

/// An op's route: its description for the support module, its wrapper's parameters and
/// its stubs in the `torch` and `jax` namespaces.
pub fn route(op: &Op<'_>, sig: &PySignature, native: String, listing: &Listing) -> OpRoute {
    let info = op.info;
    let mut extras = Vec::new();
    if let Some(b) = &info.backward {
        extras.push(("backward", py_str(b)));
    }
    if let Some(j) = &info.jax {
        extras.push(("jax", format!("_lib[{}]", py_str(j))));
        if let Some(params) = jax_params(listing, j, info) {
            extras.push(("jax_params", params));
        }
    }
    if info.device != "cpu" {
        extras.push(("device", py_str(&info.device)));
    }
    if !info.strided.is_empty() {
        let names: Vec<String> = info.strided.iter().map(|n| py_str(n)).collect();
        extras.push(("strided", format!("[{}]", names.join(", "))));
    }
    let named = |outs: bool| -> Vec<String> {
        sig.params.iter().enumerate().filter(|(i, _)| op.is_out(*i) == outs).map(|(_, p)| p.name.clone()).collect()
    };
    OpRoute {
        native,
        described: op.params_literal(),
        extras,
        params: op_params(op, sig, None, true),
        args: named(false),
        outs: named(true),
        torch: op_stubs::torch_namespace(op, sig),
        jax: op_stubs::jax_namespace(op, sig),
    }
}

/// The JAX entry point's parameters as `(name, role)`, a scalar's role its kind and every
/// other `"t"`, read from its own metadata.
fn jax_params(listing: &Listing, entry: &str, info: &OpInfo) -> Option<String> {
    let export: &Export = listing.exports.iter().find(|e| e.name == entry)?;
    let meta = export.metadata.as_ref()?;
    let items: Vec<String> = meta
        .params()
        .iter()
        .map(|(name, t)| match scalar_kind(t).filter(|_| info.scalars.contains(name)) {
            Some(kind) => format!("({}, \"{kind}\")", py_str(name)),
            None => format!("({}, \"t\")", py_str(name)),
        })
        .collect();
    Some(format!("[{}]", items.join(", ")))
}

/// A parameter's annotation, from its index and Python parameter.
pub type Annotate<'a> = dyn Fn(usize, &PyParam) -> String + 'a;

/// The wrapper's `def` parameters: the arguments in order (defaults kept, positional-only
/// up to the last whose name cannot be a keyword), then, `with_outputs`, each output as a
/// keyword defaulting to `None`. With `types`, annotated for the stubs.
pub fn op_params(op: &Op<'_>, sig: &PySignature, types: Option<&Annotate<'_>>, with_outputs: bool) -> Vec<Param> {
    let args: Vec<(usize, &PyParam)> = sig.params.iter().enumerate().filter(|(i, _)| !op.is_out(*i)).collect();
    let positional_only = args.iter().rposition(|(_, p)| !p.keyword).map_or(0, |i| i + 1);
    let mut items = Vec::new();
    for (k, (i, p)) in args.iter().enumerate() {
        items.push(Param {
            name: p.name.clone(),
            annotation: types.map(|t| t(*i, p)),
            default: p.default.clone(),
            passing: if k < positional_only { Passing::PositionalOnly } else { Passing::Either },
        });
    }
    if with_outputs {
        for (i, p) in sig.params.iter().enumerate().filter(|(i, _)| op.is_out(*i)) {
            items.push(Param {
                name: p.name.clone(),
                annotation: types.map(|t| t(i, p)),
                default: Some(Kind::None.stub().to_owned()),
                passing: Passing::KeywordOnly,
            });
        }
    }
    items
}

/// The docs of the wrapper `pkg.op`: its Python call first (`scale_rows(x, k, *, y=None) ->
/// y`: outputs are keywords, allocated when not given, and returned), then the export's
/// docs (`help`: its signature, with the outputs as parameters, then its doc text).
pub fn py_help(op: &Op<'_>, name: &str, sig: &PySignature, help: Option<&str>) -> String {
    let outs: Vec<&str> =
        sig.params.iter().enumerate().filter(|(i, _)| op.is_out(*i)).map(|(_, p)| p.name.as_str()).collect();
    let ret = match outs.len() {
        0 => Kind::None.stub().to_owned(),
        1 => outs[0].to_owned(),
        _ => format!("({})", outs.join(", ")),
    };
    let call = format!(
        "{name}({}) -> {ret}\n\nThe op on numpy, torch or JAX arrays: {}, in the arrays' framework.",
        params_text(&op_params(op, sig, None, true), false),
        match (outs.len(), op.info.inout.is_empty()) {
            (0, false) => "writes in place and returns None (a new array under JAX)",
            (0, true) => "returns None",
            _ => "allocates each output not given by its shape rule, and returns the outputs",
        }
    );
    match help {
        Some(help) if !help.is_empty() => format!("{call}\n\nThe export: {help}"),
        _ => call,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Metadata of an op as the macro publishes it, from its parameters' `type_schema`
    /// items, their names and the `abi.op` object.
    pub fn op_metadata(params: &[(&str, &str)], op: &str) -> Metadata {
        let types: Vec<String> = params.iter().map(|(_, t)| t.to_string()).collect();
        let schema = format!(
            r#"{{"type":"ffi.Function","named_args":{{"return":[{{"type":"None"}}],"params":[{}]}}}}"#,
            types.join(",")
        );
        let names: Vec<String> = params.iter().map(|(n, _)| format!("\"{n}\"")).collect();
        let text = format!(
            r#"{{"type_schema":{},"arg_names":[{}],"abi.op":{op},"abi.version":{}}}"#,
            serde_json::Value::String(schema),
            names.join(","),
            abi_shared::METADATA_VERSION
        );
        Metadata::parse(&text).unwrap()
    }

    pub const F64_2: &str = r#"{"type":"ffi.Tensor","dtype":"float64","ndim":2}"#;
    pub const F64_1: &str = r#"{"type":"ffi.Tensor","dtype":"float64","ndim":1}"#;

    pub fn scale_rows() -> Metadata {
        op_metadata(
            &[("x", F64_2), ("k", F64_1), ("y", F64_2)],
            r#"{"inputs":["x","k"],"scalars":[],"outputs":[{"name":"y","like":"x"}],"inout":[],"backward":"scale_rows_bwd","jax":null,"device":"cpu"}"#,
        )
    }

    #[test]
    fn an_op_is_described_by_its_parameters_roles_dtypes_and_rules() {
        let meta = scale_rows();
        let op = Op::of(&meta).unwrap();
        assert_eq!(
            op.params_literal(),
            r#"[("x", "in", "float64", 2), ("k", "in", "float64", 1), ("y", "out", "float64", 2, "x")]"#
        );
        let ramp = op_metadata(
            &[("n", r#"{"type":"int"}"#), ("step", r#"{"type":"float"}"#), ("y", F64_1)],
            r#"{"inputs":[],"scalars":["n","step"],"outputs":[{"name":"y","shape":["n",2,"a.1"]}],"inout":[],"backward":null,"jax":null,"device":"cpu"}"#,
        );
        assert_eq!(
            Op::of(&ramp).unwrap().params_literal(),
            r#"[("n", "int"), ("step", "float"), ("y", "out", "float64", 1, ["n", 2, "a.1"])]"#
        );
        // A fieldless enum scalar is a string, described with the names it takes.
        let activate = op_metadata(
            &[
                ("x", F64_2),
                (
                    "kind",
                    r#"{"type":"ffi.String","abi.enum":"Activation","abi.names":["relu","tanh"],"abi.variants":["Relu","Tanh"]}"#,
                ),
                ("y", F64_2),
            ],
            r#"{"inputs":["x"],"scalars":["kind"],"outputs":[{"name":"y","like":"x"}],"inout":[],"backward":null,"jax":null,"device":"cpu"}"#,
        );
        assert_eq!(
            Op::of(&activate).unwrap().params_literal(),
            r#"[("x", "in", "float64", 2), ("kind", "str", ["relu", "tanh"]), ("y", "out", "float64", 2, "x")]"#
        );
        // A plain string is no op scalar: the package leaves such an export a plain function.
        let plain = op_metadata(
            &[("x", F64_2), ("kind", r#"{"type":"ffi.String"}"#), ("y", F64_2)],
            r#"{"inputs":["x"],"scalars":["kind"],"outputs":[{"name":"y","like":"x"}],"inout":[],"backward":null,"jax":null,"device":"cpu"}"#,
        );
        assert!(Op::of(&plain).is_none());
    }

    /// A listing with op-kit's kinds of ops: a backward, in place (with its JAX entry), a
    /// shape from scalars, two outputs; and a plain export.
    pub fn listing() -> Listing {
        let export = |name: &str, meta: Metadata, doc: &str| Export {
            name: name.into(),
            metadata: Some(meta),
            doc: (!doc.is_empty()).then(|| doc.into()),
        };
        let f32_2 = r#"{"type":"ffi.Tensor","dtype":"float32","ndim":2}"#;
        let exports = vec![
            export("scale_rows", scale_rows(), "y = x * k, row by row."),
            export(
                "scale_rows_bwd",
                op_metadata(
                    &[("x", F64_2), ("k", F64_1), ("dy", F64_2), ("dx", F64_2), ("dk", F64_1)],
                    r#"{"inputs":["x","k","dy"],"scalars":[],"outputs":[{"name":"dx","like":"x"},{"name":"dk","like":"k"}],"inout":[],"backward":null,"jax":null,"device":"cpu"}"#,
                ),
                "",
            ),
            export(
                "relu_",
                op_metadata(
                    &[("x", f32_2)],
                    r#"{"inputs":[],"scalars":[],"outputs":[{"name":"x","inout":true}],"inout":["x"],"backward":null,"jax":"relu___jax","device":"cpu"}"#,
                ),
                "In place.",
            ),
            export(
                "relu___jax",
                op_metadata(&[("x_in", r#"{"type":"Any"}"#), ("x", f32_2)], r#"{"inputs":[],"scalars":[],"outputs":[{"name":"x","inout":true}],"inout":["x"],"backward":null,"jax":null,"device":"cpu"}"#),
                "",
            ),
            export(
                "strides_of",
                op_metadata(
                    &[("x", F64_2), ("s", r#"{"type":"ffi.Tensor","dtype":"int64","ndim":1}"#)],
                    r#"{"inputs":["x"],"scalars":[],"outputs":[{"name":"s","shape":[2]}],"inout":[],"backward":null,"jax":null,"device":"cpu","strided":["x"]}"#,
                ),
                "",
            ),
            export(
                "ramp",
                op_metadata(
                    &[("n", r#"{"type":"int"}"#), ("step", r#"{"type":"float"}"#), ("y", F64_1)],
                    r#"{"inputs":[],"scalars":["n","step"],"outputs":[{"name":"y","shape":["n"]}],"inout":[],"backward":null,"jax":null,"device":"cpu"}"#,
                ),
                "",
            ),
            export(
                "minmax",
                op_metadata(
                    &[("x", F64_2), ("lo", F64_1), ("hi", F64_1)],
                    r#"{"inputs":["x"],"scalars":[],"outputs":[{"name":"lo","shape":["x.0"]},{"name":"hi","shape":["x.0"]}],"inout":[],"backward":null,"jax":null,"device":"cpu"}"#,
                ),
                "",
            ),
            export(
                "add",
                Metadata::parse(r#"{"type_schema":"{\"type\":\"ffi.Function\",\"named_args\":{\"return\":[{\"type\":\"int\"}],\"params\":[{\"type\":\"int\"},{\"type\":\"int\"}]}}","arg_names":["a","b"]}"#).unwrap(),
                "",
            ),
        ];
        let mut exports = exports;
        exports.sort_by(|a, b| a.name.cmp(&b.name));
        Listing {
            path: "libop_kit.so".into(),
            source: crate::read::Source::Data,
            exports,
            classes: Vec::new(),
            errors: Vec::new(),
            iree: Default::default(),
        }
    }

    #[test]
    fn a_plain_export_is_no_op() {
        let meta = Metadata::parse(r#"{"type_schema":"{\"type\":\"ffi.Function\",\"named_args\":{\"return\":[{\"type\":\"int\"}],\"params\":[]}}"}"#).unwrap();
        assert!(Op::of(&meta).is_none());
    }

    /// `text` parsed by Python (`python3` on PATH, which the test suite needs anyway).
    fn assert_python(name: &str, text: &str) {
        // Removed when dropped, whether the assertion below holds or panics.
        let dir = tempfile::Builder::new().prefix("abi-ops-").tempdir().unwrap();
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let run = std::process::Command::new("python3")
            .args(["-c", "import ast, sys; ast.parse(open(sys.argv[1]).read(), sys.argv[1])"])
            .arg(&path)
            .output()
            .expect("python3 runs");
        assert!(run.status.success(), "{name} is not valid Python: {}\n{text}", String::from_utf8_lossy(&run.stderr));
    }

    #[test]
    fn the_package_describes_each_op_and_wraps_it() {
        let files = super::super::files(&listing(), "op_kit").unwrap();
        let file = |name: &str| files.iter().find(|(n, _)| *n == name).map(|(_, t)| t.clone()).unwrap();
        let init = file("__init__.py");
        assert!(init.contains("from . import _abi_ops\n\n_OPS = _abi_ops.Ops(\"op_kit\")"), "{init}");
        assert!(init.contains(
            "_native_scale_rows = _OPS.op(\"scale_rows\", _lib[\"scale_rows\"], [(\"x\", \"in\", \"float64\", 2), (\"k\", \"in\", \"float64\", 1), (\"y\", \"out\", \"float64\", 2, \"x\")], backward=\"scale_rows_bwd\")\n"
        ), "{init}");
        assert!(
            init.contains("def scale_rows(x, k, *, y=None):\n    return _native_scale_rows.call((x, k), (y,))\n"),
            "{init}"
        );
        assert!(init.contains("def relu_(x):\n    return _native_relu_.call((x,), ())\n"), "{init}");
        // The wrapper's docs describe its Python call, then the export's.
        assert!(init.contains("@_doc(\"\"\"scale_rows(x, k, *, y=None) -> y\n\nThe op on numpy, torch or JAX arrays: allocates each output not given by its shape rule, and returns the outputs, in the arrays' framework.\n\nThe export: scale_rows(x: Tensor[f64, 2], k: Tensor[f64, 1], y: Tensor[f64, 2]) -> None\n\ny = x * k, row by row."), "{init}");
        assert!(init.contains("@_doc(\"\"\"relu_(x) -> None\n\nThe op on numpy, torch or JAX arrays: writes in place and returns None (a new array under JAX), in the arrays' framework."), "{init}");
        assert!(init.contains(", jax=_lib[\"relu___jax\"], jax_params=[(\"x_in\", \"t\"), (\"x\", \"t\")])"), "{init}");
        assert!(
            init.contains("def ramp(n, step, *, y=None):\n    return _native_ramp.call((n, step), (y,))\n"),
            "{init}"
        );
        assert!(init.contains("def minmax(x, *, lo=None, hi=None):\n"), "{init}");
        assert!(init.contains(", [2])], strided=[\"x\"])\n"), "the inputs taking any strides: {init}");
        assert!(
            init.contains("def add(a, b):\n    try:\n        return _native_add(a, b)\n    except TypeError as e:\n"),
            "plain exports as before: {init}"
        );
        assert!(!init.contains("def relu___jax"), "the JAX entry is the op's own: {init}");
        assert!(
            init.contains("__all__ = [\"add\", \"minmax\", \"ramp\", \"relu_\", \"scale_rows\", \"scale_rows_bwd\", \"strides_of\"]"),
            "{init}"
        );
        assert!(init.contains("\n\n_OPS.torch_if_imported()\n"), "{init}");
        assert!(
            init.ends_with("\n\n_abi_door.bind(globals(), _library_path(), [\"add\", \"minmax\", \"ramp\", \"relu_\", \"scale_rows\", \"scale_rows_bwd\", \"strides_of\"], arrays=True)\n"),
            "ops take the door too: {init}"
        );
        assert_python("__init__.py", &init);
        assert_eq!(file("_abi_ops.py"), SUPPORT);
        assert_python("_abi_ops.py", SUPPORT);

        let stub = file("__init__.pyi");
        for line in [
            // One overload per array type: numpy (sequences too), torch, JAX; results of
            // the op's own dtype for numpy.
            "@overload\ndef scale_rows(x: Union[NDArray[np.floating[Any]], Sequence[Sequence[float]]], k: Union[_DLPackArray, Sequence[float]], *, y: Optional[NDArray[np.float64]] = None) -> NDArray[np.float64]:",
            "@overload\ndef scale_rows(x: _T, k: Union[_DLPackArray, Sequence[float]], *, y: Optional[_T] = None) -> _T:",
            "@overload\ndef scale_rows(x: _J, k: Union[_DLPackArray, Sequence[float]], *, y: None = None) -> _J:",
            "def scale_rows_bwd(x: Union[NDArray[np.floating[Any]], Sequence[Sequence[float]]], k: Union[_DLPackArray, Sequence[float]], dy: Union[_DLPackArray, Sequence[Sequence[float]]], *, dx: Optional[NDArray[np.float64]] = None, dk: Optional[NDArray[np.float64]] = None) -> tuple[NDArray[np.float64], NDArray[np.float64]]:",
            "def scale_rows_bwd(x: _T, k: Union[_DLPackArray, Sequence[float]], dy: Union[_DLPackArray, Sequence[Sequence[float]]], *, dx: Optional[_T] = None, dk: Optional[_T] = None) -> tuple[_T, _T]:",
            // In place: None for numpy and torch (an array, not a sequence), a new array for JAX.
            "def relu_(x: NDArray[np.floating[Any]]) -> None:",
            "def relu_(x: _T) -> None:",
            "def relu_(x: _J) -> _J:",
            // No array argument: numpy, or torch when a torch output is given.
            "@overload\ndef ramp(n: int, step: float, *, y: Optional[NDArray[np.float64]] = None) -> NDArray[np.float64]:",
            "@overload\ndef ramp(n: int, step: float, *, y: _T) -> _T:",
            // A StridedTensor input, an int64 output.
            "def strides_of(x: Union[NDArray[np.floating[Any]], Sequence[Sequence[float]]], *, s: Optional[NDArray[np.int64]] = None) -> NDArray[np.int64]:",
            "    def relu_(self, x: _T) -> None:",
            "    @overload\n    def relu_(self, x: _J) -> _J:",
            "    @overload\n    def relu_(self, x: NDArray[np.floating[Any]]) -> Any:",
            "    def scale_rows(self, x: _T, k: _TorchTensor, *, y: Optional[_T] = None) -> _T:",
            "    def scale_rows(self, x: _J, k: Union[_DLPackArray, Sequence[float]]) -> _J:",
            "    def ramp(self, n: int, step: float, *, y: Optional[_TorchTensor] = None) -> Any:",
            "    def ramp(self, n: int, step: float) -> Any:",
            "torch: _TorchOps\njax: _JaxOps\n",
        ] {
            assert!(stub.contains(line), "{line}\n{stub}");
        }
        assert!(!stub.contains("relu___jax"), "{stub}");
        assert_python("__init__.pyi", &stub);
    }

    #[test]
    fn a_package_without_ops_has_no_support_module() {
        let mut plain = listing();
        plain.exports.retain(|e| e.name == "add");
        let files = super::super::files(&plain, "plain").unwrap();
        let names = files.iter().map(|(n, _)| *n).collect::<Vec<_>>();
        assert_eq!(names, ["__init__.py", "__init__.pyi", "py.typed", "_abi_door.py"]);
        assert!(!files[0].1.contains("_abi_ops"));
    }
}
