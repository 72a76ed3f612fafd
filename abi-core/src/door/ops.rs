//! Ops through the door: `pkg.op(x, ...)` on numpy arrays with no Python detour. The door
//! binds the op's arguments (its parameters but the outputs, then the outputs as
//! keywords), allocates each output numpy array by its shape rule (`numpy.empty`, through
//! numpy's C API), calls the export's shim with the arguments and the outputs in the
//! export's order, and returns the outputs as the package's `Op.call` does: one array, a
//! tuple of them, or `None` for an op writing only in place.
//!
//! It serves only the call `Op.call` makes on numpy arrays it takes as they are: every
//! tensor argument a numpy array (not a buffer object, which the `def` makes one of, nor a
//! framework's tensor, which the `def` calls the op on in its framework), every input tensor one the export reads in place (compact where the op needs
//! compact data; writable where it writes), no output given, each scalar a shape rule
//! reads an `int` of at least 0. Anything else (torch, JAX, lists, outputs given, views to
//! copy, a size numpy refuses) goes to the package's `def`, which allocates, copies,
//! converts and raises as before.

use core::mem::MaybeUninit;
use core::ptr::null_mut;

use super::args::Frame;
use super::arrays::{tensor_of, type_number};
use super::callable::{raise, release_all as release, DoorFn, MAX_PARAMS};
use super::capi::{tuple_set, type_of, PyApi, PyObject};
use super::exchange::Exchange;
use super::tensors::empty_array;
use crate::ffi::{type_index as ti, DLManagedTensorVersioned, DLTensor, DataType, Device, RawAny};
use crate::reflect::{OpDesc, OpDevice, OpDim, OpRule, ParamDesc, TypeDesc};
use crate::runtime::calls::error_slot::take_raised_after;
use crate::value::any::Any;

type Obj = *mut PyObject;

/// The most dimensions an output has here; more keep the `def`.
const MAX_DIMS: usize = 32;

/// How the door calls an op on numpy arrays.
pub struct OpPlan {
    /// The export's parameter index of each of the op's arguments, in order.
    args: Vec<usize>,
    /// The outputs the door allocates, in order.
    outs: Vec<Output>,
    /// The parameters taking input tensors that need compact data.
    compact: Vec<usize>,
    /// The arguments taking tensors, inputs and in-place ones (each must be given an array).
    tensors: Vec<usize>,
}

/// One output: its parameter, numpy type number and shape rule.
struct Output {
    param: usize,
    type_num: i32,
    dtype: DataType,
    shape: Shape,
}

/// An output's shape, read from the call's arguments (by parameter index).
enum Shape {
    /// The shape of the tensor argument.
    Like(usize),
    /// One dimension per item.
    Dims(Vec<Dim>),
}

enum Dim {
    /// An axis of a tensor argument (0 past its last: the export then refuses the tensor
    /// with its own message, as the package's rule does).
    Axis(usize, u32),
    /// The value of an integer scalar argument.
    Scalar(usize),
    Const(i64),
}

