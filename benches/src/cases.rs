//! Every measured case as a loop of `iters` calls, shared by the criterion bench and the
//! instruction-count binary so both measure exactly the same code.

use core::hint::black_box;

use core::ptr::NonNull;

use abi_core::ffi::type_table::{FieldInfo, MethodInfo, TypeInfo};
use abi_core::ffi::ByteArray;
use abi_core::{Any, Function, Obj, Object, ObjectHandle, ObjectRef, RawAny, SafeCall, Tensor, TypedFunction};

use crate::exported::Counter;

use crate::floor;

use abi_core::iree::abi as iree;

/// One measured case.
#[derive(Debug, Clone, Copy)]
pub struct Case {
    /// Short identifier (`icount <name> <iters>`).
    pub name: &'static str,
    /// The case it is compared with.
    pub floor: &'static str,
    /// Runs `iters` calls (set-up outside the loop, so a difference of two lengths cancels it).
    pub run: fn(u64),
    /// The stated budget, checked by `scripts/bench.sh --check` on instruction counts.
    pub budget: Budget,
    /// The worlds the case is measured in.
    pub worlds: Worlds,
}

/// Where a case runs: with the embedded runtime only, or also with libtvm_ffi loaded in
/// the process (then every runtime service goes through it, as under Python or C++).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Worlds {
    /// Both worlds, the same budget in each.
    Both,
    /// The embedded runtime only.
    EmbeddedOnly,
    /// With libtvm_ffi only (a case that calls libtvm_ffi itself).
    TvmFfiOnly,
}

impl Worlds {
    /// Whether the case runs in the world where libtvm_ffi serves the runtime (`host`) or
    /// in the embedded one.
    pub fn includes(self, host: bool) -> bool {
        match self {
            Worlds::Both => true,
            Worlds::EmbeddedOnly => !host,
            Worlds::TvmFfiOnly => host,
        }
    }
}

impl core::fmt::Display for Worlds {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Worlds::Both => "both",
            Worlds::EmbeddedOnly => "embedded",
            Worlds::TvmFfiOnly => "tvm-ffi",
        })
    }
}

/// A stated cost budget. The project states each budget here and nowhere else:
/// `icount --list` prints it, `scripts/bench.sh --check` checks it and prints the table
/// that benches/README.md shows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Budget {
    /// No stated budget.
    None,
    /// At most this many times the floor's instructions per call.
    Ratio(f64),
    /// At most this many instructions per call.
    Instructions(u32),
    /// At most this many instructions per call above the floor's.
    Over(u32),
}

impl core::fmt::Display for Budget {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Budget::None => f.write_str("-"),
            Budget::Ratio(r) => write!(f, "ratio<={r}"),
            Budget::Instructions(n) => write!(f, "instr<={n}"),
            Budget::Over(n) => write!(f, "over<={n}"),
        }
    }
}

/// The shim linked into this binary for `name`.
fn shim(name: &str) -> SafeCall {
    abi_core::find_export(name).unwrap_or_else(|| panic!("{name} is not exported")).safe_call
}

fn raw_args(values: &[Any]) -> Vec<RawAny> {
    values.iter().map(|a| *a.as_raw()).collect()
}

/// Calls `f` `iters` times with `args`; the result is a scalar (nothing to release).
#[inline(always)]
fn scalar_calls(f: SafeCall, args: &[RawAny], iters: u64) {
    for _ in 0..iters {
        let mut out = RawAny::NONE;
        // SAFETY: `args` are live slots owned by the caller's `Any`s; `out` is writable.
        let rc = unsafe { black_box(f)(core::ptr::null_mut(), black_box(args.as_ptr()), args.len() as i32, &mut out) };
        assert_eq!(rc, 0);
        black_box(out.i64());
    }
}

/// Calls `f` `iters` times with `args`, releasing the owned (object) result each time.
#[inline(always)]
fn owned_calls(f: SafeCall, args: &[RawAny], iters: u64) {
    for _ in 0..iters {
        let mut out = RawAny::NONE;
        // SAFETY: as in `scalar_calls`.
        let rc = unsafe { black_box(f)(core::ptr::null_mut(), black_box(args.as_ptr()), args.len() as i32, &mut out) };
        assert_eq!(rc, 0);
        // SAFETY: success transfers the result to us; dropping releases it.
        drop(black_box(unsafe { Any::from_raw(out) }));
    }
}

