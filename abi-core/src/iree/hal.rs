//! The HAL module's own VM functions, which a module whose functions take or return tensors
//! imports (IREE-TENSORS facts in docs/IREE-DYNAMIC-MODULE.md): the import table with each
//! calling convention, their resolution at load (a convention that differs is refused,
//! naming the import), and typed calls through the resolved functions with the stack of
//! the call in progress. A failed import's status is passed through to the program as is.

use core::ffi::c_void;
use std::sync::{Mutex, OnceLock};

use crate::iree::refs::{RawRef, VmRef};
use crate::iree::status::Failure;
use crate::iree::vm::{ByteSpan, Function, FunctionCall, Module, Status};
use crate::value::error::Error;

/// One imported HAL function: its full name and calling convention.
#[derive(Clone, Copy, Debug)]
pub struct Import {
    /// `hal.buffer_view.rank`.
    pub name: &'static str,
    /// `0r_i`.
    pub cconv: &'static str,
}

macro_rules! imports {
    ($($id:ident = $name:literal $cconv:literal;)*) => {
        /// The ordinals of the imports, in [`IMPORTS`] order.
        #[allow(non_camel_case_types, clippy::upper_case_acronyms)]
        #[derive(Clone, Copy, Debug)]
        #[repr(usize)]
        enum Ordinal { $($id),* }

        /// Every HAL function the module imports, by ordinal.
        pub const IMPORTS: &[Import] = &[$(Import { name: $name, cconv: $cconv }),*];
    };
}

imports! {
    ELEMENT_TYPE = "hal.buffer_view.element_type" "0r_i";
    RANK = "hal.buffer_view.rank" "0r_i";
    DIM = "hal.buffer_view.dim" "0ri_I";
    VIEW_BUFFER = "hal.buffer_view.buffer" "0r_r";
    VIEW_CREATE = "hal.buffer_view.create" "0rIIiiCID_r";
    BUFFER_LENGTH = "hal.buffer.length" "0r_I";
    BUFFER_LOAD = "hal.buffer.load" "0rIi_i";
    BUFFER_STORE = "hal.buffer.store" "0irIi_v";
    DEVICES_GET = "hal.devices.get" "0i_r";
    DEVICE_ALLOCATOR = "hal.device.allocator" "0r_r";
    ALLOCATE = "hal.allocator.allocate" "0rIiiI_r";
}

/// The module the imports come from, and the oldest version tested.
pub const MODULE: &str = "hal";
/// `hal` version 6 is the oldest with every import above (3.13 reports 7).
pub const MINIMUM_VERSION: u32 = 6;

/// The resolved imports: collected one by one at load, published once all are in; and
/// how tensor bytes move (`abi.mapping`).
#[derive(Debug, Default)]
pub struct Resolved {
    pending: Mutex<[Option<Function>; IMPORT_COUNT]>,
    ready: OnceLock<Hal>,
    /// Whether buffers may be mapped through the pinned layout.
    mapping: bool,
}

// SAFETY: the functions point into the HAL module, which outlives every context using it;
// calls through them run on the thread the host calls the module on.
unsafe impl Send for Resolved {}
// SAFETY: as above; the pending list is behind a mutex and `ready` is set once.
unsafe impl Sync for Resolved {}

impl Resolved {
    /// No imports yet; `mapping` as the module parameter says.
    pub fn new(mapping: bool) -> Resolved {
        Resolved { mapping, ..Resolved::default() }
    }

    /// Records import `ordinal`, after checking the convention the host resolved it to.
    /// The error names the import and both conventions.
    pub fn resolve(&self, ordinal: usize, function: Function, cconv: &[u8]) -> Result<(), String> {
        let Some(import) = IMPORTS.get(ordinal) else {
            return Err(format!("no import #{ordinal} (the module imports {} HAL functions)", IMPORTS.len()));
        };
        if !cconv.is_empty() && cconv != import.cconv.as_bytes() {
            return Err(format!(
                "{} has calling convention {} in the loaded HAL module, but this module was built for {} (IREE 3.13)",
                import.name,
                String::from_utf8_lossy(cconv),
                import.cconv
            ));
        }
        if let Some(hal) = self.ready.get() {
            let same = hal.functions[ordinal];
            if same.module != function.module || same.ordinal != function.ordinal {
                return Err(
                    "the module is already bound to another context's HAL module: load one instance per context".into(),
                );
            }
            return Ok(());
        }
        let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        pending[ordinal] = Some(function);
        if pending.iter().all(Option::is_some) {
            let functions = core::array::from_fn(|i| pending[i].expect("checked"));
            let _ = self.ready.set(Hal { functions });
        }
        Ok(())
    }

    /// The imports, once every one is resolved.
    pub fn get(&self) -> Option<&Hal> {
        self.ready.get()
    }
}

