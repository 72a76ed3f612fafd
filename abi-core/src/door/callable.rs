//! The door's callable: one Python object per export, of a type made once from a spec,
//! called through vectorcall. A call binds its positional and keyword arguments to the
//! export's parameters, converts them ([`super::args`]), calls the export's packed shim,
//! and converts the result back ([`super::results`]); when it cannot (an argument it does
//! not convert, keywords it does not bind, a count the shim would refuse), it hands the
//! call unchanged to the package's `tvm_ffi` route (`fallback`), which gives the same
//! result and the same errors as before the door existed. A failed call raises through
//! `tvm_ffi` ([`abi_python_door_parked`]), so error classes and messages are `tvm_ffi`'s.

use core::cell::RefCell;
use core::ffi::{c_int, c_void, CStr};
use core::mem::MaybeUninit;
use core::ptr::null_mut;
use std::sync::OnceLock;

use super::args::{Frame, Takes};
use super::capi::{api, tuple_items, MemberDef, PyApi, PyObject, TypeSlot, TypeSpec};
use super::exchange::Exchange;
use super::ops::OpPlan;
use super::results::{converts, object_of};
use super::tensors::numpy_array;
use crate::ffi::result_sink::python_mark;
use crate::ffi::{type_index as ti, RawAny};
use crate::link::exports::Export;
use crate::reflect::TypeDesc;
use crate::runtime::calls::error_slot::{set_raised, take_raised_after};
use crate::value::any::Any;
use crate::value::error::Error;

type Obj = *mut PyObject;
type Vectorcall = unsafe extern "C" fn(Obj, *const Obj, usize, Obj) -> Obj;

/// The most parameters an export taking the door has; more keep the `tvm_ffi` route.
pub const MAX_PARAMS: usize = 16;

/// `PY_VECTORCALL_ARGUMENTS_OFFSET`: a flag in `nargsf`, not a count.
const ARGUMENTS_OFFSET: usize = 1 << (usize::BITS - 1);

/// One export behind the door.
pub struct DoorFn {
    /// The interpreter's C API (the installed table).
    api: &'static PyApi,
    pub(super) export: &'static Export,
    /// The package's function for the same export (owned).
    fallback: Obj,
    /// The Python parameters' names as interned `str` objects (owned), for keyword binding,
    /// and as text: the export's parameters in order, or an op's arguments then its
    /// outputs (keyword-only).
    names: Vec<Obj>,
    texts: Vec<&'static str>,
    /// The default values of the last parameters (owned), the wrapper's `__defaults__`, for
    /// a call whose keywords skip one; none for an op.
    defaults: Vec<Obj>,
    /// What each of the export's parameters takes, in its order.
    pub(super) takes: Vec<Takes>,
    release_gil: bool,
    /// The shim makes a `String` result a Python `str` itself (a result slot marked with
    /// [`python_mark`]): the result is a string and the GIL stays held for the call.
    python_str: bool,
    /// What the result slot holds before a call: None, marked when `python_str`.
    result_init: RawAny,
    /// The result may be a tensor: a call takes the door only when given a numpy array, and
    /// gets its tensor result as one ([`super::tensors`]).
    tensor_result: bool,
    /// An op's plan: how a call on numpy arrays allocates its outputs ([`super::ops`]).
    op: Option<OpPlan>,
}

/// The callable's layout: the object header, its vectorcall entry, its `__dict__` (the
/// package gives it the `tvm_ffi` route's `__doc__`, `__wrapped__`, names), its export.
#[repr(C)]
struct DoorObject {
    refcnt: isize,
    ty: Obj,
    vectorcall: Vectorcall,
    dict: Obj,
    /// Its weak references' list (`weakref.ref(pkg.f)`, as for a function).
    weaklist: Obj,
    door: *mut DoorFn,
}