fn ints(values: &[i64]) -> Vec<Any> {
    values.iter().map(|&v| Any::from_value(v).unwrap()).collect()
}

fn direct_add(iters: u64) {
    for _ in 0..iters {
        black_box(floor::add_direct(black_box(1), black_box(2)));
    }
}

fn hand_add(iters: u64) {
    let args = ints(&[1, 2]);
    scalar_calls(floor::hand_add, &raw_args(&args), iters);
}

fn export_add(iters: u64) {
    let args = ints(&[1, 2]);
    scalar_calls(shim("add"), &raw_args(&args), iters);
}

/// `iters` calls of `begin_call` with the buffers of `add_i32(1, 2)`.
fn iree_calls(begin_call: IreeBeginCall, self_: *mut core::ffi::c_void, function: iree::Function, iters: u64) {
    let mut args = [0u8; 8];
    args[0..4].copy_from_slice(&1i32.to_le_bytes());
    args[4..8].copy_from_slice(&2i32.to_le_bytes());
    let mut results = [0u8; 4];
    let call = iree::FunctionCall {
        function,
        arguments: iree::ByteSpan { data: args.as_mut_ptr(), data_length: args.len() },
        results: iree::ByteSpan { data: results.as_mut_ptr(), data_length: results.len() },
    };
    for _ in 0..iters {
        // SAFETY: a live module (or the floor) and buffers of the convention's sizes.
        let status = unsafe { begin_call(black_box(self_), core::ptr::null_mut(), black_box(call)) };
        assert_eq!(status, 0);
    }
    assert_eq!(i32::from_le_bytes(results), 3);
}

type IreeBeginCall =
    unsafe extern "C" fn(*mut core::ffi::c_void, *mut core::ffi::c_void, iree::FunctionCall) -> iree::Status;

fn hand_iree_add(iters: u64) {
    let function = iree::Function { module: core::ptr::null_mut(), linkage: iree::linkage::EXPORT as u16, ordinal: 0 };
    iree_calls(floor::hand_iree_add, core::ptr::null_mut(), function, iters);
}

/// The generated module's `begin_call` for `add_i32`, looked up as `iree-run-module` does.
fn iree_add_i32(iters: u64) {
    let mut module = core::ptr::null_mut();
    // SAFETY: no parameters and a writable output.
    let status = unsafe { abi_core::iree::module::create("bench", 1, 0, core::ptr::null(), &mut module) };
    assert_eq!(status, 0);
    // SAFETY: a live module.
    let m = unsafe { &*module };
    let name = "add_i32";
    let mut function = iree::Function { module: core::ptr::null_mut(), linkage: 0, ordinal: 0 };
    let view = iree::StringView { data: name.as_ptr(), size: name.len() };
    // SAFETY: a live module; no expected signature.
    let status = unsafe { (m.lookup_function)(m.self_, iree::linkage::EXPORT, view, core::ptr::null(), &mut function) };
    assert_eq!(status, 0);
    iree_calls(m.begin_call, m.self_, function, iters);
    // SAFETY: released once, as the host does.
    unsafe { (m.destroy)(m.self_) };
}

fn mixed4_args() -> Vec<Any> {
    vec![
        Any::from_value(1i64).unwrap(),
        Any::from_value(2.5f64).unwrap(),
        Any::from_value(true).unwrap(),
        Any::from_value(3i64).unwrap(),
    ]
}

fn hand_mixed4(iters: u64) {
    scalar_calls(floor::hand_mixed4, &raw_args(&mixed4_args()), iters);
}

fn export_mixed4(iters: u64) {
    scalar_calls(shim("mixed4"), &raw_args(&mixed4_args()), iters);
}

fn export_sum16(iters: u64) {
    let args = ints(&(0..16).collect::<Vec<i64>>());
    scalar_calls(shim("sum16"), &raw_args(&args), iters);
}

fn export_small_str(iters: u64) {
    let args = [Any::from_value("abc").unwrap()];
    scalar_calls(shim("str_len"), &raw_args(&args), iters);
}

