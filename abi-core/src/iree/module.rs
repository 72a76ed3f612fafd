//! The module `iree_module!` creates: the interface entries IREE calls (lookup by name with
//! the calling convention checked, calls with their buffers checked against the
//! convention's sizes before use), errors and panics turned into statuses, and creation
//! with its version and parameter checks. Nothing unwinds into the host. When a function
//! takes or returns tensors, the module depends on `hal` and imports its functions
//! (`hal::IMPORTS`), resolved at load.

use core::ffi::c_void;
use core::sync::atomic::AtomicI32;
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::iree::hal::{self, HalCall, Resolved, IMPORTS};
use crate::iree::status::{code, failure, from_error, here, Failure, Messages};
use crate::iree::vm::{
    linkage, Allocator, ByteSpan, Dependency, DependencyCallback, Function, FunctionCall, FunctionSignature, Module,
    ModuleSignature, Status, StringPair, StringView, DEPENDENCY_REQUIRED,
};
use crate::iree::{IreeFunction, IREE_FUNCTIONS};
use crate::runtime::calls::boundary::panic_message;
use crate::runtime::process::linked::{linked, sorted_by_name};

/// The interface version this module implements (`IREE_VM_DYNAMIC_MODULE_VERSION_0_1`).
pub const INTERFACE_VERSION: u32 = 1;

/// The module parameter choosing how failures are reported.
pub const MESSAGES_PARAM: &str = "abi.messages";

/// The module parameter choosing how tensor bytes move (`on`: mapped, `off`: copied through
/// `hal.buffer.load`/`store`).
pub const MAPPING_PARAM: &str = "abi.mapping";

/// The interface and the state behind it, in one allocation.
#[repr(C)]
struct ModuleBox {
    iface: Module,
    name: &'static str,
    functions: Vec<&'static IreeFunction>,
    params: Params,
    /// Whether a function takes or returns tensors: the module then imports HAL functions.
    uses_hal: bool,
    imports: Resolved,
}

/// The module's parameters (`lib.so@entry?abi.messages=off&abi.mapping=off`).
#[derive(Clone, Copy, Debug)]
struct Params {
    messages: Messages,
    mapping: bool,
}

/// Creates the module `name` (what `iree_module!`'s entry point runs).
///
/// # Safety
/// `params` points to `param_count` pairs (or is null when there are none); `out` is
/// writable or null.
pub unsafe fn create(
    name: &'static str,
    max_version: u32,
    param_count: usize,
    params: *const StringPair,
    out: *mut *mut Module,
) -> Status {
    let at = here!();
    let run = || {
        if out.is_null() {
            let message = format!("module `{name}`: null output pointer");
            return failure(code::INVALID_ARGUMENT, &message, at, Messages::InStatus);
        }
        if max_version != INTERFACE_VERSION {
            let message = format!(
                "module `{name}` implements the IREE dynamic module interface version {INTERFACE_VERSION}; the host asked for version {max_version}"
            );
            return failure(code::FAILED_PRECONDITION, &message, at, Messages::InStatus);
        }
        // SAFETY: the caller's contract.
        let params = match unsafe { parse_params(name, param_count, params) } {
            Ok(p) => p,
            Err(message) => return failure(code::INVALID_ARGUMENT, &message, at, Messages::InStatus),
        };
        // By name: ordinals must not depend on the linker's order.
        let functions = sorted_by_name(linked(|| &IREE_FUNCTIONS).iter(), |f| f.name);
        let uses_hal = functions.iter().any(|f| f.uses_hal);
        let imports = Resolved::new(params.mapping);
        let module =
            Box::into_raw(Box::new(ModuleBox { iface: interface(), name, functions, params, uses_hal, imports }));
        // SAFETY: just allocated; `self_` lets every entry find the box.
        unsafe {
            (*module).iface.self_ = module.cast();
            *out = &mut (*module).iface;
        }
        code::OK as Status
    };
    catch_unwind(run).unwrap_or_else(|p| {
        let message = format!("creating module `{name}` panicked: {}", panic_message(&*p));
        failure(code::INTERNAL, &message, at, Messages::InStatus)
    })
}

