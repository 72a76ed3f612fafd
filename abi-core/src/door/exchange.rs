//! Tensors of frameworks with a DLPack C exchange API (torch 2.10 and newer:
//! `type(t).__dlpack_c_exchange_api__`, a capsule named `dlpack_exchange_api` holding a
//! `DLPackExchangeAPI*`), as `tvm_ffi` takes them: the API read once per Python type; each
//! tensor borrowed as a `DLTensor` (`dltensor_from_py_object_no_sync`); for the call, the
//! caller's stream of the first tensor not on the CPU (`current_work_stream`) and the
//! framework's tensor allocator set as the environment's and restored after it (so
//! `Tensor::empty` inside the export allocates the framework's memory); a tensor result
//! handed back through the same API (`managed_tensor_to_py_object_no_sync`), a torch
//! tensor for torch arguments.

use core::cell::UnsafeCell;
use core::ffi::{c_int, c_void};

use super::capi::{PyApi, PyObject};
use crate::env::{set_stream, set_tensor_allocator, AllocatorGuard, Stream, StreamGuard};
use crate::ffi::{
    cell_ptr, device_type, DLManagedTensorVersioned, DLPackVersion, DLTensor, Device, ObjectHeader, TensorAllocator,
};
use crate::value::object::{dec_ref, inc_ref};

type Obj = *mut PyObject;

/// `managed_tensor_to_py_object_no_sync`: the framework's tensor over a managed tensor (taken
/// over on success), a new reference; -1 with a Python error set on failure.
pub type ToPy = unsafe extern "C" fn(*mut DLManagedTensorVersioned, *mut *mut c_void) -> c_int;

/// `DLPackExchangeAPI` (dlpack.h, DLPack 1.3): its header, then the entry points.
#[repr(C)]
pub struct ExchangeApi {
    version: DLPackVersion,
    prev_api: *const c_void,
    allocator: Option<TensorAllocator>,
    managed_from_py: Option<unsafe extern "C" fn(*mut c_void, *mut *mut DLManagedTensorVersioned) -> c_int>,
    managed_to_py: Option<ToPy>,
    dltensor_from_py: Option<unsafe extern "C" fn(*mut c_void, *mut DLTensor) -> c_int>,
    current_work_stream: Option<unsafe extern "C" fn(c_int, i32, *mut *mut c_void) -> c_int>,
}

/// The exchange APIs met, by Python type (the type's address; each type is kept alive),
/// null for a type that has none. Read and written with the GIL held.
struct Known(UnsafeCell<Vec<(usize, *const ExchangeApi)>>);

// SAFETY: every access happens with the GIL held (one thread at a time).
unsafe impl Sync for Known {}

static KNOWN: Known = Known(UnsafeCell::new(Vec::new()));

/// The most types remembered; others are looked up on each call.
const MAX_KNOWN: usize = 16;

/// The exchange API of objects of type `ty`, `None` when it has none (or one of another
/// DLPack major version).
///
/// # Safety
/// The GIL is held; `ty` is a live type object.
unsafe fn exchange_api(api: &PyApi, ty: Obj) -> Option<&'static ExchangeApi> {
    // SAFETY: the GIL is held: no other thread touches the list.
    let known = unsafe { &mut *KNOWN.0.get() };
    let found = match known.iter().find(|(t, _)| *t == ty as usize) {
        Some(&(_, found)) => found,
        None => {
            // SAFETY: the GIL is held; `ty` is live.
            let found = unsafe { look_up(api, ty) };
            if known.len() < MAX_KNOWN {
                // SAFETY: kept alive for as long as the list names it.
                unsafe { (api.inc_ref)(ty) };
                known.push((ty as usize, found));
            }
            found
        }
    };
    // SAFETY: a capsule's API lives as long as its framework (for the process).
    unsafe { found.as_ref() }
}

/// `type.__dlpack_c_exchange_api__`'s API, null when there is none (no Python error left).
///
/// # Safety
/// The GIL is held; `ty` is a live type object.
#[cold]
unsafe fn look_up(api: &PyApi, ty: Obj) -> *const ExchangeApi {
    // SAFETY: the GIL is held; a failed lookup's error is cleared.
    unsafe {
        let attribute = (api.get_attr_string)(ty, c"__dlpack_c_exchange_api__".as_ptr());
        if attribute.is_null() {
            (api.err_clear)();
            return core::ptr::null();
        }
        // A capsule, or (as tvm_ffi also reads it) the API's address as an int.
        let found = if super::capi::type_of(attribute) == api.int_type {
            let mut overflow = 0;
            (api.long_as_long_long_and_overflow)(attribute, &mut overflow) as usize as *const ExchangeApi
        } else {
            (api.capsule_get_pointer)(attribute, c"dlpack_exchange_api".as_ptr()).cast::<ExchangeApi>().cast_const()
        };
        (api.dec_ref)(attribute);
        if found.is_null() {
            (api.err_clear)();
            return found;
        }
        if (*found).version.major != 1 {
            return core::ptr::null();
        }
        found
    }
}

/// A call's framework tensors: the exchange API they came through and the device whose
/// stream the call runs on.
#[derive(Default)]
pub struct Exchange {
    api: Option<&'static ExchangeApi>,
    device: Option<(Device, Stream)>,
    /// Whether a tensor given is not on the CPU.
    off_cpu: bool,
}