fn export_long_str(iters: u64) {
    let args = [Any::from_value("x".repeat(100)).unwrap()];
    scalar_calls(shim("str_len"), &raw_args(&args), iters);
}

fn export_str_echo(iters: u64) {
    let args = [Any::from_value("abc").unwrap()];
    owned_calls(shim("str_echo"), &raw_args(&args), iters);
}

fn export_enum_echo(iters: u64) {
    let args = [Any::from_value("nearest").unwrap()];
    owned_calls(shim("enum_echo"), &raw_args(&args), iters);
}

fn export_enum_echo_long(iters: u64) {
    let args = [Any::from_value("bilinear").unwrap()];
    owned_calls(shim("enum_echo"), &raw_args(&args), iters);
}

fn direct_greet(iters: u64) {
    for _ in 0..iters {
        drop(black_box(crate::exported::greet(black_box("abc"))));
    }
}

fn hand_greet(iters: u64) {
    let args = [Any::from_value("abc").unwrap()];
    owned_calls(floor::hand_greet, &raw_args(&args), iters);
}

fn export_string_result(iters: u64) {
    let args = [Any::from_value("abc").unwrap()];
    owned_calls(shim("greet"), &raw_args(&args), iters);
}

fn tuple(values: &[f64]) -> Vec<Any> {
    vec![Any::from_value(values.to_vec()).unwrap()]
}

fn flat(values: &[f64]) -> Vec<Any> {
    values.iter().map(|&v| Any::from_value(v).unwrap()).collect()
}

fn struct2_tuple(iters: u64) {
    scalar_calls(shim("norm2"), &raw_args(&tuple(&[3.0, 4.0])), iters);
}

fn struct2_expanded(iters: u64) {
    scalar_calls(shim("norm2_flat"), &raw_args(&flat(&[3.0, 4.0])), iters);
}

fn struct4_tuple(iters: u64) {
    scalar_calls(shim("norm4"), &raw_args(&tuple(&[1.0, 2.0, 3.0, 4.0])), iters);
}

fn struct4_expanded(iters: u64) {
    scalar_calls(shim("norm4_flat"), &raw_args(&flat(&[1.0, 2.0, 3.0, 4.0])), iters);
}

fn tensor_view(iters: u64) {
    let args = [Any::from_value(Tensor::from_vec(vec![0f32; 64], &[8, 8]).unwrap()).unwrap()];
    scalar_calls(shim("tensor_len"), &raw_args(&args), iters);
}

fn tensor_slice(iters: u64) {
    let args = [Any::from_value(Tensor::from_vec(vec![0f32; 64], &[8, 8]).unwrap()).unwrap()];
    scalar_calls(shim("tensor_slice_len"), &raw_args(&args), iters);
}

fn host_tensor(iters: u64) {
    let args = [Any::from_value(Tensor::from_vec(vec![0f32; 64], &[8, 8]).unwrap()).unwrap()];
    scalar_calls(shim("host_tensor_len"), &raw_args(&args), iters);
}

fn host_tensor_into(iters: u64) {
    let x = Any::from_value(Tensor::from_vec(vec![0f32; 64], &[8, 8]).unwrap()).unwrap();
    let out = Any::from_value(Tensor::from_vec(vec![0f32; 64], &[8, 8]).unwrap()).unwrap();
    scalar_calls(shim("host_tensor_into"), &raw_args(&[x, out]), iters);
}

/// A stream handle for the stream cases (never dereferenced).
const STREAM: abi_core::env::Stream = abi_core::env::Stream::from_ptr(0x1234 as *mut core::ffi::c_void);

/// `TVMFFIEnvGetStream` of the loaded libtvm_ffi, called directly, with the same streams set
/// as in `env_stream`.
fn direct_env_get_stream(iters: u64) {
    let get = floor::tvm_ffi_env_get_stream();
    let _other = abi_core::env::set_stream(abi_core::Device::new(abi_core::ffi::device_type::CUDA, 0), STREAM);
    let _set = abi_core::env::set_stream(abi_core::Device::new(abi_core::ffi::device_type::CUDA, 1), STREAM);
    for _ in 0..iters {
        // SAFETY: libtvm_ffi's function, called as its header declares it.
        black_box(unsafe { black_box(get)(black_box(2), black_box(1)) });
    }
}