impl DoorFn {
    /// The door for `export`, `None` when it keeps the `tvm_ffi` route: a parameter of a
    /// type whose values the door never converts (objects, callbacks, structs, lists:
    /// every call would pay for the door and then for the `tvm_ffi` route) or expanded into
    /// several slots, more than [`MAX_PARAMS`] parameters, a result type the door does not
    /// convert. Takes a reference to `fallback` and to each of `defaults`' items.
    ///
    /// # Safety
    /// The GIL is held; `fallback` is a live object; `defaults` is a tuple or `None`.
    unsafe fn new(
        api: &'static PyApi,
        export: &'static Export,
        (fallback, defaults): (Obj, Obj),
        release_gil: bool,
    ) -> Option<DoorFn> {
        let params = export.params();
        let ret = export.desc().ret;
        let numpy = !api.numpy_api.is_null() && !api.from_dlpack.is_null();
        if params.len() > MAX_PARAMS || !params.iter().all(Takes::serves) {
            return None;
        }
        let op = match export.op() {
            Some(op) => Some(OpPlan::of(op, params, ret, numpy)?),
            None if converts(ret, numpy) => None,
            None => return None,
        };
        let tensor_result = op.is_none() && !converts(ret, false);
        let texts = match &op {
            Some(plan) => plan.python_names(params),
            None => params.iter().map(|p| p.name).collect(),
        };
        let mut names = Vec::with_capacity(texts.len());
        for text in &texts {
            let name = std::ffi::CString::new(*text).ok()?;
            // SAFETY: the GIL is held; interning makes the name the keyword objects Python's
            // compiler writes, so binding compares pointers first.
            let interned = unsafe { (api.unicode_intern_from_string)(name.as_ptr()) };
            if interned.is_null() {
                // SAFETY: the GIL is held; the names are ours.
                unsafe {
                    (api.err_clear)();
                    release_all(api, &names);
                }
                return None;
            }
            names.push(interned);
        }
        // The wrapper's defaults, for a plain export with no more of them than parameters.
        let defaults = match defaults {
            // SAFETY: a tuple (the caller's guarantee).
            d if op.is_none() && d != api.none => unsafe { tuple_items(d) }.to_vec(),
            _ => Vec::new(),
        };
        if defaults.len() > names.len() {
            // SAFETY: the GIL is held; the names are ours.
            unsafe { release_all(api, &names) };
            return None;
        }
        // SAFETY: the GIL is held; `fallback` and the defaults are live.
        unsafe {
            (api.inc_ref)(fallback);
            defaults.iter().for_each(|&d| (api.inc_ref)(d));
        }
        let takes = params.iter().map(Takes::of).collect();
        let python_str = !release_gil && matches!(ret, TypeDesc::Str | TypeDesc::Optional(TypeDesc::Str));
        let result_init = if python_str { python_mark() } else { RawAny::NONE };
        Some(DoorFn {
            api,
            export,
            fallback,
            names,
            texts,
            defaults,
            takes,
            release_gil,
            python_str,
            result_init,
            tensor_result,
            op,
        })
    }

    /// The parameter a keyword names.
    ///
    /// # Safety
    /// The GIL is held; `key` is a live `str`.
    unsafe fn param_of(&self, api: &PyApi, key: Obj) -> Option<usize> {
        if let Some(i) = self.names.iter().position(|&n| n == key) {
            return Some(i);
        }
        let mut len = 0isize;
        // SAFETY: a live str; a failure (lone surrogates) is cleared and binds nothing.
        let p = unsafe { (api.unicode_as_utf8_and_size)(key, &mut len) };
        if p.is_null() {
            // SAFETY: the GIL is held.
            unsafe { (api.err_clear)() };
            return None;
        }
        // SAFETY: `len` bytes at `p`.
        let key = unsafe { core::slice::from_raw_parts(p.cast::<u8>(), len as usize) };
        self.texts.iter().position(|t| t.as_bytes() == key)
    }