/// `abi.messages=on|off` and `abi.mapping=on|off`; other `abi.*` keys are refused, other
/// keys left to their owners.
unsafe fn parse_params(name: &str, count: usize, params: *const StringPair) -> Result<Params, String> {
    let mut out = Params { messages: Messages::InStatus, mapping: true };
    if count == 0 || params.is_null() {
        return Ok(out);
    }
    // SAFETY: the caller's contract.
    let params = unsafe { core::slice::from_raw_parts(params, count) };
    for p in params {
        // SAFETY: the host's views are valid for the call.
        let (key, value) = unsafe { (p.key.bytes(), p.value.bytes()) };
        let (key, value) = (String::from_utf8_lossy(key), String::from_utf8_lossy(value));
        if !key.starts_with("abi.") {
            continue;
        }
        if key != MESSAGES_PARAM && key != MAPPING_PARAM {
            return Err(format!(
                "module `{name}`: unknown parameter `{key}` (known: `{MESSAGES_PARAM}=on|off`, `{MAPPING_PARAM}=on|off`)"
            ));
        }
        let on = match &*value {
            "on" | "true" | "1" => true,
            "off" | "false" | "0" => false,
            other => return Err(format!("module `{name}`: `{key}` is `on` or `off`, not `{other}`")),
        };
        if key == MESSAGES_PARAM {
            out.messages = if on { Messages::InStatus } else { Messages::Stderr };
        } else {
            out.mapping = on;
        }
    }
    Ok(out)
}

fn interface() -> Module {
    Module {
        self_: core::ptr::null_mut(),
        ref_count: AtomicI32::new(1),
        destroy,
        name: module_name,
        signature,
        enumerate_dependencies,
        get_module_attr,
        lookup_function,
        get_function,
        get_function_attr: Some(get_function_attr),
        resolve_source_location: None,
        alloc_state,
        free_state,
        fork_state,
        resolve_import,
        notify,
        begin_call,
        resume_call,
    }
}

/// The box behind `self_`.
///
/// # Safety
/// `self_` is the `self_` of a module made by [`create`] and not yet destroyed.
unsafe fn this<'a>(self_: *mut c_void) -> &'a ModuleBox {
    // SAFETY: the caller's contract.
    unsafe { &*self_.cast::<ModuleBox>() }
}

fn bare(c: u32) -> Status {
    c as Status
}

unsafe extern "C" fn destroy(self_: *mut c_void) {
    // SAFETY: made by `Box::into_raw` in `create`; the host destroys once.
    drop(unsafe { Box::from_raw(self_.cast::<ModuleBox>()) });
}

unsafe extern "C" fn module_name(self_: *mut c_void) -> StringView {
    // SAFETY: a live module.
    StringView::of(unsafe { this(self_) }.name)
}

unsafe extern "C" fn signature(self_: *mut c_void) -> ModuleSignature {
    // SAFETY: a live module.
    let m = unsafe { this(self_) };
    ModuleSignature {
        version: 0,
        attr_count: 0,
        import_function_count: m.import_count(),
        export_function_count: m.functions.len(),
        internal_function_count: 0,
    }
}

impl ModuleBox {
    fn import_count(&self) -> usize {
        if self.uses_hal {
            IMPORTS.len()
        } else {
            0
        }
    }
}

/// `hal`, when a function takes or returns tensors: the host loads it first.
unsafe extern "C" fn enumerate_dependencies(
    self_: *mut c_void,
    callback: Option<DependencyCallback>,
    user_data: *mut c_void,
) -> Status {
    // SAFETY: a live module.
    let m = unsafe { this(self_) };
    match callback {
        Some(callback) if m.uses_hal => {
            let hal = Dependency {
                name: StringView::of(hal::MODULE),
                minimum_version: hal::MINIMUM_VERSION,
                flags: DEPENDENCY_REQUIRED,
            };
            // SAFETY: the host's callback, with a dependency valid for the call.
            unsafe { callback(user_data, &hal) }
        }
        _ => bare(code::OK),
    }
}

unsafe extern "C" fn get_module_attr(_: *mut c_void, _: usize, _: *mut StringPair) -> Status {
    bare(code::OUT_OF_RANGE)
}

fn is_export(l: u32) -> bool {
    l == linkage::EXPORT || l == linkage::EXPORT_OPTIONAL
}

