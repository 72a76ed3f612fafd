//! The stubs of an op, one per array type it may be called with (`@overload`): numpy
//! arrays or sequences in, numpy arrays of the op's own dtypes out; torch tensors in, torch
//! tensors out; JAX arrays in, JAX arrays out. The stubs import neither torch nor JAX (they
//! are optional extras, and a stub importing a missing module types its names `Any`, which
//! would take anything): a torch tensor and a JAX array are recognised by protocols of
//! their own attributes, and a result has the type of the argument it follows.

use abi_shared::vocab::Kind;

use super::model::{Param, StubDef};
use super::ops::{op_params, Op, OpParam, Role};
use super::signature::{PyParam, PySignature, DLPACK_ARRAY};

/// The protocol a torch tensor matches.
const TORCH_TENSOR: &str = "_TorchTensor";
/// The protocol a JAX array matches.
const JAX_ARRAY: &str = "_JaxArray";
/// The type variables of a torch and a JAX argument, which the results take.
const TORCH_VAR: &str = "_T";
const JAX_VAR: &str = "_J";

/// The definitions the stubs of ops use, for the stub file of a package with ops.
pub fn prelude() -> String {
    format!(
        "\n\nimport numpy as np\nfrom numpy.typing import NDArray\nfrom typing import overload\n\n\n\
         class {TORCH_TENSOR}(Protocol):\n    \
             \"\"\"A torch.Tensor, by two of its attributes (the stubs import no torch: it is an optional extra).\"\"\"\n\n    \
             @property\n    def is_leaf(self) -> bool: ...\n    \
             @property\n    def requires_grad(self) -> bool: ...\n\n\n\
         class {JAX_ARRAY}(Protocol):\n    \
             \"\"\"A jax.Array, by two of its members (the stubs import no JAX: it is an optional extra).\"\"\"\n\n    \
             @property\n    def sharding(self) -> Any: ...\n    \
             def block_until_ready(self) -> Any: ...\n\n\n\
         # An op's results follow its first array: numpy arrays (or sequences) in, numpy arrays of the op's\n\
         # dtypes out; a torch tensor in, torch tensors out; a JAX array in, JAX arrays out.\n\
         {TORCH_VAR} = TypeVar(\"{TORCH_VAR}\", bound={TORCH_TENSOR})\n\
         {JAX_VAR} = TypeVar(\"{JAX_VAR}\", bound={JAX_ARRAY})\n"
    )
}

/// What the stubs say of a dtype: numpy's scalar type (`np.float32`), the kind of numpy
/// array a parameter of it takes (`np.floating[Any]`: what numpy's own annotations give for
/// data of that kind, `np.linspace`'s included), and the Python type of a sequence's items.
struct Element {
    scalar: &'static str,
    kind: &'static str,
    item: &'static str,
}

fn element(dtype: Option<&str>, cast: bool) -> Element {
    let any = Kind::Any.stub();
    let (int, float, boolean) = (Kind::Int.python(), Kind::Float.python(), Kind::Bool.python());
    let (scalar, kind, item) = match dtype.unwrap_or_default() {
        "float16" => ("np.float16", "np.floating[Any]", float),
        "float32" => ("np.float32", "np.floating[Any]", float),
        "float64" => ("np.float64", "np.floating[Any]", float),
        "int8" => ("np.int8", "np.signedinteger[Any]", int),
        "int16" => ("np.int16", "np.signedinteger[Any]", int),
        "int32" => ("np.int32", "np.signedinteger[Any]", int),
        "int64" => ("np.int64", "np.signedinteger[Any]", int),
        "uint8" => ("np.uint8", "np.unsignedinteger[Any]", int),
        "uint16" => ("np.uint16", "np.unsignedinteger[Any]", int),
        "uint32" => ("np.uint32", "np.unsignedinteger[Any]", int),
        "uint64" => ("np.uint64", "np.unsignedinteger[Any]", int),
        "bool" => ("np.bool_", "np.bool_", boolean),
        "complex64" => ("np.complex64", "np.complexfloating[Any, Any]", "complex"),
        "complex128" => ("np.complex128", "np.complexfloating[Any, Any]", "complex"),
        // bfloat16 and other dtypes numpy has no type for.
        "bfloat16" => (any, any, float),
        _ => (any, any, any),
    };
    // A parameter converting other dtypes takes arrays of any kind it casts from.
    Element { scalar, kind: if cast { any } else { kind }, item }
}

