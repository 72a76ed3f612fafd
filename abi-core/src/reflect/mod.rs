//! Reflection: a constant description of every ABI type ([`TypeDesc`]) and function
//! ([`FnDesc`]), rendered into the JSON and signature texts hosts read (docs/ABI.md
//! sections 4, 6 and 7). Generated code renders them into `static` byte arrays at compile
//! time with the same `const fn` renderers the methods here call.

pub mod op;
pub(crate) mod op_backward;
pub(crate) mod render;
pub(crate) mod type_desc;
pub(crate) mod type_texts;
pub(crate) mod writer;

#[cfg(test)]
mod tests;

use abi_shared::vocab::Kind;

use crate::ffi::{code, DataType, RawAny};
use crate::value::conv_error::ConvError;
use render::{fn_metadata_json, fn_signature_text, type_display, type_schema};
use writer::Writer;

pub use op::{OpDesc, OpDevice, OpDim, OpOutput, OpRule};
pub use type_desc::{EnumDesc, FieldDesc, StructDesc, TaggedDesc, TypeDesc};

/// What a parameter may do to tensor memory it borrows, for the shim's overlap check: a
/// [`HostTensorMut`](crate::HostTensorMut) may overlap no other tensor argument, and a
/// [`HostTensor`](crate::HostTensor)'s slice no argument that can write through cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Holds no tensor (numbers, strings, structs...).
    None,
    /// May hold a tensor and write it through cells (`TensorView::as_cells`): `TensorView`,
    /// `Tensor`, `Any`, `AnyView`.
    Cells,
    /// A data pointer only, never a reference (`DeviceTensor`).
    Pointer,
    /// A shared slice that lives for the whole call (`HostTensor`).
    Shared,
    /// A mutable slice that lives for the whole call (`HostTensorMut`).
    Exclusive,
}

impl Access {
    /// Whether two entries of `list` conflict (a typed closure's arguments).
    #[inline]
    pub const fn any_conflict(list: &[Access]) -> bool {
        let mut i = 0;
        while i < list.len() {
            let mut j = i + 1;
            while j < list.len() {
                if list[i].conflicts(list[j]) {
                    return true;
                }
                j += 1;
            }
            i += 1;
        }
        false
    }

    /// Whether two parameters with these accesses must not share memory.
    #[inline]
    pub const fn conflicts(self, other: Access) -> bool {
        matches!(
            (self, other),
            (Access::Exclusive, Access::Cells | Access::Pointer | Access::Shared | Access::Exclusive)
                | (Access::Cells | Access::Pointer | Access::Shared, Access::Exclusive)
                | (Access::Shared, Access::Cells)
                | (Access::Cells, Access::Shared)
        )
    }
}

/// Converts an argument slot as a parameter type's full conversion does and returns the
/// exact-type slot its fast path maps to the same value (`FromArg::exact_slot`).
///
/// # Safety
/// `v` is a valid argument slot; what it points to outlives every use of the result.
pub type ExactSlot = unsafe fn(v: &RawAny) -> Result<RawAny, ConvError>;

/// One parameter of an exported function.
#[derive(Debug)]
pub struct ParamDesc {
    /// The parameter name.
    pub name: &'static str,
    /// The parameter type.
    pub ty: &'static TypeDesc,
    /// Expanded into one slot per leaf field (`#[abi(expand)]`).
    pub expand: bool,
    /// When the type has an exact-type fast conversion (`FromArg::HAS_FAST_PATH`): its
    /// coercion to the exact-type slot that conversion takes (`FromArg::exact_slot`).
    pub exact: Option<ExactSlot>,
    /// What it may do to tensor memory (`FromArg::ACCESS`).
    pub access: Access,
    /// The JSON text of its default (`#[abi(default = ...)]`), taken when a call omits it.
    pub default: Option<&'static str>,
}

impl ParamDesc {
    /// An imported function's parameter: one slot of type `ty`.
    pub const fn new(name: &'static str, ty: &'static TypeDesc) -> ParamDesc {
        ParamDesc { name, ty, expand: false, exact: None, access: Access::None, default: None }
    }