/// The resolved HAL functions.
#[derive(Debug)]
pub struct Hal {
    functions: [Function; IMPORT_COUNT],
}

const IMPORT_COUNT: usize = IMPORTS.len();

/// What a function running in an IREE call can reach: the module's HAL imports and the VM
/// stack of the call, which calls into them must use. Two words, passed in registers.
#[derive(Clone, Copy, Debug)]
pub struct HalCall<'m> {
    /// Read when a HAL function is first called: scalar calls never touch it.
    imports: &'m Resolved,
    stack: *mut c_void,
}

#[repr(C)]
struct RefI32 {
    r: RawRef,
    i: i32,
}

#[repr(C)]
struct I32RefI64I32 {
    value: i32,
    r: RawRef,
    offset: i64,
    length: i32,
}

#[repr(C)]
struct RefI64I32 {
    r: RawRef,
    offset: i64,
    length: i32,
}

#[repr(C)]
struct Allocate {
    allocator: RawRef,
    queue_affinity: i64,
    memory_types: i32,
    buffer_usage: i32,
    size: i64,
}

/// `hal.buffer_view.create`'s fixed head; `rank` i64 dims follow.
#[repr(C)]
struct CreateHead {
    buffer: RawRef,
    offset: i64,
    length: i64,
    element_type: i32,
    encoding_type: i32,
    rank: i32,
}

static_assertions::const_assert_eq!(core::mem::size_of::<RefI32>(), 24);
static_assertions::const_assert_eq!(core::mem::size_of::<I32RefI64I32>(), 40);
static_assertions::const_assert_eq!(core::mem::size_of::<RefI64I32>(), 32);
static_assertions::const_assert_eq!(core::mem::size_of::<Allocate>(), 40);
static_assertions::const_assert_eq!(core::mem::size_of::<CreateHead>(), 48);

/// `IREE_HAL_MEMORY_TYPE_HOST_VISIBLE`.
pub const HOST_VISIBLE: u32 = 1 << 1;
/// `IREE_HAL_MEMORY_TYPE_HOST_COHERENT`.
pub const HOST_COHERENT: u32 = 1 << 2;
/// `IREE_HAL_MEMORY_TYPE_DEVICE_LOCAL`.
const DEVICE_LOCAL: u32 = 0x30;
/// Transfer, dispatch storage, scoped mapping with sequential writes.
const RESULT_USAGE: u32 = 0x3 | 0xC00 | (1 << 24) | (1 << 28);
/// `IREE_HAL_ENCODING_TYPE_DENSE_ROW_MAJOR`.
const DENSE_ROW_MAJOR: i32 = 1;

#[cold]
#[inline(never)]
fn unresolved() -> Failure {
    Failure::Error(Error::runtime_error(
        "the module's HAL imports are not resolved: load it with the HAL module (iree-run-module does)",
    ))
}

impl<'m> HalCall<'m> {
    /// The context of a call `begin_call` received.
    pub fn new(imports: &'m Resolved, stack: *mut c_void) -> HalCall<'m> {
        HalCall { imports, stack }
    }

    /// The resolved imports, to call (once per tensor, not once per import call).
    #[inline(always)]
    pub fn bind(&self) -> Result<Bound<'m>, Failure> {
        match self.imports.get() {
            Some(hal) => Ok(Bound { hal, stack: self.stack, mapping: self.imports.mapping }),
            None => Err(unresolved()),
        }
    }
}

/// The HAL functions of a call in progress, resolved.
#[derive(Clone, Copy, Debug)]
pub struct Bound<'m> {
    hal: &'m Hal,
    stack: *mut c_void,
    mapping: bool,
}

