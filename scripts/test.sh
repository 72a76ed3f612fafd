#!/usr/bin/env bash
# The whole test suite: Rust tests, the interop suite against the real tvm_ffi Python
# package (in a project-local venv this script builds), the C++ host, and leak checks.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

step() { printf '\n==> %s\n' "$*"; }

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
cargo build --quiet -p signal-kit -p abi-interop-lib -p abi-mathlib -p abi-objects-lib -p abi-objects-twin -p abi-objects-conflict -p running-stats -p iree-kit -p abi-cli

step "Python interop suite"
.venv/bin/python -m pytest -q tests/python

for extra in scripts/test-*.sh; do
  [ -e "$extra" ] || continue
  step "$(basename "$extra")"
  bash "$extra"
done
