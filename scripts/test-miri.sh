#!/usr/bin/env bash
# The runtime's unsafe code under Miri, with both of its aliasing models: Stacked Borrows
# (the default) and Tree Borrows, on the same tests. Installs the nightly `miri` and
# `rust-src` components when missing. Prints each model's time.
#
# What runs (every module of abi-core with `unsafe` is reached by one of these, except the
# ones named under "not run under Miri" below):
#   abi-core's unit and integration tests (abi-core/tests/*.rs): values, objects and the
#     strong/weak protocol, strings, errors and the error slot, arrays, maps, shapes,
#     tensors, functions and closures, the global registry, conversions, the layouts as
#     hosts read them, reflection and schema;
#   abi-derive-tests/tests/shims_as_a_host_calls_them.rs: export shims called through
#     their `__tvm_ffi_*` symbols as function pointers (every parameter kind, null handles,
#     hostile counts, errors, panics, callbacks), field accessors through the type table,
#     typed imports bound through the registry, weak references across threads.
# What `cfg(miri)` switches off, because Miri cannot run it:
#   host discovery (abi-core/src/runtime/process/discovery.rs): dlsym/dlopen of libtvm_ffi;
#   pinning (abi-core/src/runtime/process/pin.rs): dladdr/dlopen;
#   linkme's distributed slices (abi-core/src/runtime/process/linked.rs): extern statics,
#     rust-lang/miri#4171, so a Miri run sees no linked exports, methods or IREE functions.
# What is therefore not run under Miri, and where it runs natively instead: Library::open
# and everything loaded from a cdylib (link/library.rs, runtime/process/attach.rs between
# libraries) and object methods (registered from a linkme slice), under valgrind and ASan
# (scripts/test-valgrind.sh, scripts/test-asan.sh); the IREE module's entry points
# (iree/module.rs: its function table is a linkme slice), under valgrind in the IREE suite
# (tests/iree).
# Tests skipped here, with the reason:
#   one_mebibyte (abi-core/tests/strings.rs): 2 MiB through every string form takes
#     minutes in the interpreter; the same code paths run on the 300-byte strings of the
#     other string tests. Doc tests: examples, compiled and run natively by `cargo test`.
# A negative control proves the step can fail: tests/miri-negative-control holds a Box
# moved after a pointer into it was taken (UB under Stacked Borrows) and a write through
# a shared reference (UB under both); each must be reported as undefined behaviour.
# Two thread tests run a tenth of their rounds under Miri (`cfg!(miri)`), where each
# round is interpreted with every access checked for races:
# refcounts_are_atomic_across_threads (objects.rs) and
# functions_are_callable_from_other_threads (functions.rs); natively, under ASan and
# under valgrind they run in full.
#
# Usage: scripts/test-miri.sh [--build | --stacked-borrows | --tree-borrows]: everything
# (the default), or one part: the build both models share, or one model with its
# negative controls (the test command runs the models side by side after the build).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
target=${ABI_TARGET_DIR:-$(scripts/target-dir.sh)}

if ! cargo +nightly miri --version >/dev/null 2>&1; then
  rustup component add miri rust-src --toolchain nightly
fi

skips=(--skip one_mebibyte)

# Runs one negative-control test under MIRIFLAGS=$1 and fails unless Miri reports UB.
expect_ub() {
  local flags=$1 test=$2 log
  log=$(MIRIFLAGS="$flags" CARGO_TARGET_DIR="$target/miri-negative-control" \
    cargo +nightly miri test --quiet --manifest-path tests/miri-negative-control/Cargo.toml -- --exact "tests::$test" 2>&1 || true)
  if ! grep -q "Undefined Behavior" <<<"$log"; then
    echo "error: the Miri negative control '$test' (MIRIFLAGS='$flags') was not reported as undefined behaviour:" >&2
    echo "$log" >&2
    exit 1
  fi
  echo "negative control $test${flags:+ ($flags)}: undefined behaviour reported, as it must be"
}

# The test programs, built once for both models (MIRIFLAGS reach the interpreter only).
build() {
  cargo +nightly miri test --quiet --no-run -p abi-core --lib --tests
  cargo +nightly miri test --quiet --no-run -p abi-derive-tests --test shims_as_a_host_calls_them
  CARGO_TARGET_DIR="$target/miri-negative-control" \
    cargo +nightly miri test --quiet --no-run --manifest-path tests/miri-negative-control/Cargo.toml
}

run_model() {
  local name=$1 flags=$2 start
  start=$(date +%s)
  MIRIFLAGS="$flags" cargo +nightly miri test --quiet -p abi-core --lib --tests -- "${skips[@]}"
  MIRIFLAGS="$flags" cargo +nightly miri test --quiet -p abi-derive-tests --test shims_as_a_host_calls_them
  echo "miri ($name): $(( $(date +%s) - start )) s"
}

# Each model with its negative controls; the test command runs --build, then the two
# models as steps of their own, side by side (each interprets on one core).
stacked() {
  expect_ub "" box_moved_after_pointer_taken
  expect_ub "" write_through_shared_reference
  run_model "stacked borrows" ""
}
tree() {
  expect_ub "-Zmiri-tree-borrows" write_through_shared_reference
  run_model "tree borrows" "-Zmiri-tree-borrows"
}

case ${1:-} in
  --build) build ;;
  --stacked-borrows) stacked ;;
  --tree-borrows) tree ;;
  "") build && stacked && tree ;;
  *) echo "usage: scripts/test-miri.sh [--build | --stacked-borrows | --tree-borrows]" >&2; exit 2 ;;
esac