impl Bound<'_> {
    /// Whether buffers may be mapped through the pinned layout (`abi.mapping`).
    pub fn mapping(&self) -> bool {
        self.mapping
    }

    /// Calls import `which` with `args`, filling `results`.
    #[inline(always)]
    fn call<A, R>(&self, which: Ordinal, args: &A, results: &mut R) -> Result<(), Failure> {
        self.call_bytes(which, (args as *const A).cast(), size_of::<A>(), results, size_of::<R>())
    }

    #[inline(always)]
    fn call_bytes<R>(
        &self,
        which: Ordinal,
        args: *const u8,
        args_len: usize,
        results: &mut R,
        results_len: usize,
    ) -> Result<(), Failure> {
        let function = self.hal.functions[which as usize];
        let call = FunctionCall {
            function,
            arguments: ByteSpan { data: args.cast_mut(), data_length: args_len },
            results: ByteSpan { data: (results as *mut R).cast(), data_length: results_len },
        };
        // SAFETY: a function the host resolved for this context, called on the stack of the
        // call in progress (as IREE's own modules call imports), with buffers laid out by its
        // calling convention (checked at resolution).
        let status: Status = unsafe {
            let module: *const Module = function.module;
            ((*module).begin_call)((*module).self_, self.stack, call)
        };
        if status != 0 {
            return Err(Failure::Status(status));
        }
        Ok(())
    }

    #[inline(always)]
    fn call_ref<A>(&self, which: Ordinal, args: &A) -> Result<VmRef, Failure> {
        let mut out = RawRef::NULL;
        self.call(which, args, &mut out)?;
        // SAFETY: ref results are moved to the caller.
        Ok(unsafe { VmRef::from_owned(out) })
    }

    /// `hal.buffer_view.element_type`.
    #[inline(always)]
    pub fn element_type(&self, view: RawRef) -> Result<u32, Failure> {
        let mut out = 0i32;
        self.call(Ordinal::ELEMENT_TYPE, &view, &mut out)?;
        Ok(out as u32)
    }

    /// `hal.buffer_view.rank`.
    #[inline(always)]
    pub fn rank(&self, view: RawRef) -> Result<usize, Failure> {
        let mut out = 0i32;
        self.call(Ordinal::RANK, &view, &mut out)?;
        Ok(out.max(0) as usize)
    }

    /// `hal.buffer_view.dim`.
    #[inline(always)]
    pub fn dim(&self, view: RawRef, i: usize) -> Result<i64, Failure> {
        let mut out = 0i64;
        self.call(Ordinal::DIM, &RefI32 { r: view, i: i as i32 }, &mut out)?;
        Ok(out)
    }

    /// `hal.buffer_view.buffer` (owned).
    #[inline(always)]
    pub fn buffer(&self, view: RawRef) -> Result<VmRef, Failure> {
        self.call_ref(Ordinal::VIEW_BUFFER, &view)
    }

    /// `hal.buffer.length`.
    #[inline(always)]
    pub fn length(&self, buffer: RawRef) -> Result<u64, Failure> {
        let mut out = 0i64;
        self.call(Ordinal::BUFFER_LENGTH, &buffer, &mut out)?;
        Ok(out as u64)
    }

    /// `hal.buffer.load`: up to 4 bytes at `offset`, little-endian in an i32.
    pub fn load(&self, buffer: RawRef, offset: u64, length: usize) -> Result<u32, Failure> {
        let mut out = 0i32;
        self.call(
            Ordinal::BUFFER_LOAD,
            &RefI64I32 { r: buffer, offset: offset as i64, length: length as i32 },
            &mut out,
        )?;
        Ok(out as u32)
    }

    /// `hal.buffer.store`: up to 4 bytes of `value` at `offset`.
    pub fn store(&self, buffer: RawRef, offset: u64, length: usize, value: u32) -> Result<(), Failure> {
        let args = I32RefI64I32 { value: value as i32, r: buffer, offset: offset as i64, length: length as i32 };
        self.call(Ordinal::BUFFER_STORE, &args, &mut ())
    }

    /// A new buffer of `size` bytes on device 0, device-local and host-visible (owned).
    pub fn allocate(&self, size: u64) -> Result<VmRef, Failure> {
        let device = self.call_ref(Ordinal::DEVICES_GET, &0i32)?;
        let allocator = self.call_ref(Ordinal::DEVICE_ALLOCATOR, &device.raw())?;
        let args = Allocate {
            allocator: allocator.raw(),
            queue_affinity: -1,
            memory_types: (DEVICE_LOCAL | HOST_VISIBLE) as i32,
            buffer_usage: RESULT_USAGE as i32,
            size: size as i64,
        };
        self.call_ref(Ordinal::ALLOCATE, &args)
    }

    /// A dense row-major view of `length` bytes of `buffer` (owned; it retains the buffer).
    pub fn create_view(&self, buffer: RawRef, length: u64, element_type: u32, shape: &[i64]) -> Result<VmRef, Failure> {
        let head = CreateHead {
            buffer,
            offset: 0,
            length: length as i64,
            element_type: element_type as i32,
            encoding_type: DENSE_ROW_MAJOR,
            rank: shape.len() as i32,
        };
        // The head, then the dims (8-aligned: the head is 48 bytes).
        let mut args = vec![0u64; size_of::<CreateHead>() / 8 + shape.len()];
        // SAFETY: `args` has room for the head and the dims, and is 8-aligned.
        unsafe {
            args.as_mut_ptr().cast::<CreateHead>().write(head);
            let dims = args.as_mut_ptr().add(size_of::<CreateHead>() / 8).cast::<i64>();
            core::ptr::copy_nonoverlapping(shape.as_ptr(), dims, shape.len());
        }
        let mut out = RawRef::NULL;
        self.call_bytes(Ordinal::VIEW_CREATE, args.as_ptr().cast(), args.len() * 8, &mut out, size_of::<RawRef>())?;
        // SAFETY: ref results are moved to the caller.
        Ok(unsafe { VmRef::from_owned(out) })
    }
}