unsafe extern "C" fn lookup_function(
    self_: *mut c_void,
    link: u32,
    name: StringView,
    expected: *const FunctionSignature,
    out: *mut Function,
) -> Status {
    // SAFETY: a live module; the host's views are valid for the call.
    let (m, wanted) = unsafe { (this(self_), name.bytes()) };
    let found = m.functions.iter().position(|f| f.name.as_bytes() == wanted);
    let (Some(ordinal), true) = (found, is_export(link)) else {
        // `__init`, `__deinit`, `__notify`: the bare code IREE expects of optional hooks.
        if wanted.starts_with(b"__") || link != linkage::EXPORT {
            return bare(code::NOT_FOUND);
        }
        // A function a program imports that the module lacks: say which, and what there is.
        return no_such_function(m, wanted);
    };
    let f = m.functions[ordinal];
    // SAFETY: null or a valid signature for the call.
    let expected = unsafe { expected.as_ref().map(|s| s.calling_convention.bytes()) }.unwrap_or_default();
    if !expected.is_empty() && expected != f.cconv.as_bytes() {
        let message = format!(
            "{}.{} has calling convention {}, but the program imports it as {}",
            m.name,
            f.name,
            f.cconv,
            String::from_utf8_lossy(expected)
        );
        return failure(code::INVALID_ARGUMENT, &message, f.at, m.params.messages);
    }
    if !out.is_null() {
        // SAFETY: writable when not null.
        unsafe { out.write(function(self_, link, ordinal)) };
    }
    bare(code::OK)
}

fn function(self_: *mut c_void, link: u32, ordinal: usize) -> Function {
    Function { module: self_.cast(), linkage: link as u16, ordinal: ordinal as u16 }
}

unsafe extern "C" fn get_function(
    self_: *mut c_void,
    link: u32,
    ordinal: usize,
    out: *mut Function,
    out_name: *mut StringView,
    out_sig: *mut FunctionSignature,
) -> Status {
    // SAFETY: a live module.
    let m = unsafe { this(self_) };
    let (name, cconv) = if link == linkage::IMPORT {
        match IMPORTS.get(ordinal).filter(|_| ordinal < m.import_count()) {
            Some(i) => (i.name, i.cconv),
            None => return bare(code::OUT_OF_RANGE),
        }
    } else {
        match m.functions.get(ordinal).filter(|_| is_export(link)) {
            Some(f) => (f.name, f.cconv),
            None => return bare(code::OUT_OF_RANGE),
        }
    };
    // SAFETY: each output is writable when not null.
    unsafe {
        if !out.is_null() {
            out.write(function(self_, link, ordinal));
        }
        if !out_name.is_null() {
            out_name.write(StringView::of(name));
        }
        if !out_sig.is_null() {
            out_sig.write(FunctionSignature { calling_convention: StringView::of(cconv) });
        }
    }
    bare(code::OK)
}

unsafe extern "C" fn get_function_attr(
    self_: *mut c_void,
    link: u32,
    ordinal: usize,
    index: usize,
    out: *mut StringPair,
) -> Status {
    // SAFETY: a live module.
    let m = unsafe { this(self_) };
    let Some(f) = m.functions.get(ordinal).filter(|_| is_export(link)) else {
        return bare(code::OUT_OF_RANGE);
    };
    let pair = match index {
        0 => StringPair { key: StringView::of("iree.abi"), value: StringView::of(f.iree_abi) },
        1 => StringPair { key: StringView::of("abi.cconv"), value: StringView::of(f.cconv) },
        _ => return bare(code::OUT_OF_RANGE),
    };
    if !out.is_null() {
        // SAFETY: writable when not null.
        unsafe { out.write(pair) };
    }
    bare(code::OK)
}

/// Per-context state: the module keeps none, but hands out a distinct allocation so the
/// host's bookkeeping sees a real pointer.
unsafe extern "C" fn alloc_state(_: *mut c_void, _: Allocator, out: *mut *mut c_void) -> Status {
    if out.is_null() {
        return bare(code::INVALID_ARGUMENT);
    }
    // SAFETY: writable; freed by `free_state`.
    unsafe { out.write(Box::into_raw(Box::new(0u8)).cast()) };
    bare(code::OK)
}

unsafe extern "C" fn free_state(_: *mut c_void, state: *mut c_void) {
    if !state.is_null() {
        // SAFETY: made by `alloc_state` or `fork_state`.
        drop(unsafe { Box::from_raw(state.cast::<u8>()) });
    }
}

unsafe extern "C" fn fork_state(self_: *mut c_void, _: *mut c_void, a: Allocator, out: *mut *mut c_void) -> Status {
    // SAFETY: forwarded as received.
    unsafe { alloc_state(self_, a, out) }
}