impl OpPlan {
    /// The plan of `op` (the description of an export with `params`, returning `ret`),
    /// `None` when its calls keep the `def`: a GPU op, an op whose outputs numpy cannot
    /// hold (a dtype numpy lacks, too many dimensions), no numpy (`numpy`), or an op with a
    /// fieldless enum scalar, which the package's ops do not describe yet (its function is
    /// a plain wrapper there, whose calls the door's op binding would not match).
    pub fn of(op: &OpDesc, params: &[ParamDesc], ret: &TypeDesc, numpy: bool) -> Option<OpPlan> {
        if op.device != OpDevice::Cpu || !numpy || !matches!(ret, TypeDesc::None) {
            return None;
        }
        if params.iter().any(|p| matches!(p.ty, TypeDesc::Enum(_))) {
            return None;
        }
        let index = |name: &str| params.iter().position(|p| p.name == name);
        let mut outs = Vec::new();
        for out in op.outputs {
            let param = index(out.name)?;
            let shape = match out.rule {
                OpRule::InOut => continue,
                OpRule::Like(input) => Shape::Like(index(input)?),
                OpRule::Shape(dims) if dims.len() <= MAX_DIMS => Shape::Dims(
                    dims.iter()
                        .map(|d| {
                            Some(match *d {
                                OpDim::Axis(input, axis) => Dim::Axis(index(input)?, axis),
                                OpDim::Scalar(name) => Dim::Scalar(index(name)?),
                                OpDim::Const(n) => Dim::Const(n),
                            })
                        })
                        .collect::<Option<_>>()?,
                ),
                OpRule::Shape(_) => return None,
            };
            let TypeDesc::Tensor { elem: Some(elem), .. } = params[param].ty else { return None };
            let dtype = elem.dtype()?;
            outs.push(Output { param, type_num: type_number(dtype)?, dtype, shape });
        }
        let is_out = |i: usize| outs.iter().any(|o| o.param == i);
        let compact = op.inputs.iter().filter(|n| !op.strided.contains(n)).map(|n| index(n)).collect::<Option<_>>()?;
        let args: Vec<usize> = (0..params.len()).filter(|&i| !is_out(i)).collect();
        let tensors = args.iter().copied().filter(|&i| matches!(params[i].ty, TypeDesc::Tensor { .. })).collect();
        Some(OpPlan { args, tensors, compact, outs })
    }

    /// The Python parameters' names: the arguments, then the outputs.
    pub fn python_names(&self, params: &[ParamDesc]) -> Vec<&'static str> {
        self.args.iter().chain(self.outs.iter().map(|o| &o.param)).map(|&i| params[i].name).collect()
    }

    /// The shape of output `out` (its length written to `dims`), `None` when the `def`
    /// must compute it (a scalar that is no `int`, or a negative one).
    ///
    /// # Safety
    /// Every tensor parameter's slot in `slots` holds a live `DLTensor*`.
    unsafe fn shape_of(out: &Output, slots: &[MaybeUninit<RawAny>], dims: &mut [i64; MAX_DIMS]) -> Option<usize> {
        // SAFETY: the parameters the rules name are initialized slots (the caller's
        // guarantee); a tensor's holds a live `DLTensor*`.
        let tensor = |i: usize| unsafe { &*slots[i].assume_init_ref().ptr().cast::<DLTensor>() };
        let shape = |t: &DLTensor| match t.ndim {
            // SAFETY: a DLTensor's `ndim` dimensions.
            n if n > 0 => unsafe { core::slice::from_raw_parts(t.shape, n as usize) },
            _ => &[],
        };
        match &out.shape {
            Shape::Like(i) => {
                let found = shape(tensor(*i));
                dims.get_mut(..found.len())?.copy_from_slice(found);
                Some(found.len())
            }
            Shape::Dims(rule) => {
                for (d, item) in dims.iter_mut().zip(rule) {
                    *d = match *item {
                        Dim::Axis(i, axis) => shape(tensor(i)).get(axis as usize).copied().unwrap_or(0),
                        Dim::Scalar(i) => {
                            // SAFETY: an argument's slot, initialized.
                            let value = unsafe { slots[i].assume_init_ref() };
                            (value.type_index == ti::INT && value.i64() >= 0).then(|| value.i64())?
                        }
                        Dim::Const(n) => n,
                    };
                }
                Some(rule.len())
            }
        }
    }
}

