//! The iree-kit example's IREE module driven by a host written in Rust, for what
//! iree-run-module cannot provoke: other interface versions, malformed buffers, lookups
//! of unknown names and with a wrong calling convention, attributes, and the status
//! message blocks (scripts/test-iree.sh runs the real IREE tools).

use std::ptr::null_mut;

use abi_core::iree::abi::{
    linkage, Allocator, ByteSpan, Dependency, Function, FunctionCall, FunctionSignature, Module, Status, StringPair,
    StringView, DEPENDENCY_REQUIRED,
};
use abi_core::iree::status::{code, status_code, take_message};
use abi_derive_tests::fixture_library;

type Create =
    unsafe extern "C" fn(u32, *mut std::ffi::c_void, usize, *const StringPair, Allocator, *mut *mut Module) -> Status;

struct Kit {
    _lib: libloading::Library,
    create: Create,
}

fn kit() -> Kit {
    let path = fixture_library("iree-kit", "iree_kit");
    // SAFETY: our example library; its initialisers are the runtime's.
    let lib = unsafe { libloading::Library::new(path) }.unwrap();
    // SAFETY: the entry `iree_module!` exports, with this signature.
    let create = *unsafe { lib.get::<Create>(b"iree_vm_dynamic_module_create\0") }.unwrap();
    Kit { _lib: lib, create }
}

const NO_ALLOCATOR: Allocator = Allocator { self_: null_mut(), ctl: std::ptr::null() };

fn view(s: &str) -> StringView {
    StringView { data: s.as_ptr(), size: s.len() }
}

/// The code and message of a status, the message block freed.
fn outcome(status: Status) -> (u32, Option<String>) {
    // SAFETY: a status the module made, used once.
    (status_code(status), unsafe { take_message(status) })
}

impl Kit {
    fn create(&self, version: u32, params: &[(&str, &str)]) -> Result<*mut Module, (u32, Option<String>)> {
        let pairs: Vec<StringPair> = params.iter().map(|(k, v)| StringPair { key: view(k), value: view(v) }).collect();
        let mut module = null_mut();
        // SAFETY: valid pairs and output.
        let status =
            unsafe { (self.create)(version, null_mut(), pairs.len(), pairs.as_ptr(), NO_ALLOCATOR, &mut module) };
        if status == 0 {
            Ok(module)
        } else {
            Err(outcome(status))
        }
    }
}

/// Releases a module as the host does: drop the reference, then destroy.
fn release(m: *mut Module) {
    // SAFETY: a live module from `create`.
    unsafe {
        (*m).ref_count.fetch_sub(1, std::sync::atomic::Ordering::AcqRel);
        ((*m).destroy)((*m).self_);
    }
}

fn lookup(m: *mut Module, name: &str, cconv: Option<&str>) -> Result<Function, (u32, Option<String>)> {
    let sig = cconv.map(|c| FunctionSignature { calling_convention: view(c) });
    let mut f = Function { module: null_mut(), linkage: 0, ordinal: 0 };
    let expected = sig.as_ref().map_or(std::ptr::null(), |s| s as *const _);
    // SAFETY: a live module and valid views.
    let status = unsafe { ((*m).lookup_function)((*m).self_, linkage::EXPORT, view(name), expected, &mut f) };
    if status == 0 {
        Ok(f)
    } else {
        Err(outcome(status))
    }
}

fn call(m: *mut Module, f: Function, args: &mut [u8], results: &mut [u8]) -> (u32, Option<String>) {
    let span = |b: &mut [u8]| ByteSpan { data: b.as_mut_ptr(), data_length: b.len() };
    let call = FunctionCall { function: f, arguments: span(args), results: span(results) };
    // SAFETY: a live module; the buffers are valid for their lengths.
    outcome(unsafe { ((*m).begin_call)((*m).self_, null_mut(), call) })
}

#[test]
fn creation_refuses_other_versions_and_unknown_parameters() {
    let kit = kit();
    let (c, message) = kit.create(2, &[]).unwrap_err();
    assert_eq!(c, code::FAILED_PRECONDITION);
    assert_eq!(
        message.as_deref(),
        Some("module `kit` implements the IREE dynamic module interface version 1; the host asked for version 2")
    );
    let (c, message) = kit.create(1, &[("abi.colour", "red")]).unwrap_err();
    assert_eq!(c, code::INVALID_ARGUMENT);
    assert!(message.unwrap().contains("unknown parameter `abi.colour`"));
    // Keys outside `abi.` belong to others; `abi.messages` and `abi.mapping` are known.
    release(kit.create(1, &[("other", "x"), ("abi.messages", "off"), ("abi.mapping", "off")]).unwrap());
    let (c, message) = kit.create(1, &[("abi.mapping", "sometimes")]).unwrap_err();
    assert_eq!(c, code::INVALID_ARGUMENT);
    assert_eq!(message.as_deref(), Some("module `kit`: `abi.mapping` is `on` or `off`, not `sometimes`"));
}