    /// A parameter passed as one slot: `param` is its type's `FromArg::PARAM`.
    pub const fn plain(name: &'static str, param: (&'static TypeDesc, Option<ExactSlot>, Access)) -> ParamDesc {
        ParamDesc { name, ty: param.0, expand: false, exact: param.1, access: param.2, default: None }
    }

    /// The same parameter with a default, `json` being its JSON text (`3`, `"x"`, `null`).
    pub const fn with_default(self, json: &'static str) -> ParamDesc {
        ParamDesc { default: Some(json), ..self }
    }

    /// Whether it takes a tensor (or an `Option` of one) and only reads it: its memory may
    /// be read-only (published as `abi.read_only`).
    pub const fn reads_tensor_only(&self) -> bool {
        let ty = match self.ty {
            TypeDesc::Optional(inner) => inner,
            ty => ty,
        };
        !self.expand && matches!(ty, TypeDesc::Tensor { .. }) && matches!(self.access, Access::Shared | Access::Pointer)
    }

    /// A struct parameter passed as one slot per leaf (`#[abi(expand)]`).
    pub const fn expanded(name: &'static str, ty: &'static TypeDesc) -> ParamDesc {
        ParamDesc { name, ty, expand: true, exact: None, access: Access::None, default: None }
    }
}

/// The most slots an export retries with (`boundary::retry_exact`, see
/// [`FnDesc::retries_exact`]): its coerced slots live on the stack.
pub const RETRY_SLOTS: usize = 16;

/// An exported function's signature and docs.
#[derive(Clone, Copy, Debug)]
pub struct FnDesc {
    /// The exported name (symbol `__tvm_ffi_<name>`).
    pub name: &'static str,
    /// Parameters in order.
    pub params: &'static [ParamDesc],
    /// The result type.
    pub ret: &'static TypeDesc,
    /// The `///` docs.
    pub doc: &'static str,
    /// The global registry name (`#[export_fn(global = "mylib.add")]`), published in the
    /// metadata as `abi.global`.
    pub global: Option<&'static str>,
    /// What `#[export_fn(op)]` adds: the op's parameter roles and rules, published in the
    /// metadata as `abi.op`.
    pub op: Option<&'static OpDesc>,
    /// `#[export_fn(gil = "release" | "keep")]`: whether a Python caller releases the GIL
    /// while it runs (`true`), published in the metadata as `abi.gil`; `None` for the
    /// default choice.
    pub release_gil: Option<bool>,
    /// The Rust name of the error type it returns (`Result<T, KernelError>`), published as
    /// `abi.error`; `None` for `abi_core::Error` and for no `Result`.
    pub error: Option<&'static str>,
}

impl FnDesc {
    /// A function description (for generated code: one call, one place to change).
    pub const fn new(
        name: &'static str,
        params: &'static [ParamDesc],
        ret: &'static TypeDesc,
        doc: &'static str,
    ) -> FnDesc {
        FnDesc { name, params, ret, doc, global: None, op: None, release_gil: None, error: None }
    }

    /// The same function, also registered as the global function `name`.
    pub const fn with_global(self, name: &'static str) -> FnDesc {
        FnDesc { global: Some(name), ..self }
    }

    /// The same function, returning errors of the type named `name`.
    pub const fn with_error(self, name: &'static str) -> FnDesc {
        FnDesc { error: Some(name), ..self }
    }

    /// The same function, with its GIL choice (`#[export_fn(gil = ...)]`: `true` for
    /// `"release"`).
    pub const fn with_gil(self, release: bool) -> FnDesc {
        FnDesc { release_gil: Some(release), ..self }
    }

    /// The same function, an op described by `op` (`#[export_fn(op)]`).
    pub const fn with_op(self, op: &'static OpDesc) -> FnDesc {
        FnDesc { op: Some(op), ..self }
    }

    /// Whether an export's shim tries exact-type conversions first: it has parameters,
    /// every one is a plain parameter whose type has a fast path, and none needs the overlap
    /// check (which only the full pass runs).
    pub const fn fast_path(&self) -> bool {
        let mut i = 0;
        while i < self.params.len() {
            if self.params[i].expand || self.params[i].exact.is_none() {
                return false;
            }
            i += 1;
        }
        !self.params.is_empty() && !self.checks_overlaps()
    }

