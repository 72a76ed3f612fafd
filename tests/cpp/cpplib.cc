// A library written with tvm-ffi's own C++ export macros, metadata on
// (TVM_FFI_DLL_EXPORT_INCLUDE_METADATA): what typed imports bind to, and what `abi inspect`
// and `abi diff` read by loading it (C++ libraries publish metadata only as functions).
// Built by scripts/test-cpp-library.sh against the apache-tvm-ffi wheel.
#define TVM_FFI_DLL_EXPORT_INCLUDE_METADATA 1
#include <tvm/ffi/function.h>
#include <tvm/ffi/optional.h>
#include <tvm/ffi/reflection/registry.h>
#include <tvm/ffi/string.h>

#include <cstdint>

namespace {

using tvm::ffi::Function;
using tvm::ffi::Optional;
using tvm::ffi::String;

// An untyped Function parameter: its schema says {"type":"ffi.Function"}.
int64_t ApplyTwice(Function f, int64_t x) { return f(f(x).cast<int64_t>()).cast<int64_t>(); }

double Scale(double x, double k) { return x * k; }

String Label(String name, Optional<int64_t> n) {
  return n.has_value() ? String(std::string(name) + "#" + std::to_string(*n)) : name;
}

int64_t Checked(int64_t x) {
  if (x < 0) TVM_FFI_THROW(ValueError) << "negative: " << x;
  return x;
}

}  // namespace

TVM_FFI_DLL_EXPORT_TYPED_FUNC(apply_twice, ApplyTwice);
TVM_FFI_DLL_EXPORT_TYPED_FUNC_DOC(apply_twice, "Calls f on x, then on the result.");
TVM_FFI_DLL_EXPORT_TYPED_FUNC(scale, Scale);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(label, Label);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(checked, Checked);

// A global with metadata (the reflection registry publishes its type_schema).
TVM_FFI_STATIC_INIT_BLOCK() {
  namespace refl = tvm::ffi::reflection;
  refl::GlobalDef().def("cpplib.mul", [](int64_t a, int64_t b) { return a * b; });
}
