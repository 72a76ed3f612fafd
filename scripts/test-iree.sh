#!/usr/bin/env bash
# The iree-kit example as an IREE VM dynamic module: the pinned IREE tools are installed
# into the project venv, tests/iree/*.mlir are compiled by iree-compile, and iree-run-module
# calls every function (results, error statuses and messages, both message modes, many
# calls in one run, a wrong import refused, valgrind over a run): tests/iree/test_iree.py.
# The same library's TVM FFI side runs in the Python interop suite (test_iree_kit.py).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/setup-iree.sh
cargo build --quiet -p iree-kit
ABI_TARGET_DIR=${ABI_TARGET_DIR:-$(scripts/target-dir.sh)} .venv/bin/python -m pytest -q tests/iree