unsafe extern "C" fn record_dependency(user_data: *mut std::ffi::c_void, d: *const Dependency) -> Status {
    // SAFETY: `user_data` is the test's Vec; `d` is valid for the call.
    unsafe {
        let name = String::from_utf8_lossy((*d).name.bytes()).into_owned();
        (*user_data.cast::<Vec<(String, u32, u32)>>()).push((name, (*d).minimum_version, (*d).flags));
    }
    0
}

#[test]
fn a_module_with_tensor_functions_depends_on_hal_and_declares_its_imports() {
    let kit = kit();
    let m = kit.create(1, &[]).unwrap();
    let mut deps: Vec<(String, u32, u32)> = Vec::new();
    // SAFETY: a live module; the callback's user data is `deps`.
    let status = unsafe { ((*m).enumerate_dependencies)((*m).self_, Some(record_dependency), (&raw mut deps).cast()) };
    assert_eq!(status, 0);
    assert_eq!(deps, [("hal".to_owned(), 6, DEPENDENCY_REQUIRED)]);
    // SAFETY: a live module.
    let count = unsafe { ((*m).signature)((*m).self_) }.import_function_count;
    let mut imports = Vec::new();
    for ordinal in 0..count {
        let (mut name, mut sig) = (view(""), FunctionSignature { calling_convention: view("") });
        // SAFETY: a live module; outputs are writable.
        let status =
            unsafe { ((*m).get_function)((*m).self_, linkage::IMPORT, ordinal, null_mut(), &mut name, &mut sig) };
        assert_eq!(status, 0);
        // SAFETY: views of static texts.
        let (name, cconv) = unsafe { (name.bytes(), sig.calling_convention.bytes()) };
        imports.push(format!("{} {}", String::from_utf8_lossy(name), String::from_utf8_lossy(cconv)));
    }
    assert!(imports.contains(&"hal.buffer_view.dim 0ri_I".to_owned()), "{imports:?}");
    assert!(imports.contains(&"hal.allocator.allocate 0rIiiI_r".to_owned()), "{imports:?}");
    // One past the last import.
    // SAFETY: a live module; nothing is written on failure.
    let past = unsafe { ((*m).get_function)((*m).self_, linkage::IMPORT, count, null_mut(), null_mut(), null_mut()) };
    assert_eq!(status_code(past), code::OUT_OF_RANGE);
    // A HAL function with another calling convention (another IREE version) is refused,
    // naming it.
    let fake = Function { module: m, linkage: linkage::EXPORT as u16, ordinal: 0 };
    let other = FunctionSignature { calling_convention: view("0rI_I") };
    let dim = imports.iter().position(|i| i.starts_with("hal.buffer_view.dim ")).unwrap();
    // SAFETY: a live module; valid function and signature.
    let (c, message) = outcome(unsafe { ((*m).resolve_import)((*m).self_, null_mut(), dim, &fake, &other) });
    assert_eq!(c, code::FAILED_PRECONDITION);
    assert_eq!(
        message.as_deref(),
        Some("module `kit`: hal.buffer_view.dim has calling convention 0rI_I in the loaded HAL module, but this module was built for 0ri_I (IREE 3.13)")
    );
    // A null reference where a tensor goes is refused.
    let total = lookup(m, "total", Some("0r_f")).unwrap();
    let (c, message) = call(m, total, &mut [0u8; 16], &mut [0u8; 4]);
    assert_eq!(c, code::INVALID_ARGUMENT);
    assert_eq!(
        message.as_deref(),
        Some("kit.total: TypeError: argument `x` (#0): expected a tensor (a `hal.buffer_view`), got a null reference")
    );
    // A reference of another type too, named by its descriptor.
    #[repr(C, align(8))]
    struct Descriptor {
        destroy: usize,
        type_name: StringView,
        counter_offset: usize,
    }
    // SAFETY: only read by the module, as a descriptor.
    unsafe impl Sync for Descriptor {}
    static BUFFER: Descriptor =
        Descriptor { destroy: 0, type_name: StringView { data: b"hal.buffer".as_ptr(), size: 10 }, counter_offset: 0 };
    static VIEW: Descriptor = Descriptor {
        destroy: 0,
        type_name: StringView { data: b"hal.buffer_view".as_ptr(), size: 15 },
        counter_offset: 0,
    };
    let object = [1u64; 4];
    let reference = |d: &Descriptor| {
        let mut slot = [0u8; 16];
        slot[..8].copy_from_slice(&(object.as_ptr() as usize).to_le_bytes());
        slot[8..].copy_from_slice(&(d as *const Descriptor as usize).to_le_bytes());
        slot
    };
    let (c, message) = call(m, total, &mut reference(&BUFFER), &mut [0u8; 4]);
    assert_eq!(c, code::INVALID_ARGUMENT);
    assert_eq!(
        message.as_deref(),
        Some("kit.total: TypeError: argument `x` (#0): expected a tensor (a `hal.buffer_view`), got a `hal.buffer`")
    );
    // Called before its imports are resolved, a tensor function says so (never a crash).
    let (c, message) = call(m, total, &mut reference(&VIEW), &mut [0u8; 4]);
    assert_eq!(c, code::INTERNAL);
    assert_eq!(
        message.as_deref(),
        Some("kit.total: RuntimeError: argument `x` (#0): the module's HAL imports are not resolved: load it with the HAL module (iree-run-module does)")
    );
    release(m);
}