impl DoorFn {
    /// An op's call through the door, `None` when it takes the `def` instead (before
    /// anything ran).
    ///
    /// # Safety
    /// The GIL is held; `call` is this call's arguments: `args` holds `nargs` positional
    /// then `kwnames`' length keyword values.
    pub(super) unsafe fn call_op(&self, plan: &OpPlan, api: &PyApi, call: (*const Obj, usize, Obj)) -> Option<Obj> {
        let n = plan.args.len();
        let (args, nargs, kwnames) = call;
        let bound = if kwnames.is_null() {
            if nargs != n {
                return None;
            }
            let mut bound = [null_mut(); MAX_PARAMS];
            // SAFETY: `args` holds `nargs` values.
            bound[..n].copy_from_slice(unsafe { core::slice::from_raw_parts(args, n) });
            bound
        } else {
            // SAFETY: the GIL is held; this call's arguments.
            let (bound, _) = unsafe { self.bind(api, call, n, (n, n)) }?;
            // An output given (not None) is the `def`'s to check and fill.
            if bound[n..n + plan.outs.len()].iter().any(|&o| !o.is_null() && o != api.none) {
                return None;
            }
            bound
        };
        let mut frame = Frame::new(api);
        let mut slots = [const { MaybeUninit::<RawAny>::uninit() }; MAX_PARAMS];
        for (&param, &value) in plan.args.iter().zip(&bound) {
            // SAFETY: a live argument of this call; the frame outlives the shim's call.
            slots[param].write(unsafe { frame.slot(param, value, self.takes[param]) }?);
        }
        // A buffer object is the def's to make a numpy array of.
        if frame.holds_buffers() {
            return None;
        }
        // SAFETY: every argument's slot is written.
        let arg = |i: usize| unsafe { slots[i].assume_init_ref() };
        if plan.tensors.iter().any(|&i| arg(i).type_index != ti::DL_TENSOR_PTR) {
            return None;
        }
        let framework = frame.framework().is_some();
        // SAFETY: the GIL is held; `bound` holds the arguments the slots came from.
        if framework && !unsafe { self.takes_torch(plan, api, &bound, &frame) } {
            return None;
        }
        // SAFETY: a tensor argument's slot points to its scratch `DLTensor`.
        if plan.compact.iter().any(|&i| !compact(unsafe { &*arg(i).ptr().cast::<DLTensor>() })) {
            return None;
        }
        let outs = if framework {
            // SAFETY: the GIL is held; the slots are as `allocate_managed` needs.
            Outputs::Managed(unsafe { self.allocate_managed(plan, &mut slots, &mut frame) }?)
        } else {
            // SAFETY: the GIL is held; the slots are as `allocate` needs.
            Outputs::Numpy(unsafe { self.allocate(plan, api, &mut slots, &mut frame) }?)
        };
        let mut result = RawAny::NONE;
        // SAFETY: the GIL is held; every parameter's slot is written, borrowed for the call
        // (the arrays they point into are alive: the caller's and `outs`).
        let rc = unsafe { self.invoke(api, &frame, slots.as_ptr().cast(), self.takes.len(), &mut result) };
        let count = plan.outs.len();
        if rc != 0 {
            // SAFETY: the GIL is held; the outputs are ours.
            return Some(unsafe {
                outs.release(api, count);
                raise(api, take_raised_after(rc))
            });
        }
        // SAFETY: the shim's result (None for an op), owned.
        drop(unsafe { Any::from_raw(result) });
        // SAFETY: the GIL is held; the outputs are handed over.
        Some(unsafe { outs.returned(api, &frame, count) })
    }

    /// Whether an op's call on a framework's tensors takes the door: every tensor argument
    /// a `torch.Tensor` (not a subclass, which the `def` sends to the custom op, nor a numpy
    /// array beside them) on the CPU that does not require grad (autograd is the custom
    /// op's), and a framework that allocates tensors and converts them back.
    ///
    /// # Safety
    /// The GIL is held; `bound` holds this call's arguments, in the op's order.
    unsafe fn takes_torch(&self, plan: &OpPlan, api: &PyApi, bound: &[Obj; MAX_PARAMS], frame: &Frame<'_>) -> bool {
        let Some(exchange) = frame.framework() else { return false };
        if api.torch_tensor_type.is_null() || exchange.allocator().is_none() {
            return false;
        }
        plan.args.iter().zip(bound).filter(|(param, _)| plan.tensors.contains(param)).all(|(_, &obj)| {
            // SAFETY: a live argument; the GIL is held; a failed lookup's error is cleared.
            unsafe {
                if type_of(obj) != api.torch_tensor_type {
                    return false;
                }
                let grad = (api.get_attr_string)(obj, c"requires_grad".as_ptr());
                if grad.is_null() {
                    (api.err_clear)();
                    return false;
                }
                (api.dec_ref)(grad);
                grad == api.false_
            }
        }) && exchange.on_cpu()
    }

