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
pip=("$venv/bin/python" -m pip --quiet --disable-pip-version-check)
# The wheels are kept in pip's cache directory and installed from there: pip's own HTTP cache
# stores nothing when the server sends no caching headers (this project's mirror sends none),
# and .venv-frameworks is 3 GB of downloads. Offline first; what is missing is downloaded
# (pip download keeps the files already there). No cache (PIP_NO_CACHE_DIR): straight from PyPI.
# --no-compile: Python compiles what is imported when it is; compiling all of torch and JAX
# up front took 1.5 of the 3 minutes of an install from the wheelhouse.
if house="$("$venv/bin/python" -m pip cache dir 2>/dev/null)/abi-wheelhouse"; then
  "${pip[@]}" install --no-compile --no-index --find-links "$house" -r "$req" 2>/dev/null || {
    "${pip[@]}" download --dest "$house" -r "$req"
    "${pip[@]}" install --no-compile --no-index --find-links "$house" -r "$req"
  }
else
  "${pip[@]}" install --no-compile -r "$req"
fi
modules="tvm_ffi, numpy, pytest"
[ $# -gt 0 ] || modules="$modules, mypy, ziglang" # only the main venv has mypy and zig
case $req in */requirements-frameworks.txt) modules="$modules, mypy, torch, jax, jax_tvm_ffi" ;; esac
"$venv/bin/python" -c "import $modules; print('venv ready: tvm_ffi', tvm_ffi.__version__)"
if [ $# -eq 0 ]; then
  "$venv/bin/cargo-zigbuild" --version >/dev/null # the broad-wheel route and test-aarch64.sh link with it
fi
echo "$want" > "$stamp"