#[test]
fn calls_decode_arguments_and_encode_several_results() {
    let kit = kit();
    let m = kit.create(1, &[]).unwrap();
    let mix = lookup(m, "mix", Some("0iIf_fI")).unwrap();
    // 0iIf_fI: i32@0, i64@8, f32@16 (24 bytes); results f32@0, i64@8 (16 bytes).
    let mut args = [0u8; 24];
    args[0..4].copy_from_slice(&3i32.to_le_bytes());
    args[8..16].copy_from_slice(&10i64.to_le_bytes());
    args[16..20].copy_from_slice(&1.5f32.to_le_bytes());
    let mut results = [0u8; 16];
    assert_eq!(call(m, mix, &mut args, &mut results), (code::OK, None));
    assert_eq!(f32::from_le_bytes(results[0..4].try_into().unwrap()), 4.5);
    assert_eq!(i64::from_le_bytes(results[8..16].try_into().unwrap()), 13);
    release(m);
}

#[test]
fn buffers_of_the_wrong_size_are_refused_before_use() {
    let kit = kit();
    let m = kit.create(1, &[]).unwrap();
    let add = lookup(m, "add_i32", None).unwrap();
    let (c, message) = call(m, add, &mut [0u8; 4], &mut [0u8; 4]);
    assert_eq!(c, code::INVALID_ARGUMENT);
    assert_eq!(message.as_deref(), Some("kit.add_i32 (0ii_i) takes 8 bytes of arguments, got 4 bytes"));
    let (c, message) = call(m, add, &mut [0u8; 8], &mut []);
    assert_eq!(c, code::INVALID_ARGUMENT);
    assert_eq!(message.as_deref(), Some("kit.add_i32 (0ii_i) takes 4 bytes of results, got 0 bytes"));
    // A null buffer of the right length.
    let call_null = FunctionCall {
        function: add,
        arguments: ByteSpan { data: null_mut(), data_length: 8 },
        results: ByteSpan { data: [0u8; 4].as_mut_ptr(), data_length: 4 },
    };
    // SAFETY: a live module; the module must not read the null buffer.
    let (c, message) = outcome(unsafe { ((*m).begin_call)((*m).self_, null_mut(), call_null) });
    assert_eq!(c, code::INVALID_ARGUMENT);
    assert_eq!(message.as_deref(), Some("kit.add_i32 (0ii_i) takes 8 bytes of arguments, got a null buffer"));
    // An ordinal past the end.
    let past = Function { ordinal: 999, ..add };
    let (c, message) = call(m, past, &mut [0u8; 8], &mut [0u8; 4]);
    assert_eq!((c, message.as_deref()), (code::INVALID_ARGUMENT, Some("module `kit` has no function #999")));
    release(m);
}