    /// Allocates each output (written to its slot), returning them; `None` (nothing left
    /// allocated, no error set) when the `def` must: a shape it computes, a size numpy
    /// refuses.
    ///
    /// # Safety
    /// The GIL is held; every argument's slot is written, a tensor's pointing to a live
    /// `DLTensor`.
    unsafe fn allocate(
        &self,
        plan: &OpPlan,
        api: &PyApi,
        slots: &mut [MaybeUninit<RawAny>; MAX_PARAMS],
        frame: &mut Frame<'_>,
    ) -> Option<[Obj; MAX_PARAMS]> {
        let mut outs = [null_mut(); MAX_PARAMS];
        for (k, out) in plan.outs.iter().enumerate() {
            let mut dims = [0i64; MAX_DIMS];
            // SAFETY: the tensor arguments' slots point to live `DLTensor`s.
            let array = match unsafe { OpPlan::shape_of(out, slots, &mut dims) } {
                // SAFETY: the GIL is held; the table has numpy's API (the plan needs it).
                Some(ndim) => unsafe { empty_array(api, out.type_num, &dims[..ndim]) },
                None => null_mut(),
            };
            // SAFETY: a new C-contiguous, writable array, alive until released; its scratch
            // outlives the slot.
            let tensor = (!array.is_null())
                .then(|| unsafe { tensor_of(array, false, frame.scratch(out.param).strides_room()) })
                .flatten();
            let Some(tensor) = tensor else {
                // SAFETY: the GIL is held; a failure's error is the `def`'s to raise.
                unsafe {
                    (api.err_clear)();
                    if !array.is_null() {
                        (api.dec_ref)(array);
                    }
                    release(api, &outs[..k]);
                }
                return None;
            };
            outs[k] = array;
            let at = frame.scratch(out.param).tensor_room(tensor);
            slots[out.param].write(RawAny::from_ptr(ti::DL_TENSOR_PTR, (at as *mut DLTensor).cast()));
        }
        Some(outs)
    }

    /// Allocates each output with the framework's allocator (written to its slot), on the
    /// CPU (the door takes framework tensors for CPU ops on the CPU only), returning the
    /// managed tensors; `None` (nothing left allocated, no error set) when the `def` must.
    ///
    /// # Safety
    /// The GIL is held; every argument's slot is written, a tensor's pointing to a live
    /// `DLTensor`; the frame holds a framework's tensors.
    unsafe fn allocate_managed(
        &self,
        plan: &OpPlan,
        slots: &mut [MaybeUninit<RawAny>; MAX_PARAMS],
        frame: &mut Frame<'_>,
    ) -> Option<[*mut DLManagedTensorVersioned; MAX_PARAMS]> {
        let (allocator, _) = frame.framework()?.allocator()?;
        let mut outs = [null_mut(); MAX_PARAMS];
        for (k, out) in plan.outs.iter().enumerate() {
            let mut dims = [0i64; MAX_DIMS];
            let mut managed = null_mut();
            // SAFETY: the tensor arguments' slots point to live `DLTensor`s.
            let made = unsafe { OpPlan::shape_of(out, slots, &mut dims) }.is_some_and(|ndim| {
                let mut prototype = DLTensor {
                    data: null_mut(),
                    device: Device::CPU,
                    ndim: ndim as i32,
                    dtype: out.dtype,
                    shape: dims.as_mut_ptr(),
                    strides: null_mut(),
                    byte_offset: 0,
                };
                // SAFETY: the framework's allocator, with the GIL held; a failure's error
                // is dropped (the `def` allocates again and raises what it meets).
                unsafe { allocator(&mut prototype, &mut managed, null_mut(), ignore_error) == 0 && !managed.is_null() }
            });
            if !made {
                // SAFETY: the managed tensors made so far, released once.
                unsafe { release_managed(&outs[..k]) };
                return None;
            }
            outs[k] = managed;
            // SAFETY: the allocator's tensor, alive until its deleter runs.
            let tensor = unsafe { DLTensor { ..(*managed).dl_tensor } };
            let at = frame.scratch(out.param).tensor_room(tensor);
            slots[out.param].write(RawAny::from_ptr(ti::DL_TENSOR_PTR, (at as *mut DLTensor).cast()));
        }
        Some(outs)
    }
}

