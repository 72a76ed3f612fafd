// A C++ tvm-ffi host for the Rust example libraries: compiled against the apache-tvm-ffi
// wheel's headers and libtvm_ffi, it loads each library with Module::LoadFromFile and
// calls its exports as any C++ user would: typed calls, strings, bytes, enums (names, and
// tagged Arrays for enums with data), optionals, arrays and maps both ways, Rust-made
// functions, tensors both ways, callbacks (one that throws), errors with kinds, metadata and
// docs. scripts/test-cpp-host.sh runs it under valgrind too: every object either side made
// is released by the other without a leak. Rust object types (libabi_objects_lib.so) are
// read through tvm-ffi's reflection API, passed back and forth, held weakly here, and
// released by C++ and Rust holders in both orders.
//
// The environment API (c_env_api.h) is exercised as a C++ framework would: a stream set with
// TVMFFIEnvSetStream and an allocator lent with TVMFFIEnvSetDLPackManagedTensorAllocator are
// what a Rust kernel (libtensor_kit.so) sees, and results come from that allocator.
//
// Usage: host <libabi_interop_lib.so> <libsignal_kit.so> <libmathlib.so> <libabi_objects_lib.so>
//             <libtensor_kit.so>

#include <tvm/ffi/any.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/extra/module.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/object.h>
#include <tvm/ffi/reflection/accessor.h>
#include <tvm/ffi/string.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

namespace ffi = tvm::ffi;

