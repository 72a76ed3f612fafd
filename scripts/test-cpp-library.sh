#!/usr/bin/env bash
# A library written with tvm-ffi's own C++ export macros (tests/cpp/cpplib.cc), compiled
# against the apache-tvm-ffi wheel: typed imports bind to it (a typed callback against its
# untyped Function parameter) and refuse real mismatches, its C++ global's metadata is
# checked by bind_globals(), the `abi` tool reads it (tests/cli.rs) and writes the bindings
# examples/call_cpp_library.rs calls it through (examples/generated/cpplib.rs).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

. scripts/tvm-ffi-flags.sh
target=${ABI_TARGET_DIR:-$(scripts/target-dir.sh)}
mkdir -p "$target/cpp"
lib=$target/cpp/libcpplib.so
if [ ! -f "$lib" ] || [ tests/cpp/cpplib.cc -nt "$lib" ] || [ "$config" -nt "$lib" ]; then
  g++ -std=c++17 -O1 -shared -fPIC -Wall -Wextra -Werror -isystem "$includedir" -isystem "$dlpackdir" \
    tests/cpp/cpplib.cc -L"$libdir" -ltvm_ffi -Wl,-rpath,"$libdir" -o "$lib"
fi
ABI_CPP_LIBRARY=$lib cargo test --quiet -p abi-derive-tests --test cpp_library -- --include-ignored
# abi-cli's ignored tests include those of the wheel's globals (scripts/test-bindgen.sh).
ABI_CPP_LIBRARY=$lib ABI_TVM_FFI_LIBDIR=$libdir cargo test --quiet -p abi-cli -- --include-ignored
# The example that calls this library through the bindings `abi bindgen` wrote for it.
out=$(cargo run --quiet -p abi-examples --bin call_cpp_library -- "$lib")
grep -qx 'cpplib.mul(6, 7) = 42' <<<"$out" && grep -qx 'checked(-1) raised ValueError: negative: -1' <<<"$out" \
  || { echo "call_cpp_library printed:"; echo "$out"; exit 1; }