    /// The Python parameters' arguments of a call with keywords (null where none is given,
    /// a parameter's default where the keywords skip one that has it, borrowed from the
    /// door), and how many leading parameters they reach; `None` when more than
    /// `positional` are positional, a keyword names no parameter or one given already, they
    /// leave a gap among the first `dense` parameters, or fill fewer than `required`.
    ///
    /// # Safety
    /// The GIL is held; `args` holds `nargs` positional then `kwnames`' length keyword values.
    #[inline(always)]
    pub(super) unsafe fn bind(
        &self,
        api: &PyApi,
        (args, nargs, kwnames): (*const Obj, usize, Obj),
        positional: usize,
        (required, dense): (usize, usize),
    ) -> Option<([Obj; MAX_PARAMS], usize)> {
        // SAFETY: the call's tuple of keyword names.
        let keywords = unsafe { tuple_items(kwnames) };
        if nargs > positional || nargs + keywords.len() > self.names.len() {
            return None;
        }
        let mut bound: [Obj; MAX_PARAMS] = [null_mut(); MAX_PARAMS];
        // SAFETY: `args` holds `nargs` positional values then one per keyword.
        let values = unsafe { core::slice::from_raw_parts(args, nargs + keywords.len()) };
        bound[..nargs].copy_from_slice(&values[..nargs]);
        let mut used = nargs;
        for (&key, &value) in keywords.iter().zip(&values[nargs..]) {
            // SAFETY: keyword names are live str objects.
            let i = unsafe { self.param_of(api, key) }?;
            if !bound[i].is_null() {
                return None;
            }
            bound[i] = value;
            used = used.max(i + 1);
        }
        // Each argument filled one parameter: fewer than `used` leave a gap.
        if used > values.len() {
            self.fill_defaults(&mut bound[..used]);
        }
        if used < required || bound[..used.min(dense)].iter().any(|o| o.is_null()) {
            return None;
        }
        Some((bound, used))
    }

    /// Fills the parameters of `bound` no argument gave with their defaults (borrowed from
    /// the door), out of the calls' way; those without one stay null.
    #[cold]
    #[inline(never)]
    fn fill_defaults(&self, bound: &mut [Obj]) {
        let first_default = self.names.len() - self.defaults.len();
        for (i, slot) in bound.iter_mut().enumerate().skip(first_default) {
            if slot.is_null() {
                *slot = self.defaults[i - first_default];
            }
        }
    }

    /// Calls the export's shim on `count` slots at `slots`: the GIL released around it when
    /// the export says so, and a framework's stream and allocator set for it when its
    /// tensors were given (`frame`). Returns the shim's code.
    ///
    /// # Safety
    /// The GIL is held; `slots` holds `count` initialized slots whose borrows outlive the
    /// call; `result` is writable.
    #[inline(always)]
    pub(super) unsafe fn invoke(
        &self,
        api: &PyApi,
        frame: &Frame<'_>,
        slots: *const RawAny,
        count: usize,
        result: &mut RawAny,
    ) -> i32 {
        if let Some(exchange) = frame.framework() {
            // SAFETY: the caller's guarantee.
            return unsafe { self.invoke_in_framework(api, exchange, slots, count, result) };
        }
        // SAFETY: the caller's guarantee.
        unsafe { self.shim(api, slots, count, result) }
    }

    /// [`DoorFn::invoke`] with a framework's stream and allocator set for the call, out of
    /// the plain calls' way.
    ///
    /// # Safety
    /// As for [`DoorFn::invoke`].
    #[cold]
    #[inline(never)]
    unsafe fn invoke_in_framework(
        &self,
        api: &PyApi,
        exchange: &Exchange,
        slots: *const RawAny,
        count: usize,
        result: &mut RawAny,
    ) -> i32 {
        let _environment = exchange.enter();
        // SAFETY: the caller's guarantee.
        unsafe { self.shim(api, slots, count, result) }
    }

    /// The export's shim on `count` slots, the GIL released around it when the export says
    /// so.
    ///
    /// # Safety
    /// As for [`DoorFn::invoke`].
    #[inline(always)]
    unsafe fn shim(&self, api: &PyApi, slots: *const RawAny, count: usize, result: &mut RawAny) -> i32 {
        // SAFETY: the GIL is held when saved and taken back on this thread.
        let saved = if self.release_gil { unsafe { (api.save_thread)() } } else { null_mut() };
        // SAFETY: the export's own shim, with `count` initialized slots it borrows.
        let rc = unsafe { (self.export.safe_call)(null_mut(), slots, count as i32, result) };
        if !saved.is_null() {
            // SAFETY: taken back on the thread that released it.
            unsafe { (api.restore_thread)(saved) };
        }
        rc
    }