/// The stream of a device the caller set one for (a second device set too).
fn env_stream(iters: u64) {
    let device = abi_core::Device::new(abi_core::ffi::device_type::CUDA, 1);
    let _other = abi_core::env::set_stream(abi_core::Device::new(abi_core::ffi::device_type::CUDA, 0), STREAM);
    let _set = abi_core::env::set_stream(device, STREAM);
    for _ in 0..iters {
        black_box(abi_core::env::stream(black_box(device)));
    }
}

/// Lends `floor::vec_tensor_alloc` to this thread for the `Tensor::empty` cases.
fn lend_vec_allocator() -> abi_core::env::AllocatorGuard {
    abi_core::env::set_tensor_allocator(Some(floor::vec_tensor_alloc), false).unwrap()
}

fn hand_env_tensor_alloc(iters: u64) {
    let _lent = lend_vec_allocator();
    let alloc = floor::env_tensor_alloc();
    for _ in 0..iters {
        floor::alloc_by_hand(alloc, black_box(1024));
    }
}

fn tensor_empty(iters: u64) {
    let _lent = lend_vec_allocator();
    for _ in 0..iters {
        drop(black_box(Tensor::empty::<f32>(black_box(&[1024]), abi_core::Device::CPU).unwrap()));
    }
}

/// `Tensor::empty_uninit`, its elements then written by the caller (not measured here).
fn tensor_empty_uninit(iters: u64) {
    let _lent = lend_vec_allocator();
    for _ in 0..iters {
        let t = Tensor::empty_uninit::<f32>(black_box(&[1024]), abi_core::Device::CPU).unwrap();
        // SAFETY: nothing reads the elements; the tensor is released at once.
        drop(black_box(unsafe { t.assume_init() }));
    }
}

fn error_wrong_type(iters: u64) {
    let args = [Any::from_value(1i64).unwrap(), Any::from_value("two").unwrap()];
    let raw = raw_args(&args);
    let f = shim("add");
    for _ in 0..iters {
        let mut out = RawAny::NONE;
        // SAFETY: as in `scalar_calls`.
        let rc = unsafe { black_box(f)(core::ptr::null_mut(), black_box(raw.as_ptr()), 2, &mut out) };
        assert_ne!(rc, 0);
        // The host takes (and here drops) the raised error, as every caller must.
        black_box(abi_core::host::take_raised());
    }
}

/// Calls `name`, whose body fails, and takes each error raised.
fn body_errors(name: &str, iters: u64) {
    let args = [Any::from_value(3i64).unwrap()];
    let raw = raw_args(&args);
    let f = shim(name);
    for _ in 0..iters {
        let mut out = RawAny::NONE;
        // SAFETY: as in `scalar_calls`.
        let rc = unsafe { black_box(f)(core::ptr::null_mut(), black_box(raw.as_ptr()), 1, &mut out) };
        assert_ne!(rc, 0);
        black_box(abi_core::host::take_raised());
    }
}

fn error_body_value(iters: u64) {
    body_errors("fail_value", iters);
}

fn error_body_derived(iters: u64) {
    body_errors("fail_derived", iters);
}

fn error_raise_only(iters: u64) {
    let args = [Any::from_value(1i64).unwrap(), Any::from_value("two").unwrap()];
    let raw = raw_args(&args);
    let f = shim("add");
    for _ in 0..iters {
        let mut out = RawAny::NONE;
        // SAFETY: as in `scalar_calls`.
        let rc = unsafe { black_box(f)(core::ptr::null_mut(), black_box(raw.as_ptr()), 2, &mut out) };
        assert_ne!(rc, 0);
    }
    // Call to error set: each call replaces the previous pending error; take the last.
    assert!(abi_core::host::take_raised().is_some());
}

#[abi_core::import(Local)]
extern "C" {
    fn add(a: i64, b: i64) -> i64;
}

fn import_add(iters: u64) {
    let local = Local::bind_linked().expect("bind the linked exports");
    for _ in 0..iters {
        black_box(local.add(black_box(1), black_box(2)).unwrap());
    }
}