impl Exchange {
    /// Gets the tensor `obj` into `out` when its type has an exchange API: borrowed
    /// (`dltensor_from_py_object_no_sync`), or as a managed tensor written to `managed`,
    /// which the caller releases after the call (`managed_tensor_from_py_object_no_sync`,
    /// for a framework without the first). `None` (nothing held, no Python error left) when
    /// it has neither, or its framework refuses the object, or the tensor has no data (a
    /// fake tensor, which the package's wrapper names), or a second framework is met; else
    /// whether a managed tensor was written.
    ///
    /// # Safety
    /// The GIL is held; `obj` is alive for the call and `out` outlives every use of it;
    /// `managed` is writable.
    #[cold]
    pub unsafe fn take(
        &mut self,
        api: &PyApi,
        (obj, ty): (Obj, Obj),
        out: *mut DLTensor,
        managed: *mut *mut DLManagedTensorVersioned,
    ) -> Option<bool> {
        // SAFETY: the GIL is held; `ty` is `obj`'s type.
        let found = unsafe { exchange_api(api, ty) }?;
        if self.api.is_some_and(|a| !core::ptr::eq(a, found)) {
            return None;
        }
        // SAFETY: the framework's entries, with the GIL held; `out` and `managed` are
        // writable; a managed tensor's DLTensor lives until its deleter runs.
        unsafe {
            let (rc, is_managed) = match (found.dltensor_from_py, found.managed_from_py) {
                (Some(from_py), _) => (from_py(obj.cast(), out), false),
                (None, Some(from_py)) => (from_py(obj.cast(), managed), true),
                (None, None) => return None,
            };
            if rc != 0 {
                (api.err_clear)();
                return None;
            }
            if is_managed {
                out.write(DLTensor { ..(**managed).dl_tensor });
            }
            if (*out).data.is_null() {
                if is_managed {
                    DLManagedTensorVersioned::release(*managed);
                }
                return None;
            }
            self.took(api, found, (*out).device);
            Some(is_managed)
        }
    }

    /// Records a tensor on `device` taken from `found`'s framework: the framework, and the
    /// caller's stream of the first device that is not the CPU.
    ///
    /// # Safety
    /// The GIL is held.
    unsafe fn took(&mut self, api: &PyApi, found: &'static ExchangeApi, device: Device) {
        self.api = Some(found);
        if device.device_type == device_type::CPU {
            return;
        }
        self.off_cpu = true;
        if let (None, Some(current)) = (self.device, found.current_work_stream) {
            let mut stream = core::ptr::null_mut();
            // SAFETY: the framework's entry, with the GIL held.
            match unsafe { current(device.device_type, device.device_id, &mut stream) } {
                0 => self.device = Some((device, Stream::from_ptr(stream))),
                // SAFETY: the GIL is held.
                _ => unsafe { (api.err_clear)() },
            }
        }
    }

    /// Whether every framework tensor given is on the CPU.
    pub fn on_cpu(&self) -> bool {
        !self.off_cpu
    }

    /// The framework's tensor allocator and its converter back to Python, when it has both
    /// (what an op's outputs need).
    pub fn allocator(&self) -> Option<(TensorAllocator, ToPy)> {
        let found = self.api?;
        Some((found.allocator?, found.managed_to_py?))
    }

    /// Sets the caller's stream and the framework's allocator for the call, until the
    /// guards drop.
    #[inline]
    pub fn enter(&self) -> (Option<StreamGuard>, Option<AllocatorGuard>) {
        let stream = self.device.map(|(device, stream)| set_stream(device, stream));
        let allocator = self.api.and_then(|a| a.allocator).and_then(|a| set_tensor_allocator(Some(a), false).ok());
        (stream, allocator)
    }

    /// The framework's tensor over the Tensor object `tensor` (whose reference is taken
    /// over), or `Err(tensor)` when it has no way back (given back untouched) or its
    /// framework refused it (no Python error left).
    ///
    /// # Safety
    /// The GIL is held; `tensor` is a live Tensor object the caller owns a reference to.
    pub unsafe fn tensor(&self, api: &PyApi, tensor: *mut ObjectHeader) -> Result<Obj, *mut ObjectHeader> {
        let Some(to_py) = self.api.and_then(|a| a.managed_to_py) else { return Err(tensor) };
        // SAFETY: a Tensor object's cell is its DLTensor.
        let dl = unsafe { &*cell_ptr::<DLTensor>(tensor) };
        // SAFETY: the GIL is held; a new reference to the tensor goes with the managed one.
        unsafe { inc_ref(tensor) };
        let managed = Box::into_raw(Box::new(Exported {
            managed: DLManagedTensorVersioned {
                version: DLPackVersion { major: 1, minor: 1 },
                manager_ctx: core::ptr::null_mut(),
                deleter: Some(release_exported),
                flags: 0,
                dl_tensor: DLTensor { ..*dl },
            },
            tensor,
        }))
        .cast::<DLManagedTensorVersioned>();
        let mut out = core::ptr::null_mut();
        // SAFETY: the framework's entry, with the GIL held; it takes the managed tensor
        // over when it succeeds.
        if unsafe { to_py(managed, &mut out) } != 0 || out.is_null() {
            // SAFETY: the GIL is held; the managed tensor is still ours to release.
            unsafe {
                (api.err_clear)();
                release_exported(managed);
            }
            return Err(tensor);
        }
        // SAFETY: the caller's reference, now held by the managed tensor too.
        unsafe { dec_ref(tensor) };
        Ok(out.cast())
    }
}

/// A Tensor object handed out as a DLPack managed tensor: it holds a reference.
#[repr(C)]
struct Exported {
    managed: DLManagedTensorVersioned,
    tensor: *mut ObjectHeader,
}

/// The managed tensor's deleter: releases the reference and the struct.
unsafe extern "C" fn release_exported(managed: *mut DLManagedTensorVersioned) {
    // SAFETY: made by `Exchange::tensor` (`Exported` starts with the managed tensor), released
    // once.
    let exported = unsafe { Box::from_raw(managed.cast::<Exported>()) };
    // SAFETY: the reference the managed tensor held.
    unsafe { dec_ref(exported.tensor) };
}