/// Stores a resolved HAL function, refusing one whose calling convention is not the one
/// this module was built for (another IREE version), with a message naming it.
unsafe extern "C" fn resolve_import(
    self_: *mut c_void,
    _: *mut c_void,
    ordinal: usize,
    function: *const Function,
    signature: *const FunctionSignature,
) -> Status {
    // SAFETY: a live module.
    let m = unsafe { this(self_) };
    // SAFETY: the host's pointers are valid for the call, or null.
    let (function, cconv) = unsafe { (function.as_ref(), signature.as_ref().map(|s| s.calling_convention.bytes())) };
    let Some(&function) = function.filter(|f| !f.module.is_null()) else {
        let message = format!("module `{}`: import #{ordinal} resolved to no function", m.name);
        return failure(code::INVALID_ARGUMENT, &message, here!(), m.params.messages);
    };
    match m.imports.resolve(ordinal, function, cconv.unwrap_or_default()) {
        Ok(()) => bare(code::OK),
        Err(why) => {
            failure(code::FAILED_PRECONDITION, &format!("module `{}`: {why}", m.name), here!(), m.params.messages)
        }
    }
}

unsafe extern "C" fn notify(_: *mut c_void, _: *mut c_void, _: i32) -> Status {
    bare(code::OK)
}

unsafe extern "C" fn resume_call(_: *mut c_void, _: *mut c_void, _: ByteSpan) -> Status {
    bare(code::UNIMPLEMENTED)
}

unsafe extern "C" fn begin_call(self_: *mut c_void, stack: *mut c_void, call: FunctionCall) -> Status {
    // SAFETY: a live module.
    let m = unsafe { this(self_) };
    let Some(&f) = m.functions.get(usize::from(call.function.ordinal)) else {
        return no_function(m, call.function.ordinal);
    };
    let (args, results) = (call.arguments, call.results);
    let fits = |span: ByteSpan, size: usize| span.data_length == size && (size == 0 || !span.data.is_null());
    if !(fits(args, f.args_size) && fits(results, f.results_size)) {
        return bad_buffers(m, f, args, results);
    }
    let cx = HalCall::new(&m.imports, stack);
    // The fast path stops here on success: failures are formatted out of line.
    // SAFETY: both buffers have the sizes the calling convention gives; `stack` is the
    // call's, for the imports.
    match catch_unwind(AssertUnwindSafe(|| unsafe { (f.call)(cx, args.data, results.data) })) {
        Ok(Ok(())) => bare(code::OK),
        Ok(Err(e)) => failed(m, f, e),
        Err(payload) => panicked(m, f, payload),
    }
}

#[cold]
#[inline(never)]
fn failed(m: &ModuleBox, f: &IreeFunction, failure: Failure) -> Status {
    match failure {
        Failure::Error(e) => from_error(&e, &format!("{}.{}", m.name, f.name), f.at, m.params.messages),
        // A HAL import's own status, with IREE's message and context.
        Failure::Status(status) => status,
    }
}

#[cold]
#[inline(never)]
fn panicked(m: &ModuleBox, f: &IreeFunction, payload: Box<dyn core::any::Any + Send>) -> Status {
    let message = format!("{}.{} panicked: {}", m.name, f.name, panic_message(&*payload));
    // Dropping a payload can itself panic; never let that unwind into C.
    let _ = catch_unwind(AssertUnwindSafe(move || drop(payload)));
    failure(code::INTERNAL, &message, f.at, m.params.messages)
}

#[cold]
#[inline(never)]
fn no_such_function(m: &ModuleBox, wanted: &[u8]) -> Status {
    let names: Vec<&str> = m.functions.iter().map(|f| f.name).collect();
    let message = format!(
        "module `{}` has no function `{}` (it has: {})",
        m.name,
        String::from_utf8_lossy(wanted),
        names.join(", ")
    );
    failure(code::NOT_FOUND, &message, here!(), m.params.messages)
}

#[cold]
#[inline(never)]
fn no_function(m: &ModuleBox, ordinal: u16) -> Status {
    bad_call(m, format!("module `{}` has no function #{ordinal}", m.name))
}

/// Which buffer is wrong, and how.
#[cold]
#[inline(never)]
fn bad_buffers(m: &ModuleBox, f: &IreeFunction, args: ByteSpan, results: ByteSpan) -> Status {
    if args.data_length != f.args_size || (f.args_size > 0 && args.data.is_null()) {
        bad_buffer(m, f, "argument", f.args_size, args)
    } else {
        bad_buffer(m, f, "result", f.results_size, results)
    }
}

#[cold]
fn bad_call(m: &ModuleBox, message: String) -> Status {
    failure(code::INVALID_ARGUMENT, &message, here!(), m.params.messages)
}

#[cold]
fn bad_buffer(m: &ModuleBox, f: &IreeFunction, what: &str, want: usize, got: ByteSpan) -> Status {
    let got = if got.data.is_null() { "a null buffer".to_owned() } else { format!("{} bytes", got.data_length) };
    bad_call(m, format!("{}.{} ({}) takes {want} bytes of {what}s, got {got}", m.name, f.name, f.cconv))
}