fn callback_arg(iters: u64) {
    let cb = TypedFunction::<fn(i64) -> i64>::new(|x| x + 1);
    let args = [Any::from_value(cb).unwrap(), Any::from_value(41i64).unwrap()];
    scalar_calls(shim("call_cb"), &raw_args(&args), iters);
}

fn typed_function_call(iters: u64) {
    let f = TypedFunction::<fn(i64) -> i64>::new(|x| x + 1);
    for _ in 0..iters {
        black_box(f.call(black_box(41)).unwrap());
    }
}

fn function_call_packed(iters: u64) {
    let f = Function::from_closure(|args| Any::from_value(args[0].to::<i64>()? + 1));
    let x = Any::from_value(41i64).unwrap();
    for _ in 0..iters {
        black_box(f.call_packed(&[x.view()]).unwrap());
    }
}

fn export_i64_arg(iters: u64) {
    scalar_calls(shim("echo_i64"), &raw_args(&ints(&[7])), iters);
}

fn counter() -> Any {
    Any::from_value(Obj::new(Counter::new(7))).unwrap()
}

fn export_object_ref(iters: u64) {
    scalar_calls(shim("counter_value"), &raw_args(&[counter()]), iters);
}

/// The type table record of `bench.Counter`, read as a host reads it.
fn counter_info() -> &'static TypeInfo {
    let index = Counter::type_index().expect("bench.Counter registers");
    // SAFETY: the index is registered, and the table keeps its records for the process.
    unsafe { &*(abi_core::host::type_api().get_type_info)(index) }
}

fn named<T>(records: *const T, len: i32, name: fn(&T) -> ByteArray, wanted: &str) -> &'static T {
    // SAFETY: the table's `len` records, kept for the process.
    let records = unsafe { core::slice::from_raw_parts(records, len as usize) };
    // SAFETY: the names are texts the table keeps.
    records.iter().find(|r| unsafe { name(r).as_slice() } == wanted.as_bytes()).expect("registered")
}

fn method_call(iters: u64) {
    let info = counter_info();
    let method = named(info.methods, info.num_methods, |m: &MethodInfo| m.name, "value");
    // SAFETY: the table holds a reference to the method's Function.
    let obj = unsafe { ObjectRef::from_borrowed(NonNull::new(method.method.ptr().cast()).expect("a Function")) };
    let function = Function::from_object(obj).expect("methods are Functions");
    let this = counter();
    let args = raw_args(core::slice::from_ref(&this));
    let function = function.view();
    // The host's path: the packed entry read from the Function object, the object as the
    // first argument.
    for _ in 0..iters {
        black_box(black_box(&function).call_raw(black_box(&args)).unwrap().as_raw().i64());
    }
}

fn field_get(iters: u64) {
    let info = counter_info();
    let field = named(info.fields, info.num_fields, |f: &FieldInfo| f.name, "start");
    let getter = field.getter.expect("a reflected field has a getter");
    let this = Obj::new(Counter::new(7));
    let addr = this.as_object().as_ptr().cast::<u8>().wrapping_add(field.offset as usize).cast();
    for _ in 0..iters {
        let mut out = RawAny::NONE;
        // SAFETY: the field's address inside a live object, as a host computes it.
        let rc = unsafe { black_box(getter)(black_box(addr), &mut out) };
        assert_eq!(rc, 0);
        black_box(out.i64());
    }
}