    /// Whether a fast-path export's fallback is the shared [`retry_exact`] (coerce every
    /// argument to its exact-type slot, then call the shim again): a [`FnDesc::fast_path`]
    /// export with no defaults (a call passes every slot) and at most
    /// [`RETRY_SLOTS`] parameters.
    ///
    /// [`retry_exact`]: crate::runtime::calls::boundary::retry_exact
    pub const fn retries_exact(&self) -> bool {
        self.fast_path() && self.required_slots() == self.slot_count() && self.slot_count() <= RETRY_SLOTS
    }

    /// Whether a parameter may hold a tensor in its slot (a tensor type, `Any`, or an
    /// `Option` of one): a check of abi's own that refuses such a tensor in the body names
    /// the argument.
    pub const fn holds_tensors(&self) -> bool {
        const fn tensor_slot(ty: &TypeDesc) -> bool {
            match ty {
                TypeDesc::Tensor { .. } | TypeDesc::Any => true,
                TypeDesc::Optional(inner) => tensor_slot(inner),
                _ => false,
            }
        }
        let mut i = 0;
        while i < self.params.len() {
            if !self.params[i].expand && tensor_slot(self.params[i].ty) {
                return true;
            }
            i += 1;
        }
        false
    }

    /// Whether two of its parameters have accesses that conflict if their tensors share
    /// memory, so the shim compares their extents before converting (see [`Access`]).
    pub const fn checks_overlaps(&self) -> bool {
        let mut i = 0;
        while i < self.params.len() {
            let mut j = i + 1;
            while j < self.params.len() {
                if self.params[i].access.conflicts(self.params[j].access) {
                    return true;
                }
                j += 1;
            }
            i += 1;
        }
        false
    }

    /// The argument slots a caller passes, with their published names: one per parameter,
    /// or one per leaf of an expanded struct (`p.x`), depth-first, as `arg_names` lists them.
    pub fn slots(&self) -> Vec<(String, &'static TypeDesc)> {
        fn leaves(path: String, ty: &'static TypeDesc, out: &mut Vec<(String, &'static TypeDesc)>) {
            match ty {
                TypeDesc::Struct(s) => s.fields.iter().for_each(|f| leaves(format!("{path}.{}", f.name), f.ty, out)),
                _ => out.push((path, ty)),
            }
        }
        let mut out = Vec::with_capacity(self.slot_count());
        for p in self.params {
            match p.expand {
                true => leaves(p.name.to_owned(), p.ty, &mut out),
                false => out.push((p.name.to_owned(), p.ty)),
            }
        }
        out
    }

    /// How many leading slots a call must pass: those before the first parameter with a
    /// default (a parameter with a default is never expanded, so it is one slot).
    pub const fn required_slots(&self) -> usize {
        let mut n = 0;
        let mut i = 0;
        while i < self.params.len() {
            let p = &self.params[i];
            if p.default.is_some() {
                return n;
            }
            n += if p.expand { leaf_count(p.ty) } else { 1 };
            i += 1;
        }
        n
    }

    /// The parameters' defaults by name, in order (`abi.defaults` in the metadata).
    pub fn defaults(&self) -> Vec<(String, serde_json::Value)> {
        self.params
            .iter()
            .filter_map(|p| {
                let value = serde_json::from_str(p.default?).unwrap_or(serde_json::Value::Null);
                Some((p.name.to_owned(), value))
            })
            .collect()
    }

    /// The number of argument slots a caller passes (expanded structs count their leaves).
    pub const fn slot_count(&self) -> usize {
        slot_count(self.params)
    }
}

/// The number of argument slots a caller passes for `params` (expanded structs count their
/// leaves).
pub const fn slot_count(params: &[ParamDesc]) -> usize {
    let mut n = 0;
    let mut i = 0;
    while i < params.len() {
        let p = &params[i];
        n += if p.expand { leaf_count(p.ty) } else { 1 };
        i += 1;
    }
    n
}