#[test]
fn out_of_range_narrow_arguments_are_value_errors() {
    let kit = kit();
    let m = kit.create(1, &[]).unwrap();
    let widen = lookup(m, "widen", Some("0iii_I")).unwrap();
    let mut args = [0u8; 12];
    args[0..4].copy_from_slice(&300i32.to_le_bytes());
    let (c, message) = call(m, widen, &mut args, &mut [0u8; 8]);
    assert_eq!(c, code::INVALID_ARGUMENT);
    assert_eq!(message.as_deref(), Some("kit.widen: ValueError: argument `a` (#0): 300 does not fit i8"));
    args[0..4].copy_from_slice(&1i32.to_le_bytes());
    args[8..12].copy_from_slice(&2i32.to_le_bytes());
    let (_, message) = call(m, widen, &mut args, &mut [0u8; 8]);
    assert_eq!(
        message.as_deref(),
        Some("kit.widen: ValueError: argument `negate` (#2): 2 is not a bool (0, or 1 / -1)")
    );
    release(m);
}

#[test]
fn lookups_answer_unknown_names_with_a_bare_code_and_check_the_convention() {
    let kit = kit();
    let m = kit.create(1, &[]).unwrap();
    for name in ["__init", "__deinit", "__notify"] {
        assert_eq!(lookup(m, name, None).unwrap_err(), (code::NOT_FOUND, None), "{name}");
    }
    // A function a program imports that is not there: NOT_FOUND, naming it.
    let (c, message) = lookup(m, "nope", None).unwrap_err();
    assert_eq!(c, code::NOT_FOUND);
    assert!(message.unwrap().starts_with("module `kit` has no function `nope` (it has: add_i32, checked,"));
    let (c, message) = lookup(m, "add_i32", Some("0II_I")).unwrap_err();
    assert_eq!(c, code::INVALID_ARGUMENT);
    assert_eq!(
        message.as_deref(),
        Some("kit.add_i32 has calling convention 0ii_i, but the program imports it as 0II_I")
    );
    // Every function, by ordinal, with its name, convention and attributes.
    // SAFETY: a live module.
    let count = unsafe { ((*m).signature)((*m).self_) }.export_function_count;
    let mut seen = Vec::new();
    for ordinal in 0..count {
        let (mut name, mut sig) = (view(""), FunctionSignature { calling_convention: view("") });
        // SAFETY: a live module; outputs are writable.
        let status =
            unsafe { ((*m).get_function)((*m).self_, linkage::EXPORT, ordinal, null_mut(), &mut name, &mut sig) };
        assert_eq!(status, 0);
        // SAFETY: views of the module's static texts.
        let (name, cconv) = unsafe { (name.bytes(), sig.calling_convention.bytes()) };
        seen.push(format!("{} {}", String::from_utf8_lossy(name), String::from_utf8_lossy(cconv)));
    }
    assert_eq!(
        seen,
        [
            "add_i32 0ii_i",
            "checked 0I_I",
            "halve 0I_I",
            "is_positive 0F_i",
            "lookup 0i_I",
            "mix 0iIf_fI",
            "pair 0v_ii",
            "pick 0i_F",
            "row_sums 0r_rI",
            "scaled 0rf_r",
            "tick 0v_v",
            "total 0r_f",
            "unlucky 0i_i",
            "widen 0iii_I"
        ]
    );
    let mix = lookup(m, "mix", None).unwrap();
    let attr = |index: usize| {
        let mut pair = StringPair { key: view(""), value: view("") };
        // SAFETY: a live module; `get_function_attr` is provided.
        let status = unsafe {
            ((*m).get_function_attr.unwrap())((*m).self_, linkage::EXPORT, mix.ordinal.into(), index, &mut pair)
        };
        // SAFETY: views of static texts.
        (status_code(status), unsafe {
            (
                String::from_utf8_lossy(pair.key.bytes()).into_owned(),
                String::from_utf8_lossy(pair.value.bytes()).into_owned(),
            )
        })
    };
    assert_eq!(
        attr(0),
        (
            code::OK,
            (
                "iree.abi".to_owned(),
                r#"{"a":[["named","a","i32"],["named","b","i64"],["named","c","f32"]],"r":["f32","i64"],"v":1}"#
                    .to_owned()
            )
        )
    );
    assert_eq!(attr(1), (code::OK, ("abi.cconv".to_owned(), "0iIf_fI".to_owned())));
    assert_eq!(attr(2).0, code::OUT_OF_RANGE);
    release(m);
}

#[test]
fn messages_off_returns_bare_codes() {
    let kit = kit();
    let m = kit.create(1, &[("abi.messages", "off")]).unwrap();
    let checked = lookup(m, "checked", Some("0I_I")).unwrap();
    let (c, message) = call(m, checked, &mut (-7i64).to_le_bytes(), &mut [0u8; 8]);
    assert_eq!((c, message), (code::INVALID_ARGUMENT, None));
    release(m);
}