/// An allocator's `set_error` that drops the error.
unsafe extern "C" fn ignore_error(_: *mut core::ffi::c_void, _: *const core::ffi::c_char, _: *const core::ffi::c_char) {
}

/// Releases each managed tensor.
///
/// # Safety
/// Each is a live managed tensor the caller gives up.
unsafe fn release_managed(outs: &[*mut DLManagedTensorVersioned]) {
    for &m in outs {
        // SAFETY: the caller's guarantee.
        unsafe { DLManagedTensorVersioned::release(m) };
    }
}

/// An op's outputs: numpy arrays, or a framework's managed tensors.
enum Outputs {
    Numpy([Obj; MAX_PARAMS]),
    Managed([*mut DLManagedTensorVersioned; MAX_PARAMS]),
}

impl Outputs {
    /// Releases the first `count`.
    ///
    /// # Safety
    /// The GIL is held; the first `count` are live and ours.
    unsafe fn release(&self, api: &PyApi, count: usize) {
        // SAFETY: the caller's guarantee.
        unsafe {
            match self {
                Outputs::Numpy(arrays) => release(api, &arrays[..count]),
                Outputs::Managed(managed) => release_managed(&managed[..count]),
            }
        }
    }

    /// What the op returns ([`returned`]), a framework's tensors converted back through it
    /// (null with its error set when it refuses one).
    ///
    /// # Safety
    /// The GIL is held; the first `count` are live and handed over.
    unsafe fn returned(&self, api: &PyApi, frame: &Frame<'_>, count: usize) -> Obj {
        let managed = match self {
            // SAFETY: the caller's guarantee.
            Outputs::Numpy(arrays) => return unsafe { returned(api, &arrays[..count]) },
            Outputs::Managed(managed) => &managed[..count],
        };
        let Some((_, to_py)) = frame.framework().and_then(Exchange::allocator) else { return null_mut() };
        let mut objects = [null_mut(); MAX_PARAMS];
        for (k, &m) in managed.iter().enumerate() {
            let mut object = null_mut();
            // SAFETY: the framework's converter, with the GIL held; it takes the managed
            // tensor over on success.
            if unsafe { to_py(m, &mut object) } != 0 || object.is_null() {
                // SAFETY: the rest are ours; the converter left its error set.
                unsafe {
                    release_managed(&managed[k..]);
                    release(api, &objects[..k]);
                }
                return null_mut();
            }
            objects[k] = object.cast();
        }
        // SAFETY: the objects are new references, handed over.
        unsafe { returned(api, &objects[..count]) }
    }
}

/// Whether a tensor's memory is compact row-major (no strides, or the strides of its
/// shape; dimensions of one element take any stride), as an input needing compact data
/// must be.
fn compact(t: &DLTensor) -> bool {
    if t.strides.is_null() || t.ndim <= 0 {
        return true;
    }
    // SAFETY: a DLTensor's `ndim` dimensions and strides.
    let (shape, strides) = unsafe {
        (core::slice::from_raw_parts(t.shape, t.ndim as usize), core::slice::from_raw_parts(t.strides, t.ndim as usize))
    };
    let mut expected = 1;
    for (&n, &s) in shape.iter().zip(strides).rev() {
        if n != 1 && s != expected {
            return false;
        }
        expected *= n;
    }
    true
}

/// What the op returns: `None` with no outputs, the output, or a tuple of them (taking
/// their references over); null with an error set when the tuple could not be made.
///
/// # Safety
/// The GIL is held; the caller gives up a reference to each output.
unsafe fn returned(api: &PyApi, outs: &[Obj]) -> Obj {
    // SAFETY: the GIL is held; the references are the caller's to give.
    unsafe {
        match outs {
            [] => {
                (api.inc_ref)(api.none);
                api.none
            }
            [one] => *one,
            many => {
                let tuple = (api.tuple_new)(many.len() as isize);
                if tuple.is_null() {
                    release(api, many);
                    return tuple;
                }
                for (i, &o) in many.iter().enumerate() {
                    tuple_set(tuple, i, o);
                }
                tuple
            }
        }
    }
}