/// `NDArray[np.float32]`: a numpy array of `p`'s dtype.
fn ndarray(p: &OpParam) -> String {
    format!("NDArray[{}]", element(p.dtype.as_deref(), false).scalar)
}

/// The nested sequences that may stand for an input tensor of `p`'s rank
/// (`Sequence[Sequence[float]]`); `None` for rank 0 (a scalar is no tensor).
fn sequence(p: &OpParam) -> Option<String> {
    let item = element(p.dtype.as_deref(), p.cast).item;
    let seq = Kind::Array.stub();
    match p.rank {
        Some(0) => None,
        Some(rank) => Some((0..rank).fold(item.to_owned(), |inner, _| format!("{seq}[{inner}]"))),
        None => Some(format!("{seq}[{}]", Kind::Any.stub())),
    }
}

/// `Union[a, b]`, or `a` alone.
fn union(items: Vec<String>) -> String {
    match items.len() {
        1 => items.into_iter().next().unwrap_or_default(),
        _ => format!("{}[{}]", Kind::Variant.stub(), items.join(", ")),
    }
}

/// A numpy array of the kind `p` takes, or the sequences that stand for one.
fn numpy_input(p: &OpParam) -> String {
    let array = format!("NDArray[{}]", element(p.dtype.as_deref(), p.cast).kind);
    match (&p.role, sequence(p)) {
        (Role::In, Some(seq)) => union(vec![array, seq]),
        _ => array,
    }
}

/// Any array, or for an input the sequences that stand for one.
fn any_input(p: &OpParam) -> String {
    match (&p.role, sequence(p)) {
        (Role::In, Some(seq)) => union(vec![DLPACK_ARRAY.to_owned(), seq]),
        _ => DLPACK_ARRAY.to_owned(),
    }
}

/// `None`, one result, or a tuple of them.
fn results(items: Vec<String>) -> String {
    match items.len() {
        0 => Kind::None.stub().to_owned(),
        1 => items.into_iter().next().unwrap_or_default(),
        _ => format!("{}[{}]", Kind::Tuple.stub(), items.join(", ")),
    }
}

/// The stub whose tensors are annotated by `tensor` (scalars as published), with or
/// without the output keywords.
fn stub(
    op: &Op<'_>,
    sig: &PySignature,
    outputs: bool,
    tensor: &dyn Fn(usize, &OpParam) -> String,
    ret: String,
) -> StubDef {
    let types = |i: usize, p: &PyParam| match op.params.get(i) {
        Some(param) if !matches!(param.role, Role::Scalar(_)) => tensor(i, param),
        _ => p.annotation.clone(),
    };
    StubDef { params: op_params(op, sig, Some(&types), outputs), ret }
}

/// The outputs' results, each of `one`.
fn outputs_as(op: &Op<'_>, one: &str) -> String {
    results(op.params.iter().filter(|p| matches!(p.role, Role::Out(_))).map(|_| one.to_owned()).collect())
}

