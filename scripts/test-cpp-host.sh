#!/usr/bin/env bash
# The C++ host (tests/cpp/host.cc), compiled against the apache-tvm-ffi wheel's headers
# and libtvm_ffi from the project venv, loading the example libraries; then the same run
# under valgrind: objects made in C++ and released by Rust, and the reverse, with no
# memory error and no definite or indirect leak, Rust object types included; the stream
# and tensor allocator it sets through c_env_api.h are what a Rust kernel sees.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

. scripts/tvm-ffi-flags.sh

cargo build --quiet -p signal-kit -p abi-interop-lib -p abi-mathlib -p abi-objects-lib -p tensor-kit
target=${ABI_TARGET_DIR:-$(scripts/target-dir.sh)}

mkdir -p "$target/cpp"
host=$target/cpp/host
if [ ! -x "$host" ] || [ tests/cpp/host.cc -nt "$host" ] || [ "$config" -nt "$host" ]; then
  g++ -std=c++17 -O1 -Wall -Wextra -Werror -isystem "$includedir" -isystem "$dlpackdir" tests/cpp/host.cc \
    -L"$libdir" -ltvm_ffi -Wl,-rpath,"$libdir" -o "$host"
fi
libs=("$target/debug/libabi_interop_lib.so" "$target/debug/libsignal_kit.so" "$target/debug/libmathlib.so" "$target/debug/libabi_objects_lib.so"
  "$target/debug/libtensor_kit.so")
"$host" "${libs[@]}"

echo "valgrind over the C++ host"
scripts/memcheck.sh "$host" "${libs[@]}" >/dev/null 2>"$target/cpp/valgrind.log" || {
  cat "$target/cpp/valgrind.log" >&2
  echo "FAIL: valgrind reported memory errors or leaks in the C++ host" >&2
  exit 1
}
echo "C++ host under valgrind: no memory errors or leaks"