/// Every case, floors first.
pub const CASES: &[Case] = &[
    Case {
        name: "hand_iree_add_i32",
        floor: "direct_add",
        run: hand_iree_add,
        budget: Budget::None,
        worlds: Worlds::EmbeddedOnly,
    },
    Case {
        name: "iree_add_i32",
        floor: "hand_iree_add_i32",
        run: iree_add_i32,
        budget: Budget::Instructions(70),
        worlds: Worlds::EmbeddedOnly,
    },
    Case { name: "direct_add", floor: "direct_add", run: direct_add, budget: Budget::None, worlds: Worlds::Both },
    Case { name: "hand_shim_add", floor: "direct_add", run: hand_add, budget: Budget::None, worlds: Worlds::Both },
    Case {
        name: "export_add",
        floor: "hand_shim_add",
        run: export_add,
        budget: Budget::Ratio(1.2),
        worlds: Worlds::Both,
    },
    Case {
        name: "hand_shim_mixed4",
        floor: "hand_shim_add",
        run: hand_mixed4,
        budget: Budget::None,
        worlds: Worlds::Both,
    },
    Case {
        name: "export_mixed4",
        floor: "hand_shim_mixed4",
        run: export_mixed4,
        budget: Budget::Ratio(1.3),
        worlds: Worlds::Both,
    },
    Case {
        name: "export_sum16",
        floor: "hand_shim_add",
        run: export_sum16,
        budget: Budget::None,
        worlds: Worlds::Both,
    },
    Case {
        name: "export_small_str",
        floor: "hand_shim_add",
        run: export_small_str,
        budget: Budget::Instructions(70),
        worlds: Worlds::Both,
    },
    Case {
        name: "export_long_str",
        floor: "hand_shim_add",
        run: export_long_str,
        budget: Budget::None,
        worlds: Worlds::Both,
    },
    // A short `&str` in and a short `String` out (the body allocates it): what a fieldless
    // enum's round trip is held to, its name looked up and made again with no allocation,
    // inline (7 bytes) or a static Str object (8: a reference taken and released).
    Case {
        name: "export_str_echo",
        floor: "export_str_echo",
        run: export_str_echo,
        budget: Budget::None,
        worlds: Worlds::Both,
    },
    Case {
        name: "export_enum_echo",
        floor: "export_str_echo",
        run: export_enum_echo,
        budget: Budget::Ratio(1.0),
        worlds: Worlds::Both,
    },
    Case {
        name: "export_enum_echo_long",
        floor: "export_str_echo",
        run: export_enum_echo_long,
        budget: Budget::Ratio(1.0),
        worlds: Worlds::Both,
    },
    // The floor of a String result: the Rust function called directly, its String
    // allocated and freed.
    Case { name: "direct_greet", floor: "direct_greet", run: direct_greet, budget: Budget::None, worlds: Worlds::Both },
    // The floor of a packed String result: a hand-written shim copying the String into a
    // new Str object (one allocation; the String's own is the function's).
    Case {
        name: "hand_shim_greet",
        floor: "direct_greet",
        run: hand_greet,
        budget: Budget::None,
        worlds: Worlds::Both,
    },
    // Two allocations are inherent: the function's own String, and the Str object that
    // adopts or copies it (the ABI puts the object header before the byte array). The
    // allocator's malloc and free are most of the cost over `direct_greet`.
    Case {
        name: "export_string_result",
        floor: "hand_shim_greet",
        run: export_string_result,
        budget: Budget::Ratio(1.05),
        worlds: Worlds::Both,
    },
    Case {
        name: "struct2_tuple",
        floor: "struct2_expanded",
        run: struct2_tuple,
        budget: Budget::None,
        worlds: Worlds::Both,
    },
    Case {
        name: "struct2_expanded",
        floor: "hand_shim_add",
        run: struct2_expanded,
        budget: Budget::None,
        worlds: Worlds::Both,
    },
    Case {
        name: "struct4_tuple",
        floor: "struct4_expanded",
        run: struct4_tuple,
        budget: Budget::None,
        worlds: Worlds::Both,
    },
    Case {
        name: "struct4_expanded",
        floor: "hand_shim_add",
        run: struct4_expanded,
        budget: Budget::None,
        worlds: Worlds::Both,
    },
    Case {
        name: "export_tensor_slice",
        floor: "hand_shim_add",
        run: tensor_slice,
        budget: Budget::None,
        worlds: Worlds::Both,
    },
    Case {
        name: "export_host_tensor",
        floor: "export_tensor_slice",
        run: host_tensor,
        budget: Budget::Ratio(1.1),
        worlds: Worlds::Both,
    },
    Case {
        name: "export_host_tensor_into",
        floor: "export_tensor_slice",
        run: host_tensor_into,
        budget: Budget::None,
        worlds: Worlds::Both,
    },
    Case {
        name: "direct_env_get_stream",
        floor: "direct_env_get_stream",
        run: direct_env_get_stream,
        budget: Budget::None,
        worlds: Worlds::TvmFfiOnly,
    },
    Case {
        name: "env_stream",
        floor: "direct_add",
        run: env_stream,
        budget: Budget::Instructions(40),
        worlds: Worlds::EmbeddedOnly,
    },
    Case {
        name: "env_stream_host",
        floor: "direct_env_get_stream",
        run: env_stream,
        budget: Budget::Over(10),
        worlds: Worlds::TvmFfiOnly,
    },
    Case {
        name: "hand_env_tensor_alloc",
        floor: "hand_env_tensor_alloc",
        run: hand_env_tensor_alloc,
        budget: Budget::None,
        worlds: Worlds::Both,
    },
    Case {
        name: "tensor_empty_uninit_1024",
        floor: "hand_env_tensor_alloc",
        run: tensor_empty_uninit,
        budget: Budget::Ratio(1.1),
        worlds: Worlds::Both,
    },
    Case {
        name: "tensor_empty_1024",
        floor: "hand_env_tensor_alloc",
        run: tensor_empty,
        // `Tensor::empty` zero-fills the 4 KiB (glibc's `rep stosb`, one counted instruction
        // per byte under callgrind), which the C++ path skips: no budget.
        budget: Budget::None,
        worlds: Worlds::Both,
    },
    Case {
        name: "export_tensor_view",
        floor: "hand_shim_add",
        run: tensor_view,
        budget: Budget::None,
        worlds: Worlds::Both,
    },
    // A body's `Error::value_error`, and a derived error type's kind: the same cost.
    Case {
        name: "error_body_value",
        floor: "error_body_value",
        run: error_body_value,
        budget: Budget::None,
        worlds: Worlds::Both,
    },
    Case {
        name: "error_body_derived",
        floor: "error_body_value",
        run: error_body_derived,
        budget: Budget::Ratio(1.0),
        worlds: Worlds::Both,
    },
    // Under a tvm-ffi host the error is formatted when raised (the host stores finished
    // Error objects), so raising alone costs what error_raise_and_take measures.
    Case {
        name: "error_raise_only",
        floor: "hand_shim_add",
        run: error_raise_only,
        budget: Budget::Instructions(300),
        worlds: Worlds::EmbeddedOnly,
    },
    Case {
        name: "error_raise_and_take",
        floor: "hand_shim_add",
        run: error_wrong_type,
        budget: Budget::Instructions(1500),
        worlds: Worlds::Both,
    },
    Case {
        name: "import_add",
        floor: "hand_shim_add",
        run: import_add,
        budget: Budget::Ratio(1.5),
        worlds: Worlds::Both,
    },
    Case {
        name: "export_callback_arg",
        floor: "hand_shim_add",
        run: callback_arg,
        // 116 until the tvm-ffi release check (4 instructions in every export's shim) made
        // it 120.0002; 124 keeps the margin it had.
        budget: Budget::Instructions(124),
        worlds: Worlds::Both,
    },
    Case {
        name: "typed_function_call",
        floor: "hand_shim_add",
        run: typed_function_call,
        budget: Budget::Instructions(70),
        worlds: Worlds::Both,
    },
    Case {
        name: "function_call_packed",
        floor: "hand_shim_add",
        run: function_call_packed,
        budget: Budget::None,
        worlds: Worlds::Both,
    },
    Case {
        name: "export_i64_arg",
        floor: "hand_shim_add",
        run: export_i64_arg,
        budget: Budget::None,
        worlds: Worlds::Both,
    },
    // A borrowed `&Counter`: one type-index compare, then the payload address.
    Case {
        name: "export_object_ref",
        floor: "export_i64_arg",
        run: export_object_ref,
        budget: Budget::Ratio(1.3),
        worlds: Worlds::Both,
    },
    // The same shim as a free function, reached through the method's Function object (the
    // host reads its packed entry from the object first).
    Case {
        name: "method_call",
        floor: "export_object_ref",
        run: method_call,
        budget: Budget::Ratio(1.2),
        worlds: Worlds::Both,
    },
    Case { name: "field_get", floor: "direct_add", run: field_get, budget: Budget::None, worlds: Worlds::Both },
];

/// The case called `name`.
pub fn case(name: &str) -> Option<&'static Case> {
    CASES.iter().find(|c| c.name == name)
}