    /// The call through the door, `None` when it takes the `tvm_ffi` route instead (before
    /// anything ran).
    ///
    /// # Safety
    /// The GIL is held; `args` holds `nargs` positional then `kwnames`' length keyword values.
    #[inline]
    unsafe fn call(&self, api: &PyApi, args: *const Obj, nargs: usize, kwnames: Obj) -> Option<Obj> {
        let mut frame = Frame::new(api);
        let mut slots = [const { MaybeUninit::<RawAny>::uninit() }; MAX_PARAMS];
        let used = if kwnames.is_null() {
            // Positional only: each argument is its parameter's.
            if nargs > self.takes.len() || nargs < self.export.required_slots as usize {
                return None;
            }
            for (i, slot) in slots.iter_mut().enumerate().take(nargs) {
                // SAFETY: `args` holds `nargs` live values; the frame outlives the shim's call.
                slot.write(unsafe { frame.slot(i, *args.add(i), self.takes[i]) }?);
            }
            nargs
        } else {
            let (n, required) = (self.names.len(), self.export.required_slots as usize);
            // SAFETY: the GIL is held; `args` and `kwnames` are this call's.
            let (bound, used) = unsafe { self.bind(api, (args, nargs, kwnames), n, (required, n)) }?;
            for (i, slot) in slots.iter_mut().enumerate().take(used) {
                // SAFETY: a live argument of this call; the frame outlives the shim's call.
                slot.write(unsafe { frame.slot(i, bound[i], self.takes[i]) }?);
            }
            used
        };
        // SAFETY: the first `used` slots are written.
        let given = unsafe { core::slice::from_raw_parts(slots.as_ptr().cast::<RawAny>(), used) };
        if self.tensor_result && (!given.iter().any(|s| s.type_index == ti::DL_TENSOR_PTR) || frame.mixes_arrays(given))
        {
            // No array given: the result stays a tvm_ffi.Tensor, as before; a framework's
            // tensor and a numpy array: the tvm_ffi route's to decide.
            return None;
        }
        let mut result = self.result_init;
        // SAFETY: the GIL is held; `used` initialized slots the shim borrows for the call.
        let rc = unsafe { self.invoke(api, &frame, slots.as_ptr().cast(), used, &mut result) };
        if rc != 0 {
            // SAFETY: the GIL is held; the parked error is raised through tvm_ffi.
            return Some(unsafe { raise(api, take_raised_after(rc)) });
        }
        match result.type_index {
            // SAFETY: the result owns one reference to a Tensor object; the GIL is held.
            ti::TENSOR if !result.ptr().is_null() => Some(unsafe { tensor_result(api, &frame, result.ptr().cast()) }),
            // The `str` the shim made for the marked slot (`results::python_str`).
            ti::OPAQUE_PTR if self.python_str => Some(result.ptr().cast()),
            // SAFETY: the shim's result; the GIL is held.
            _ => Some(unsafe { object_of(api, result) }),
        }
    }
}

/// A tensor result as the caller's framework's tensor (a framework's tensors in), else as a
/// numpy array (numpy in, numpy out), else as `tvm_ffi` gives it and `numpy.from_dlpack`
/// takes it, as the package's `tvm_ffi` route does.
///
/// # Safety
/// The GIL is held; `tensor` is a Tensor object the caller gives its reference to.
#[inline(never)]
unsafe fn tensor_result(api: &PyApi, frame: &Frame<'_>, tensor: *mut crate::ffi::ObjectHeader) -> Obj {
    // SAFETY: the caller's guarantee; a tensor given back comes back as tvm_ffi's.
    unsafe {
        let parked = |tensor: *mut crate::ffi::ObjectHeader| {
            through_tvm_ffi(api, Parked::Result(Any::from_raw(RawAny::from_ptr(ti::TENSOR, tensor.cast()))))
        };
        if let Some(exchange) = frame.framework() {
            // A framework's tensors in, its tensor out (`tvm_ffi.Tensor` when it refuses).
            return exchange.tensor(api, tensor).unwrap_or_else(parked);
        }
        match numpy_array(api, tensor) {
            Ok(array) => array,
            Err(tensor) => {
                let tensor = parked(tensor);
                if tensor.is_null() {
                    return tensor;
                }
                let array = (api.vectorcall)(api.from_dlpack, &tensor, 1, null_mut());
                (api.dec_ref)(tensor);
                array
            }
        }
    }
}

/// What a call through the door hands to `tvm_ffi` to convert: its error, or a result the
/// door does not convert itself.
enum Parked {
    Error(Error),
    Result(Any),
}

