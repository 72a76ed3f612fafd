#!/usr/bin/env bash
# Reading what the apache-tvm-ffi wheel's libraries register by loading them: `abi inspect
# --globals` and `abi bindgen --globals` on libtvm_ffi_testing.so's `testing.*` and
# libtvm_ffi's `ffi.*` globals.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. scripts/tvm-ffi-flags.sh
export ABI_TVM_FFI_LIBDIR=$libdir
cargo test --quiet -p abi-cli --test globals -- --include-ignored
