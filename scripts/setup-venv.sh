#!/usr/bin/env bash
# Creates the project-local Python venv (.venv) with the pinned interop dependencies.
# Idempotent: reuses the venv when the pins have not changed. Fails loudly.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
venv="$root/.venv"
req="$root/tests/python/requirements.txt"
stamp="$venv/.requirements.sha256"
want=$(sha256sum "$req" | cut -d' ' -f1)
if [ -x "$venv/bin/python" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
  exit 0
fi
python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$req"
"$venv/bin/python" -c "import tvm_ffi, numpy, pytest, mypy, ziglang; print('venv ready: tvm_ffi', tvm_ffi.__version__)"
"$venv/bin/cargo-zigbuild" --version >/dev/null # the broad-wheel route and test-aarch64.sh link with it
echo "$want" > "$stamp"
