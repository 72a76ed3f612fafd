#!/usr/bin/env bash
# The whole test suite: Rust tests, the interop suite against the real tvm_ffi Python
# package (in a project-local venv this script builds), the C++ host, and leak checks.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

# Each step prints its name; the time each took is printed when the next begins, and all of
# them again at the end, with the total (CI stops a run at 90 minutes).
times=() current= began=$SECONDS
step() {
  if [ -n "$current" ]; then
    times+=("$(printf '%6d s  %s' $((SECONDS - began)) "$current")")
    printf '    (%s: %d s)\n' "$current" $((SECONDS - began))
  fi
  current=$* began=$SECONDS
  [ -z "$current" ] || printf '\n==> %s\n' "$*"
}
total_start=$SECONDS

# Where cargo puts build outputs (CARGO_TARGET_DIR may point outside the checkout); the
# Python suite and the scripts below read it from here.
ABI_TARGET_DIR=$(scripts/target-dir.sh)
export ABI_TARGET_DIR

step "system tools"
scripts/ensure-tools.sh

step "format and lints"
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --quiet -- -D warnings
RUSTDOCFLAGS=-Dwarnings cargo doc --workspace --no-deps --quiet

step "Rust tests"
cargo test --workspace --quiet

step "Python venv (apache-tvm-ffi from PyPI)"
scripts/setup-venv.sh

step "build the example libraries"
cargo build --quiet -p signal-kit -p abi-interop-lib -p abi-mathlib -p abi-objects-lib -p abi-objects-twin -p abi-objects-conflict -p abi-trial-lib -p running-stats -p tensor-kit -p iree-kit -p op-kit -p abi-cli

step "Python interop suite"
.venv/bin/python -m pytest -q tests/python

# The wheels allow every apache-tvm-ffi in abi-shared's TVM_FFI_REQUIREMENT: the suites that
# load libraries run under its oldest release too (the newest is the main venv's).
step "Python suites under the oldest apache-tvm-ffi (tests/python/requirements-oldest.txt)"
scripts/setup-venv.sh .venv-oldest tests/python/requirements-oldest.txt
.venv-oldest/bin/python -m pytest -q tests/python/test_interop.py tests/python/test_running_stats.py \
  tests/python/test_objects.py tests/python/test_globals.py tests/python/test_tvm_ffi_versions.py

# torch and JAX calling op-kit's ops (issue 40): a venv of its own (6 GB; setup-venv.sh keeps
# its 3 GB of wheels in pip's cache directory), after the libraries and abi-cli are built.
step "framework ops: torch and JAX (tests/python/requirements-frameworks.txt)"
scripts/setup-venv.sh .venv-frameworks tests/python/requirements-frameworks.txt
ABI_FRAMEWORK_TESTS=1 .venv-frameworks/bin/python -m pytest -q tests/python/test_ops_torch.py \
  tests/python/test_ops_jax.py tests/python/test_ops_client.py tests/python/test_ops_docs.py

for extra in scripts/test-*.sh; do
  [ -e "$extra" ] || continue
  step "$(basename "$extra")"
  bash "$extra"
done

step ""
printf '\nstep times:\n'
printf '%s\n' "${times[@]}"
printf '%6d s  total\n' $((SECONDS - total_start))
