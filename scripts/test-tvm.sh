#!/usr/bin/env bash
# Apache TVM as a caller: the pinned apache-tvm wheel is added to the project venv, and
# Relax and TIR programs compiled for llvm call a Rust kernel's global (tests/tvm).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/setup-tvm.sh
cargo build --quiet -p tensor-kit
ABI_TARGET_DIR=${ABI_TARGET_DIR:-$(scripts/target-dir.sh)} .venv/bin/python -m pytest -q tests/tvm
