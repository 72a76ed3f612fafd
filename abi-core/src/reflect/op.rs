//! The description of an `#[export_fn(op)]` export ([`OpDesc`]): which parameters are
//! input tensors, scalars, outputs (with the rule giving each output's shape) and in-place
//! tensors, the backward op and the JAX-order entry point. Rendered as the metadata's
//! `abi.op` object (`render::fn_op`), read back by `schema::metadata`. The `const fn`
//! checks below are what generated code asserts at compile time about an op's rules (its
//! backward's are in `op_backward.rs`).

use super::type_desc::str_eq;
use super::{FnDesc, TypeDesc};

/// One dimension of an output's shape rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpDim {
    /// `a.0`: dimension `axis` of input tensor `a`.
    Axis(&'static str, u32),
    /// `n`: the value of integer scalar parameter `n`.
    Scalar(&'static str),
    /// `3`: a constant.
    Const(i64),
}

/// How an op's output gets its shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpRule {
    /// `#[abi(out = x)]`: the shape of input tensor `x`.
    Like(&'static str),
    /// `#[abi(out = [a.0, n, 3])]`: one dimension per item.
    Shape(&'static [OpDim]),
    /// `#[abi(inout)]`: the tensor itself, read and written in place.
    InOut,
}

/// An output or in-place parameter of an op, in parameter order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpOutput {
    /// The parameter name.
    pub name: &'static str,
    /// Its shape rule.
    pub rule: OpRule,
}

/// Where an op's tensors live.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpDevice {
    /// Every tensor is a host tensor (`HostTensor`, `StridedTensor` and their `Mut`s).
    Cpu,
    /// Every tensor is a device tensor (`DeviceTensor`, `DeviceTensorMut`).
    Gpu,
}

impl OpDevice {
    /// Its spelling in the metadata: `cpu` or `gpu`.
    pub const fn as_str(self) -> &'static str {
        match self {
            OpDevice::Cpu => "cpu",
            OpDevice::Gpu => "gpu",
        }
    }
}

/// What `#[export_fn(op)]` adds to an export's description.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpDesc {
    /// Input tensor parameters, in order.
    pub inputs: &'static [&'static str],
    /// Scalar parameters, in order.
    pub scalars: &'static [&'static str],
    /// Output and in-place parameters, in order.
    pub outputs: &'static [OpOutput],
    /// The exported name of the backward op (`backward = path`).
    pub backward: Option<&'static str>,
    /// The exported name of the JAX-order entry point (`<name>__jax`), made for an op with
    /// an in-place parameter.
    pub jax: Option<&'static str>,
    /// Where its tensors live.
    pub device: OpDevice,
    /// The input tensors that take any strides (`StridedTensor`), in order; every other
    /// input tensor needs compact row-major data. Published only when not empty.
    pub strided: &'static [&'static str],
}

/// The `TypeDesc` of parameter `name` of `f` (`&TypeDesc::None` when there is none).
pub(crate) const fn param_ty(f: &FnDesc, name: &str) -> &'static TypeDesc {
    let mut i = 0;
    while i < f.params.len() {
        if str_eq(f.params[i].name, name) {
            return f.params[i].ty;
        }
        i += 1;
    }
    &TypeDesc::None
}

/// Whether two element types are the same.
const fn same_elem(a: Option<&TypeDesc>, b: Option<&TypeDesc>) -> bool {
    match (a, b) {
        (Some(TypeDesc::Int { bits: x, signed: s }), Some(TypeDesc::Int { bits: y, signed: t })) => {
            *x == *y && *s == *t
        }
        (Some(TypeDesc::Float { bits: x, brain: s }), Some(TypeDesc::Float { bits: y, brain: t })) => {
            *x == *y && *s == *t
        }
        (Some(TypeDesc::Bool), Some(TypeDesc::Bool)) | (None, None) => true,
        _ => false,
    }
}

/// Whether `a` and `b` are tensors of the same element type and rank.
pub const fn same_tensor_type(a: &TypeDesc, b: &TypeDesc) -> bool {
    match (a, b) {
        (TypeDesc::Tensor { elem: e1, rank: r1, .. }, TypeDesc::Tensor { elem: e2, rank: r2, .. }) => {
            same_elem(*e1, *e2)
                && match (r1, r2) {
                    (Some(x), Some(y)) => *x == *y,
                    (None, None) => true,
                    _ => false,
                }
        }
        _ => false,
    }
}

/// Whether two parameter types are the same (tensors by element type and rank, scalars by
/// kind and width, fieldless enums by name and the names they cross as).
pub(crate) const fn same_type(a: &TypeDesc, b: &TypeDesc) -> bool {
    match (a, b) {
        (TypeDesc::Tensor { .. }, _) => same_tensor_type(a, b),
        (TypeDesc::Enum(x), TypeDesc::Enum(y)) => {
            if !str_eq(x.name, y.name) || x.names.len() != y.names.len() {
                return false;
            }
            let mut i = 0;
            while i < x.names.len() {
                if !str_eq(x.names[i], y.names[i]) {
                    return false;
                }
                i += 1;
            }
            true
        }
        _ => same_elem(Some(a), Some(b)),
    }
}

/// The rank of a typed tensor (0 for anything else).
pub const fn tensor_rank(ty: &TypeDesc) -> u32 {
    match ty {
        TypeDesc::Tensor { rank: Some(r), .. } => *r,
        _ => 0,
    }
}
