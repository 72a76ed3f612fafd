#!/usr/bin/env bash
# How abi finds its runtime when the process itself loads the wheel's libtvm_ffi (not
# Python): RTLD_LOCAL (found through RTLD_NOLOAD), and loaded after the first call (not
# adopted; a library with object types opened then is refused, saying why). One scenario
# per process, since a library decides its runtime once. Then the hostile-call suite again,
# in a process that loaded libtvm_ffi before its first abi call (the tvm-ffi world).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. scripts/tvm-ffi-flags.sh
export ABI_TVM_FFI_LIBDIR=$libdir
for scenario in tvm_ffi_loaded_rtld_local_is_found_with_rtld_noload a_tvm_ffi_runtime_loaded_after_the_first_call_is_not_adopted \
  a_library_with_object_types_opened_after_a_late_tvm_ffi_is_refused_saying_why \
  globals_missing_because_tvm_ffi_came_late_say_so; do
  cargo test --quiet -p abi-derive-tests --test host_bridge -- --ignored --exact "$scenario"
done
cargo test --quiet -p abi-derive-tests --test hostile_calls