thread_local! {
    /// This thread's parked error or result, until [`abi_python_door_parked`] hands it to
    /// `tvm_ffi`.
    static PARKED: RefCell<Option<Parked>> = const { RefCell::new(None) };
}

/// Raises `error` as the `tvm_ffi` route raises it (null, the exception set).
///
/// # Safety
/// The GIL is held.
pub(super) unsafe fn raise(api: &PyApi, error: Error) -> Obj {
    // SAFETY: the caller's guarantee.
    unsafe { through_tvm_ffi(api, Parked::Error(error)) }
}

/// Parks `value` and calls the package's `tvm_ffi` function over
/// [`abi_python_door_parked`]: its Python result, or null with its exception set.
///
/// # Safety
/// The GIL is held.
unsafe fn through_tvm_ffi(api: &PyApi, value: Parked) -> Obj {
    PARKED.with(|p| *p.borrow_mut() = Some(value));
    // SAFETY: the GIL is held; a call with no arguments.
    unsafe { (api.vectorcall)(api.parked, null_mut(), 0, null_mut()) }
}

/// The packed function behind the package's `tvm_ffi` function for parked values: returns
/// the result, or raises the error, the door parked on this thread (the one a call just
/// gave), so `tvm_ffi` converts it exactly as for a call through its own route.
///
/// # Safety
/// A packed function's contract; it reads none of its arguments, and writes `result` when
/// it returns 0.
#[no_mangle]
pub unsafe extern "C" fn abi_python_door_parked(_: *mut c_void, _: *const RawAny, _: i32, result: *mut RawAny) -> i32 {
    match PARKED.with(|p| p.borrow_mut().take()) {
        Some(Parked::Result(value)) if !result.is_null() => {
            // SAFETY: writable (the contract); the caller takes the reference over.
            unsafe { result.write(value.into_raw()) };
            0
        }
        Some(Parked::Error(error)) => {
            set_raised(error);
            -1
        }
        _ => {
            set_raised(Error::runtime_error("abi: no call through the Python door parked a value"));
            -1
        }
    }
}

/// The vectorcall entry of every door callable: of an op's when `OP`.
unsafe extern "C" fn door_call<const OP: bool>(callable: Obj, args: *const Obj, nargsf: usize, kwnames: Obj) -> Obj {
    // SAFETY: `callable` is a door object (only its type has this entry), whose door lives as
    // long as it, with an op's plan when `OP`; the table was installed before any door
    // object existed.
    unsafe {
        let door = &*(*callable.cast::<DoorObject>()).door;
        let api = door.api;
        let nargs = nargsf & !ARGUMENTS_OFFSET;
        let call = std::panic::AssertUnwindSafe(|| match &door.op {
            Some(plan) if OP => door.call_op(plan, api, (args, nargs, kwnames)),
            _ if OP => None,
            _ => door.call(api, args, nargs, kwnames),
        });
        let fast = std::panic::catch_unwind(call).ok().flatten();
        match fast {
            Some(result) => result,
            None => (api.vectorcall)(door.fallback, args, nargsf, kwnames),
        }
    }
}

/// `tp_descr_get`: the callable itself, so a class attribute stays unbound as a function's
/// would not, and `inspect.isroutine` sees a routine (`help()` documents it as one).
unsafe extern "C" fn descr_get(this: Obj, _: Obj, _: Obj) -> Obj {
    // SAFETY: a live object; the GIL is held.
    unsafe { (api().unwrap_unchecked().inc_ref)(this) };
    this
}

/// `tp_dealloc`: releases the dict and the door, frees the object, releases the type.
unsafe extern "C" fn dealloc(this: Obj) {
    // SAFETY: the object is ours and dying; the GIL is held.
    unsafe {
        let api = api().unwrap_unchecked();
        let object = this.cast::<DoorObject>();
        let (ty, dict, door) = ((*object).ty, (*object).dict, (*object).door);
        if !(*object).weaklist.is_null() {
            (api.clear_weak_refs)(this);
        }
        if !dict.is_null() {
            (api.dec_ref)(dict);
        }
        if !door.is_null() {
            let door = Box::from_raw(door);
            (api.dec_ref)(door.fallback);
            release_all(api, &door.names);
            release_all(api, &door.defaults);
        }
        (api.object_free)(this.cast());
        (api.dec_ref)(ty);
    }
}