namespace {

int g_checks = 0;

#define CHECK(cond)                                                                        \
  do {                                                                                     \
    if (!(cond)) {                                                                         \
      std::cerr << "FAILED " << __FILE__ << ":" << __LINE__ << ": " #cond << std::endl;     \
      std::exit(1);                                                                        \
    }                                                                                      \
    ++g_checks;                                                                            \
  } while (0)

#define CHECK_EQ(a, b)                                                                     \
  do {                                                                                     \
    auto va = (a);                                                                         \
    auto vb = (b);                                                                         \
    if (!(va == vb)) {                                                                     \
      std::cerr << "FAILED " << __FILE__ << ":" << __LINE__ << ": " #a " == " #b "\n  left:  " \
                << va << "\n  right: " << vb << std::endl;                                 \
      std::exit(1);                                                                        \
    }                                                                                      \
    ++g_checks;                                                                            \
  } while (0)

// Runs `call`, which must throw tvm::ffi::Error of `kind`; returns its message.
std::string ExpectError(const std::string& kind, const std::function<void()>& call) {
  try {
    call();
  } catch (const ffi::Error& e) {
    if (e.kind() != kind) {
      std::cerr << "FAILED: expected a " << kind << ", got " << e.kind() << ": " << e.message()
                << std::endl;
      std::exit(1);
    }
    ++g_checks;
    return e.message();
  }
  std::cerr << "FAILED: expected a " << kind << ", nothing was thrown" << std::endl;
  std::exit(1);
}

ffi::Function Get(const ffi::Module& mod, const char* name) {
  ffi::Optional<ffi::Function> f = mod->GetFunction(name);
  CHECK(f.has_value());
  return f.value();
}

// A CPU allocator for tensors made here (released by whichever side drops the last ref).
struct CPUAlloc {
  void AllocData(DLTensor* t) { t->data = std::malloc(ffi::GetDataSize(*t)); }
  void FreeData(DLTensor* t) { std::free(t->data); }
};

ffi::Tensor MakeF64(const std::vector<double>& values) {
  ffi::Tensor t = ffi::Tensor::FromNDAlloc(CPUAlloc(), {static_cast<int64_t>(values.size())},
                                           DLDataType{kDLFloat, 64, 1}, DLDevice{kDLCPU, 0});
  auto* data = static_cast<double*>(t.data_ptr());
  for (size_t i = 0; i < values.size(); ++i) data[i] = values[i];
  return t;
}

void Scalars(const ffi::Module& lib) {
  CHECK_EQ(Get(lib, "add")(1, 2).cast<int64_t>(), 3);
  CHECK_EQ(Get(lib, "echo_i64")(INT64_MIN).cast<int64_t>(), INT64_MIN);
  CHECK_EQ(Get(lib, "echo_u8")(255).cast<int64_t>(), 255);
  CHECK_EQ(Get(lib, "echo_bool")(true).cast<bool>(), true);
  CHECK_EQ(Get(lib, "echo_f64")(-0.5).cast<double>(), -0.5);
  CHECK(std::isinf(Get(lib, "echo_f32")(INFINITY).cast<double>()));
  CHECK_EQ(Get(lib, "zero_args")().cast<int64_t>(), 42);
  std::string range = ExpectError("ValueError", [&] { Get(lib, "echo_u8")(256); });
  CHECK(range.find("256") != std::string::npos && range.find("u8") != std::string::npos);
  std::cout << "ok  scalars at their bounds, out-of-range rejected" << std::endl;
}

void StringsAndBytes(const ffi::Module& lib) {
  CHECK_EQ(Get(lib, "greet")("abc").cast<ffi::String>(), ffi::String("hello, abc"));
  std::string long_name(300, 'x');
  CHECK_EQ(Get(lib, "greet")(ffi::String(long_name)).cast<std::string>(), "hello, " + long_name);
  CHECK_EQ(Get(lib, "echo_string")(ffi::String("")).cast<std::string>(), "");
  std::string with_nul("a\0b", 3);
  ffi::Bytes bytes(with_nul);
  CHECK_EQ(Get(lib, "byte_len")(bytes).cast<int64_t>(), 3);
  ffi::Bytes echoed = Get(lib, "echo_bytes")(bytes).cast<ffi::Bytes>();
  CHECK_EQ(std::string(echoed.data(), echoed.size()), with_nul);
  std::cout << "ok  strings (inline, long, empty) and bytes with NULs" << std::endl;
}

// A fieldless enum crosses as the name of its variant: a C++ caller passes and reads strings,
// and an unknown name is a ValueError listing the names.
void Enums(const ffi::Module& lib) {
  CHECK_EQ(Get(lib, "next_interp")("bilinear").cast<std::string>(), "cubic");
  CHECK_EQ(Get(lib, "next_interp")().cast<std::string>(), "bilinear");  // the default, "nearest"
  CHECK_EQ(Get(lib, "describe_sampling")(ffi::String("cubic"), ffi::String("mirrored-repeat"), nullptr)
               .cast<std::string>(),
           "cubic at mirrored-repeat");
  ffi::Array<ffi::String> modes{"nearest", "cubic", "nearest"};
  auto counted = Get(lib, "count_interps")(modes).cast<ffi::Array<ffi::Any>>();
  auto counts = counted[0].cast<ffi::Map<ffi::String, int64_t>>();
  CHECK_EQ(counts["nearest"], 2);
  auto borders = counted[1].cast<ffi::Array<ffi::String>>();
  CHECK_EQ(borders[1], ffi::String("mirrored-repeat"));
  std::string unknown = ExpectError("ValueError", [&] { Get(lib, "next_interp")("Bilinear"); });
  CHECK(unknown.find("next_interp") != std::string::npos);
  CHECK(unknown.find(R"("Bilinear" is not a name of Interp; it takes "nearest", "bilinear", "cubic")") !=
        std::string::npos);
  // A derived error type's kind is `<crate>.<Enum>.<Variant>`, not the builtin it names as
  // its Python base: C++ compares the kind itself.
  CHECK_EQ(Get(lib, "sample_at")(2, 5).cast<int64_t>(), 4);
  std::string range = ExpectError("abi_interop_lib.SamplingError.OutOfRange",
                                  [&] { Get(lib, "sample_at")(9, 5); });
  CHECK_EQ(range, "9 is outside 0..5");
  ExpectError("abi_interop_lib.SamplingError.BadSize", [&] { Get(lib, "sample_at")(0, 0); });
}

// An enum with data crosses as a tagged tuple: an Array of its variant's name then its fields
// in declaration order, which C++ builds and reads as any Array (nothing registered for it);
// an unknown name is a ValueError listing the names, a field of the wrong type a TypeError.
void EnumsWithData(const ffi::Module& lib) {
  using Tagged = ffi::Array<ffi::Any>;
  ffi::Function area = Get(lib, "figure_area");
  ffi::Function scale = Get(lib, "scale_figure");
  CHECK_EQ(area(Tagged{ffi::String("Rect"), 2.0, 3.0}).cast<double>(), 6.0);
  CHECK(std::abs(area(Tagged{ffi::String("Circle"), 1.0}).cast<double>() - 3.141592653589793) < 1e-12);
  CHECK_EQ(area(Tagged{ffi::String("Empty")}).cast<double>(), 0.0);
  ffi::Array<ffi::Array<double>> corners{ffi::Array<double>{0.0, 0.0}, ffi::Array<double>{2.0, 0.0},
                                         ffi::Array<double>{2.0, 2.0}, ffi::Array<double>{0.0, 2.0}};
  Tagged square{ffi::String("Polygon"), corners, ffi::String("sq")};
  CHECK_EQ(area(square).cast<double>(), 4.0);
  // A result is read the same way: the name at [0], the fields after it.
  Tagged rect = scale(Tagged{ffi::String("Rect"), 1.0, 2.0}, 1.5).cast<Tagged>();
  CHECK_EQ(rect.size(), 3u);
  CHECK_EQ(rect[0].cast<std::string>(), "Rect");
  CHECK_EQ(rect[1].cast<double>(), 1.5);
  CHECK_EQ(rect[2].cast<double>(), 3.0);
  Tagged half = scale(square, 0.5).cast<Tagged>();
  CHECK_EQ(half[0].cast<std::string>(), "Polygon");
  auto points = half[1].cast<ffi::Array<ffi::Array<double>>>();
  CHECK_EQ(points.size(), 4u);
  CHECK_EQ(points[2][0], 1.0);
  CHECK_EQ(points[2][1], 1.0);
  CHECK_EQ(half[2].cast<std::string>(), "sq*0.5");
  Tagged empty = scale(Tagged{ffi::String("Empty")}, 2.0).cast<Tagged>();
  CHECK_EQ(empty.size(), 1u);
  CHECK_EQ(empty[0].cast<std::string>(), "Empty");
  // Inside containers: an Optional and a Map of Arrays of them.
  ffi::Array<Tagged> figures{Tagged{ffi::String("Rect"), 1.0, 1.0}, Tagged{ffi::String("Circle"), 2.0}};
  auto largest = Get(lib, "largest_figure")(figures).cast<ffi::Array<ffi::Any>>();
  Tagged best = largest[0].cast<Tagged>();
  CHECK_EQ(best[0].cast<std::string>(), "Circle");
  CHECK_EQ(best[1].cast<double>(), 2.0);
  auto by_kind = largest[1].cast<ffi::Map<ffi::String, ffi::Array<Tagged>>>();
  CHECK_EQ(by_kind.size(), 2u);
  CHECK_EQ(by_kind["Rect"][0][0].cast<std::string>(), "Rect");
  std::string unknown = ExpectError("ValueError", [&] { area(Tagged{ffi::String("Square"), 1.0}); });
  CHECK(unknown.find("figure_area") != std::string::npos);
  CHECK(unknown.find(R"("Square" is not a name of Figure; it takes "Circle", "Rect", "Polygon", "Empty")") !=
        std::string::npos);
  std::string wrong =
      ExpectError("TypeError", [&] { area(Tagged{ffi::String("Circle"), ffi::String("wide")}); });
  CHECK(wrong.find("Figure.Circle.r: expected float, got str") != std::string::npos);
  ExpectError("TypeError", [&] { area(ffi::String("Circle")); });
  std::cout << "ok  enums with data: tagged Arrays built and read here, an unknown name refused" << std::endl;
}

void OptionalsAndContainers(const ffi::Module& lib) {
  CHECK(Get(lib, "echo_opt")(nullptr) == nullptr);
  CHECK_EQ(Get(lib, "echo_opt")(7).cast<int64_t>(), 7);
  ffi::Array<int64_t> ints{3, 1, 2};
  ffi::Array<int64_t> back = Get(lib, "echo_ints")(ints).cast<ffi::Array<int64_t>>();
  CHECK_EQ(back.size(), 3u);
  CHECK_EQ(back[0], 3);
  CHECK_EQ(back[2], 2);
  std::cout << "ok  optionals and arrays" << std::endl;
}

void MapsAndFunctions(const ffi::Module& lib, const ffi::Module& math) {
  // A map made here, read by Rust, and a new one made by Rust, released here.
  ffi::Map<ffi::String, int64_t> m{{"a", 1}, {"bb", 2}};
  ffi::Map<ffi::String, int64_t> back = Get(lib, "echo_map")(m).cast<ffi::Map<ffi::String, int64_t>>();
  CHECK_EQ(back.size(), 2u);
  CHECK_EQ(back["bb"], 2);
  ffi::Map<ffi::String, int64_t> counts = Get(math, "word_counts")("a b a").cast<ffi::Map<ffi::String, int64_t>>();
  CHECK_EQ(counts.size(), 2u);
  CHECK_EQ(counts["a"], 2);
  // Function objects made by Rust: one registered as a global, one returned; both called
  // and released here.
  Get(math, "register_scaler")("host.scale3", 3);
  CHECK_EQ(ffi::Function::GetGlobalRequired("host.scale3")(14).cast<int64_t>(), 42);
  ffi::Function panicking = Get(math, "panicking_callback")().cast<ffi::Function>();
  std::string panic = ExpectError("RuntimeError", [&] { panicking(7); });
  CHECK(panic.find("callback refused 7") != std::string::npos);
  std::cout << "ok  maps both ways, Rust functions called and released here" << std::endl;
}

void Tensors(const ffi::Module& lib, const ffi::Module& kit) {
  ffi::Tensor t = MakeF64({1.0, 2.0, 3.5});
  CHECK_EQ(Get(lib, "tensor_sum")(t).cast<double>(), 6.5);
  // In place: the Rust side writes into memory this host owns.
  Get(kit, "scale_inplace")(t, 2.0);
  CHECK_EQ(static_cast<double*>(t.data_ptr())[2], 7.0);
  // A Rust-allocated tensor, read here and released by the Rust deleter when dropped.
  {
    ffi::Tensor normalized = Get(kit, "normalize")(MakeF64({1.0, 3.0})).cast<ffi::Tensor>();
    CHECK_EQ(normalized.numel(), 2);
    CHECK_EQ(normalized.dtype().bits, 32);
    const float* values = static_cast<const float*>(normalized.data_ptr());
    CHECK_EQ(values[0], -1.0f);
    CHECK_EQ(values[1], 1.0f);
  }
  std::string wrong = ExpectError("TypeError", [&] { Get(kit, "apply")(t, 1); });
  CHECK(wrong.find("apply(") == 0);
  std::cout << "ok  tensors: borrowed, written in place, returned from Rust" << std::endl;
}

int g_env_allocs = 0;
int g_env_frees = 0;

// A framework's allocator: malloc'd host memory, counted.
int CountingAlloc(DLTensor* prototype, DLManagedTensorVersioned** out, void*,
                  void (*)(void*, const char*, const char*)) {
  int64_t numel = 1;
  for (int i = 0; i < prototype->ndim; ++i) numel *= prototype->shape[i];
  auto* managed = new DLManagedTensorVersioned{};
  auto* shape = new int64_t[prototype->ndim > 0 ? prototype->ndim : 1];
  std::copy(prototype->shape, prototype->shape + prototype->ndim, shape);
  managed->version = {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
  managed->dl_tensor = *prototype;
  managed->dl_tensor.data = std::malloc(static_cast<size_t>(numel) * prototype->dtype.bits / 8 + 1);
  managed->dl_tensor.shape = shape;
  managed->dl_tensor.strides = nullptr;
  managed->deleter = [](DLManagedTensorVersioned* self) {
    std::free(self->dl_tensor.data);
    delete[] self->dl_tensor.shape;
    delete self;
    ++g_env_frees;
  };
  ++g_env_allocs;
  *out = managed;
  return 0;
}

void Environment(const ffi::Module& tk) {
  DLDevice cuda1{kDLCUDA, 1};
  void* original = reinterpret_cast<void*>(1);
  CHECK_EQ(TVMFFIEnvSetStream(kDLCUDA, 1, reinterpret_cast<void*>(0x5150), &original), 0);
  CHECK(original == nullptr);
  CHECK_EQ(Get(tk, "current_stream")(cuda1).cast<int64_t>(), 0x5150);
  CHECK_EQ(Get(tk, "current_stream")(DLDevice{kDLCUDA, 0}).cast<int64_t>(), 0);
  CHECK_EQ(TVMFFIEnvSetStream(kDLCUDA, 1, original, nullptr), 0);
  CHECK_EQ(Get(tk, "current_stream")(cuda1).cast<int64_t>(), 0);

  DLPackManagedTensorAllocator previous = nullptr;
  CHECK_EQ(TVMFFIEnvSetDLPackManagedTensorAllocator(CountingAlloc, 0, &previous), 0);
  {
    ffi::Tensor ones = Get(tk, "ones")(int64_t{3}).cast<ffi::Tensor>();
    CHECK_EQ(g_env_allocs, 1);
    CHECK_EQ(ones.numel(), 3);
    CHECK_EQ(static_cast<const float*>(ones.data_ptr())[2], 1.0f);
  }
  CHECK_EQ(g_env_frees, 1);
  CHECK_EQ(TVMFFIEnvSetDLPackManagedTensorAllocator(previous, 0, nullptr), 0);
  ffi::Tensor rust_made = Get(tk, "ones")(int64_t{2}).cast<ffi::Tensor>();
  CHECK_EQ(g_env_allocs, 1);
  CHECK_EQ(static_cast<const float*>(rust_made.data_ptr())[1], 1.0f);
  std::cout << "ok  environment: the stream and allocator this host set are the Rust kernel's" << std::endl;
}

void Callbacks(const ffi::Module& lib) {
  ffi::Function triple = ffi::Function::FromTyped([](int64_t x) { return x * 3; });
  CHECK_EQ(Get(lib, "call_fn")(triple, 5).cast<int64_t>(), 15);
  ffi::Function throws = ffi::Function::FromTyped([](int64_t x) -> int64_t {
    TVM_FFI_THROW(ValueError) << "callback refused " << x;
  });
  std::string msg = ExpectError("ValueError", [&] { Get(lib, "call_fn")(throws, 4); });
  CHECK(msg.find("callback refused 4") != std::string::npos);
  std::cout << "ok  C++ lambdas as callbacks, a throwing one comes back with its kind" << std::endl;
}

void Errors(const ffi::Module& lib) {
  CHECK_EQ(ExpectError("TypeError", [&] { Get(lib, "add")(1, "x"); }),
           std::string("add(a: int, b: int) -> int: argument `b` (#1) expected int, got str"));
  CHECK_EQ(ExpectError("TypeError", [&] { Get(lib, "add")(1, 2, 3); }),
           std::string("add(a: int, b: int) -> int takes 2 arguments, got 3"));
  CHECK_EQ(ExpectError("ValueError", [&] { Get(lib, "raise_kind")("ValueError", "bad value"); }),
           std::string("bad value"));
  CHECK_EQ(ExpectError("MyKind", [&] { Get(lib, "raise_kind")("MyKind", "custom"); }), std::string("custom"));
  std::string panic = ExpectError("RuntimeError", [&] { Get(lib, "panics")("boom"); });
  CHECK(panic.find("boom") != std::string::npos);
  CHECK_EQ(Get(lib, "add")(2, 2).cast<int64_t>(), 4);  // alive after the panic
  std::cout << "ok  errors: wrong type, wrong count, kinds, custom kind, panic" << std::endl;
}

void Metadata(const ffi::Module& lib, const ffi::Module& math) {
  ffi::Optional<ffi::String> meta = lib->GetFunctionMetadata("add", true);
  CHECK(meta.has_value());
  std::string json = meta.value();
  CHECK(json.find("\"arg_names\":[\"a\",\"b\"]") != std::string::npos);
  CHECK(json.find("type_schema") != std::string::npos);
  ffi::Optional<ffi::String> doc = lib->GetFunctionDoc("add", true);
  CHECK(doc.has_value());
  CHECK_EQ(std::string(doc.value()), std::string("Adds two integers."));
  CHECK(!lib->GetFunction("no_such_function").has_value());
  CHECK_EQ(Get(math, "divide")(7, 2).cast<int64_t>(), 3);
  // Trailing parameters with defaults may be left out: the shim fills them.
  CHECK_EQ(std::string(Get(math, "show")(2.5).cast<ffi::String>()), "2.50");
  CHECK_EQ(std::string(Get(math, "show")(2.5, 0, 2.0, "m").cast<ffi::String>()), "5m");
  CHECK_EQ(ExpectError("TypeError", [&] { Get(math, "show")(); }),
           std::string("show(x: float, digits: int = 2, scale: float = 1.0, unit: str = \"\", plus: bool = False, "
                       "label: Optional[str] = None) -> str takes 1 to 6 arguments, got 0: missing `x` (#0)"));
  std::cout << "ok  metadata and docs; missing functions are absent" << std::endl;
}

int64_t Dropped(const ffi::Module& objs) { return Get(objs, "dropped")().cast<int64_t>(); }

void Objects(const ffi::Module& objs) {
  namespace refl = ffi::reflection;
  int64_t dropped = Dropped(objs);
  {
    // Made by Rust, read here through the type table: fields by their getters, methods as
    // functions taking the object first, the type key from the header.
    ffi::ObjectRef c = Get(objs, "make_counter")("cpp").cast<ffi::ObjectRef>();
    CHECK_EQ(c->GetTypeKey(), std::string("mylib.Counter"));
    CHECK_EQ(refl::FieldGetter("mylib.Counter", "name")(c).cast<ffi::String>(), ffi::String("cpp"));
    CHECK_EQ(refl::FieldGetter("mylib.Counter", "start")(c).cast<int64_t>(), 0);
    CHECK_EQ(refl::GetMethod("mylib.Counter", "add")(c, 5).cast<int64_t>(), 5);
    CHECK_EQ(Get(objs, "counter_value")(c).cast<int64_t>(), 5);
    // Back and forth: the same object returns, with one reference more while both hold it.
    ffi::ObjectRef back = Get(objs, "keep")(c).cast<ffi::ObjectRef>();
    CHECK(back.same_as(c));
    CHECK_EQ(Get(objs, "ref_count")(c).cast<int64_t>(), 3);
    // Constructed here through `__ffi_init__` and the static method.
    ffi::ObjectRef b = refl::GetMethod("mylib.Counter", "__ffi_init__")("b", 7).cast<ffi::ObjectRef>();
    CHECK_EQ(Get(objs, "counter_value")(b).cast<int64_t>(), 7);
    ffi::ObjectRef z = refl::GetMethod("mylib.Counter", "zero")("z").cast<ffi::ObjectRef>();
    CHECK_EQ(refl::FieldGetter("mylib.Counter", "name")(z).cast<ffi::String>(), ffi::String("z"));
    // Values of other types are refused with the parameter and the type key.
    std::string wrong = ExpectError("TypeError", [&] { Get(objs, "counter_value")(ffi::Array<int64_t>{1}); });
    CHECK(wrong.find("argument `c` (#0) expected mylib.Counter") != std::string::npos);
    ExpectError("TypeError", [&] { Get(objs, "counter_value")(nullptr); });
    CHECK_EQ(Dropped(objs), dropped);
  }
  CHECK_EQ(Dropped(objs), dropped + 3);  // c (and back), b and z, released here
  {
    // A child type: its own fields, its parent's through the parent's key, a writable
    // field set through the reflection setter, and accepted where the parent is expected.
    ffi::ObjectRef l = Get(objs, "make_limited")("lim", 3).cast<ffi::ObjectRef>();
    CHECK_EQ(l->GetTypeKey(), std::string("mylib.LimitedCounter"));
    CHECK_EQ(refl::FieldGetter("mylib.LimitedCounter", "limit")(l).cast<int64_t>(), 3);
    CHECK_EQ(refl::FieldGetter("mylib.Counter", "name")(l).cast<ffi::String>(), ffi::String("lim"));
    refl::FieldSetter("mylib.LimitedCounter", "label")(l, ffi::String("set in C++"));
    CHECK_EQ(refl::FieldGetter("mylib.LimitedCounter", "label")(l).cast<ffi::String>(), ffi::String("set in C++"));
    CHECK(l->IsInstance<ffi::Object>());
    CHECK_EQ(refl::GetMethod("mylib.LimitedCounter", "add_checked")(l, 3).cast<int64_t>(), 3);
    std::string over = ExpectError("ValueError", [&] { refl::GetMethod("mylib.LimitedCounter", "add_checked")(l, 1); });
    CHECK(over.find("passes the limit 3") != std::string::npos);
    CHECK_EQ(Get(objs, "counter_value")(l).cast<int64_t>(), 3);
  }
  CHECK_EQ(Dropped(objs), dropped + 4);
  dropped = Dropped(objs);
  {
    // Release orders: C++ lets go first and a Rust holder drops the value; then Rust lets
    // go first and C++ drops it.
    ffi::ObjectRef first = Get(objs, "make_counter")("rust-last").cast<ffi::ObjectRef>();
    CHECK_EQ(Get(objs, "hold")(first).cast<int64_t>(), 1);
    first = ffi::ObjectRef();
    CHECK_EQ(Dropped(objs), dropped);
    CHECK_EQ(Get(objs, "release_held")().cast<int64_t>(), 1);
    CHECK_EQ(Dropped(objs), dropped + 1);
    ffi::ObjectRef second = Get(objs, "make_counter")("cpp-last").cast<ffi::ObjectRef>();
    Get(objs, "hold")(second);
    CHECK_EQ(Get(objs, "release_held")().cast<int64_t>(), 1);
    CHECK_EQ(Dropped(objs), dropped + 1);
    second = ffi::ObjectRef();
    CHECK_EQ(Dropped(objs), dropped + 2);
  }
  dropped = Dropped(objs);
  {
    // Weak references: a C++ WeakObjectPtr and a Rust WeakObj outlive the value, which is
    // dropped once, with the last strong reference; the memory goes with the last weak one.
    ffi::ObjectRef c = Get(objs, "make_counter")("weak").cast<ffi::ObjectRef>();
    ffi::WeakObjectPtr<ffi::Object> weak(ffi::details::ObjectUnsafe::ObjectPtrFromObjectRef<ffi::Object>(c));
    Get(objs, "watch")(c);
    refl::GetMethod("mylib.Counter", "add")(c, 9);
    CHECK(weak.lock() != nullptr);
    CHECK_EQ(Get(objs, "watched_value")().cast<int64_t>(), 9);
    c = ffi::ObjectRef();
    CHECK_EQ(Dropped(objs), dropped + 1);
    CHECK(weak.lock() == nullptr);
    CHECK(Get(objs, "watched_value")() == nullptr);
    Get(objs, "unwatch")();  // Rust lets go of its weak reference first, C++ last
  }
  CHECK_EQ(Dropped(objs), dropped + 1);
  std::cout << "ok  Rust objects: fields and methods by reflection, child types, both ways, "
               "release orders, weak references"
            << std::endl;
}

// The module goes out of scope (tvm-ffi unloads its library) while an object it made is
// still held here: the library registered types in this process's table, so it pinned
// itself, and the object's fields, methods and deleter still work.
void ObjectsOutliveTheirModule(const char* path) {
  ffi::ObjectRef survivor;
  {
    ffi::Module objs = ffi::Module::LoadFromFile(path);
    Objects(objs);
    survivor = Get(objs, "make_counter")("survivor").cast<ffi::ObjectRef>();
  }
  CHECK_EQ(ffi::reflection::FieldGetter("mylib.Counter", "name")(survivor).cast<ffi::String>(),
           ffi::String("survivor"));
  CHECK_EQ(ffi::reflection::GetMethod("mylib.Counter", "add")(survivor, 2).cast<int64_t>(), 2);
  survivor = ffi::ObjectRef();
  std::cout << "ok  an object outlives the module that made it" << std::endl;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 6) {
    std::cerr << "usage: " << argv[0]
              << " <libabi_interop_lib.so> <libsignal_kit.so> <libmathlib.so> <libabi_objects_lib.so>"
                 " <libtensor_kit.so>"
              << std::endl;
    return 2;
  }
  try {
    ffi::Module lib = ffi::Module::LoadFromFile(argv[1]);
    ffi::Module kit = ffi::Module::LoadFromFile(argv[2]);
    ffi::Module math = ffi::Module::LoadFromFile(argv[3]);
    Scalars(lib);
    StringsAndBytes(lib);
    Enums(lib);
    EnumsWithData(lib);
    OptionalsAndContainers(lib);
    MapsAndFunctions(lib, math);
    Tensors(lib, kit);
    Callbacks(lib);
    Errors(lib);
    Metadata(lib, math);
    ObjectsOutliveTheirModule(argv[4]);
    Environment(ffi::Module::LoadFromFile(argv[5]));
  } catch (const ffi::Error& e) {
    std::cerr << "FAILED: unexpected " << e.kind() << ": " << e.message() << std::endl;
    return 1;
  }
  std::cout << "C++ host: " << g_checks << " checks passed" << std::endl;
  return 0;
}