/// The number of scalar leaves of `ty` when expanded depth-first (1 for a non-struct).
pub const fn leaf_count(ty: &TypeDesc) -> usize {
    match ty {
        TypeDesc::Struct(s) => {
            let mut n = 0;
            let mut i = 0;
            while i < s.fields.len() {
                n += leaf_count(s.fields[i].ty);
                i += 1;
            }
            n
        }
        _ => 1,
    }
}

impl TypeDesc {
    /// Whether its values are numbers, `bool`, strings, bytes or `None`: values a Python
    /// caller passes and gets as plain objects (the Python door converts them itself, and
    /// calls taking only them are too short to pay for releasing the GIL).
    pub const fn is_plain(&self) -> bool {
        matches!(
            self,
            TypeDesc::None
                | TypeDesc::Bool
                | TypeDesc::Int { .. }
                | TypeDesc::Float { .. }
                | TypeDesc::Str
                | TypeDesc::Bytes
        )
    }

    /// The kind of value it describes (`abi_shared::vocab`, which spells it); `None` for an
    /// object class, spelled by its own key. A struct is a tuple of its fields.
    pub const fn kind(&self) -> Option<Kind> {
        Some(match self {
            TypeDesc::None => Kind::None,
            TypeDesc::Bool => Kind::Bool,
            TypeDesc::Int { .. } => Kind::Int,
            TypeDesc::Float { .. } => Kind::Float,
            TypeDesc::Str | TypeDesc::Enum(_) => Kind::Str,
            TypeDesc::Bytes => Kind::Bytes,
            TypeDesc::Any => Kind::Any,
            TypeDesc::OpaquePtr => Kind::OpaquePtr,
            TypeDesc::DataType => Kind::DataType,
            TypeDesc::Device => Kind::Device,
            TypeDesc::Shape => Kind::Shape,
            TypeDesc::Function => Kind::Function,
            TypeDesc::Callable { .. } => Kind::Callable,
            TypeDesc::Error => Kind::Error,
            TypeDesc::Object => Kind::Object,
            TypeDesc::Tensor { .. } => Kind::Tensor,
            TypeDesc::Optional(_) => Kind::Optional,
            TypeDesc::List(_) => Kind::Array,
            TypeDesc::Tuple(_) | TypeDesc::Struct(_) => Kind::Tuple,
            TypeDesc::Map(..) => Kind::Map,
            TypeDesc::Variant(_) | TypeDesc::Tagged(_) => Kind::Variant,
            TypeDesc::FfiList(_) => Kind::List,
            TypeDesc::FfiDict(..) => Kind::Dict,
            TypeDesc::Class { .. } => return None,
        })
    }

    /// The DLPack data type of a tensor element type (integers, floats, `bool`).
    pub const fn dtype(&self) -> Option<DataType> {
        Some(match self {
            TypeDesc::Int { bits, signed: true } => DataType::new(code::INT, *bits),
            TypeDesc::Int { bits, signed: false } => DataType::new(code::UINT, *bits),
            TypeDesc::Float { bits: 16, brain: true } => DataType::new(code::BFLOAT, 16),
            TypeDesc::Float { bits, .. } => DataType::new(code::FLOAT, *bits),
            TypeDesc::Bool => DataType::new(code::BOOL, 8),
            _ => return None,
        })
    }

    /// The tvm-ffi `type_schema` JSON, e.g. `{"type":"ffi.Array","args":[{"type":"int"}]}`.
    pub fn schema(&self) -> String {
        Writer::render(|w| type_schema(w, self))
    }

    /// The Python-facing name, e.g. `int`, `Optional[str]`.
    pub fn display(&self) -> String {
        Writer::render(|w| type_display(w, self))
    }
}

impl FnDesc {
    /// The signature as Python reads it: `add(a: int, b: int) -> int`.
    pub fn signature_text(&self) -> String {
        Writer::render(|w| fn_signature_text(w, self))
    }

    /// The whole metadata JSON `__tvm_ffi__metadata_<name>` returns.
    pub fn metadata_json(&self) -> String {
        Writer::render(|w| fn_metadata_json(w, self))
    }
}
