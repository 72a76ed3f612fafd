#!/usr/bin/env bash
# Adds the pinned Apache TVM (tests/tvm/requirements.txt, about 100 MB) to the project venv,
# for the Apache TVM client tests (tests/tvm). Idempotent: reinstalls only when the pin
# changes. apache-tvm 0.27 depends on the same apache-tvm-ffi the venv pins.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
exec "$root/scripts/venv-pins.sh" "$root/tests/tvm/requirements.txt" tvm python -c "import tvm"
