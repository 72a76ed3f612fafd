#!/usr/bin/env bash
# Creates the project-local Python venv (.venv) with the pinned interop dependencies.
# Idempotent: reuses the venv when the pins have not changed. Fails loudly.
# Usage: scripts/setup-venv.sh [VENV REQUIREMENTS]: another venv from another pinned file,
# both relative to the checkout (scripts/test.sh makes .venv-oldest from
# tests/python/requirements-oldest.txt, the oldest apache-tvm-ffi the wheels allow).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
venv="$root/${1:-.venv}"
req="$root/${2:-tests/python/requirements.txt}"
stamp="$venv/.requirements.sha256"
want=$(sha256sum "$req" | cut -d' ' -f1)
if [ -x "$venv/bin/python" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
  exit 0
fi
python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$req"
modules="tvm_ffi, numpy, pytest"
[ $# -gt 0 ] || modules="$modules, mypy, ziglang" # only the main venv has mypy and zig
"$venv/bin/python" -c "import $modules; print('venv ready: tvm_ffi', tvm_ffi.__version__)"
if [ $# -eq 0 ]; then
  "$venv/bin/cargo-zigbuild" --version >/dev/null # the broad-wheel route and test-aarch64.sh link with it
fi
echo "$want" > "$stamp"