/// Releases a reference to each of `objects`.
///
/// # Safety
/// The GIL is held; each is a live object whose reference the caller gives up.
pub(super) unsafe fn release_all(api: &PyApi, objects: &[Obj]) {
    for &o in objects {
        // SAFETY: the caller's guarantee.
        unsafe { (api.dec_ref)(o) };
    }
}

struct TypePtr(Obj);
// SAFETY: a type object that lives for the process, used with the GIL held.
unsafe impl Send for TypePtr {}
// SAFETY: see above.
unsafe impl Sync for TypePtr {}

/// The callables' type, made on first use (null if the interpreter refused the spec).
///
/// # Safety
/// The GIL is held.
unsafe fn door_type(api: &PyApi) -> Obj {
    static TYPE: OnceLock<TypePtr> = OnceLock::new();
    TYPE.get_or_init(|| {
        const T_PYSSIZET: c_int = 19;
        const READONLY: c_int = 1;
        const VERSION_TAG: u32 = 1 << 18;
        const HAVE_VECTORCALL: u32 = 1 << 11;
        let member = |name: &'static CStr, offset: usize| MemberDef {
            name: name.as_ptr(),
            kind: T_PYSSIZET,
            offset: offset as isize,
            flags: READONLY,
            doc: core::ptr::null(),
        };
        let members = Box::leak(Box::new([
            member(c"__vectorcalloffset__", core::mem::offset_of!(DoorObject, vectorcall)),
            member(c"__dictoffset__", core::mem::offset_of!(DoorObject, dict)),
            member(c"__weaklistoffset__", core::mem::offset_of!(DoorObject, weaklist)),
            MemberDef { name: core::ptr::null(), kind: 0, offset: 0, flags: 0, doc: core::ptr::null() },
        ]));
        let slot = |slot: c_int, pfunc: *mut c_void| TypeSlot { slot, pfunc };
        let slots = Box::leak(Box::new([
            slot(50, api.vectorcall_call as *mut c_void),
            slot(52, dealloc as *mut c_void),
            slot(54, descr_get as *mut c_void),
            slot(72, members.as_mut_ptr().cast()),
            slot(0, null_mut()),
        ]));
        let mut spec = TypeSpec {
            name: c"abi.function".as_ptr(),
            basicsize: core::mem::size_of::<DoorObject>() as c_int,
            itemsize: 0,
            flags: VERSION_TAG | HAVE_VECTORCALL,
            slots: slots.as_mut_ptr(),
        };
        // SAFETY: the GIL is held; the spec's members and slots live for the process.
        let ty = unsafe { (api.type_from_spec)(&mut spec) };
        if ty.is_null() {
            // SAFETY: the GIL is held.
            unsafe { (api.err_clear)() };
        }
        TypePtr(ty)
    })
    .0
}

/// A new door callable for `export` (a new reference), null when it keeps the `tvm_ffi`
/// route.
///
/// # Safety
/// The GIL is held; `fallback` is a live object; `defaults` is a tuple or `None`.
pub unsafe fn new_callable(
    api: &'static PyApi,
    export: &'static Export,
    (fallback, defaults): (Obj, Obj),
    release_gil: bool,
) -> Obj {
    // SAFETY: the GIL is held (the caller's guarantee).
    unsafe {
        let ty = door_type(api);
        if ty.is_null() {
            return null_mut();
        }
        let Some(door) = DoorFn::new(api, export, (fallback, defaults), release_gil) else { return null_mut() };
        let object = (api.type_generic_alloc)(ty, 0);
        if object.is_null() {
            (api.err_clear)();
            (api.dec_ref)(door.fallback);
            release_all(api, &door.names);
            release_all(api, &door.defaults);
            return null_mut();
        }
        let fields = object.cast::<DoorObject>();
        let entry: Vectorcall = if door.op.is_some() { door_call::<true> } else { door_call::<false> };
        core::ptr::addr_of_mut!((*fields).vectorcall).write(entry);
        core::ptr::addr_of_mut!((*fields).door).write(Box::into_raw(Box::new(door)));
        object
    }
}
