#!/usr/bin/env bash
# Bindings to what the apache-tvm-ffi wheel's libraries register, read by loading them:
# `abi inspect --globals` and `abi bindgen --globals` on libtvm_ffi_testing.so's
# `testing.*` and libtvm_ffi's `ffi.*` globals (the checked-in bindings regenerate byte for
# byte), and those bindings compiled, bound and called from Rust.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. scripts/tvm-ffi-flags.sh
export ABI_TVM_FFI_LIBDIR=$libdir
cargo test --quiet -p abi-cli --test globals -- --include-ignored
cargo test --quiet -p abi-derive-tests --test bindgen_tvm_ffi -- --include-ignored