/// `pkg.op`: numpy (the default, with no array to follow), torch, and JAX overloads.
pub fn functional(op: &Op<'_>, sig: &PySignature) -> Vec<StubDef> {
    let first = op.first_tensor();
    let optional = |t: &str| format!("{}[{t}]", Kind::Optional.stub());
    let numpy_ret = results(op.params.iter().filter(|p| matches!(p.role, Role::Out(_))).map(ndarray).collect());
    let numpy = stub(
        op,
        sig,
        true,
        &|i, p| match &p.role {
            Role::Out(_) => optional(&ndarray(p)),
            _ if Some(i) == first => numpy_input(p),
            _ => any_input(p),
        },
        numpy_ret,
    );
    let mut stubs = vec![numpy];
    match first {
        Some(first) => {
            stubs.push(stub(
                op,
                sig,
                true,
                &|i, p| match &p.role {
                    Role::Out(_) => optional(TORCH_VAR),
                    _ if i == first => TORCH_VAR.to_owned(),
                    _ => any_input(p),
                },
                outputs_as(op, TORCH_VAR),
            ));
            // JAX takes no output buffers (None only), and returns the in-place tensors.
            let jax_ret = results(vec![JAX_VAR.to_owned(); op.jax_results()]);
            stubs.push(stub(
                op,
                sig,
                true,
                &|i, p| match &p.role {
                    Role::Out(_) => Kind::None.stub().to_owned(),
                    _ if i == first => JAX_VAR.to_owned(),
                    _ => any_input(p),
                },
                jax_ret,
            ));
        }
        // No array argument: the first output given decides (numpy when none is).
        None if op.params.iter().any(|p| matches!(p.role, Role::Out(_))) => {
            let first_out = op.params.iter().position(|p| matches!(p.role, Role::Out(_)));
            let mut torch = stub(
                op,
                sig,
                true,
                &|i, _| if Some(i) == first_out { TORCH_VAR.to_owned() } else { optional(TORCH_VAR) },
                outputs_as(op, TORCH_VAR),
            );
            require_first_output(&mut torch, op, sig);
            stubs.push(torch);
        }
        None => {}
    }
    stubs
}

/// Makes the first output keyword of `stub` required (no default): the overload chosen
/// when it is given.
fn require_first_output(stub: &mut StubDef, op: &Op<'_>, sig: &PySignature) {
    let name = sig.params.iter().enumerate().find(|(i, _)| op.is_out(*i)).map(|(_, p)| p.name.as_str());
    if let Some(param) = stub.params.iter_mut().find(|p| Some(p.name.as_str()) == name) {
        param.default = None;
    }
}

/// `pkg.torch.op`: torch tensors; the outputs follow the first one.
pub fn torch_namespace(op: &Op<'_>, sig: &PySignature) -> Vec<StubDef> {
    let first = op.first_tensor();
    let (follow, one) = match first {
        Some(_) => (TORCH_VAR, TORCH_VAR),
        None => (TORCH_TENSOR, Kind::Any.stub()),
    };
    let def = stub(
        op,
        sig,
        true,
        &|i, p| match &p.role {
            Role::Out(_) => format!("{}[{follow}]", Kind::Optional.stub()),
            _ if Some(i) == first => TORCH_VAR.to_owned(),
            _ => TORCH_TENSOR.to_owned(),
        },
        outputs_as(op, one),
    );
    vec![method(def)]
}

/// `pkg.jax.op`: JAX arrays in, JAX arrays out; numpy arrays or sequences are taken too
/// (their results are JAX arrays, which the stubs cannot name without importing JAX).
pub fn jax_namespace(op: &Op<'_>, sig: &PySignature) -> Vec<StubDef> {
    let first = op.first_tensor();
    let all = |one: &str| results(vec![one.to_owned(); op.jax_results()]);
    let any = Kind::Any.stub();
    let Some(first) = first else {
        return vec![method(stub(op, sig, false, &|_, p| any_input(p), all(any)))];
    };
    let jax = stub(op, sig, false, &|i, p| if i == first { JAX_VAR.to_owned() } else { any_input(p) }, all(JAX_VAR));
    let numpy = stub(op, sig, false, &|i, p| if i == first { numpy_input(p) } else { any_input(p) }, all(any));
    vec![method(jax), method(numpy)]
}

/// `stub` as a method of the namespace's class: `self` first.
fn method(mut stub: StubDef) -> StubDef {
    stub.params.insert(0, Param::plain("self", None));
    stub
}
