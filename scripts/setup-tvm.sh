#!/usr/bin/env bash
# Adds the pinned Apache TVM (tests/tvm/requirements.txt, about 100 MB) to the project venv,
# for the Apache TVM client tests (tests/tvm). Idempotent: reinstalls only when the pin
# changes. apache-tvm 0.27 depends on the same apache-tvm-ffi the venv pins.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup-venv.sh"
venv="$root/.venv"
req="$root/tests/tvm/requirements.txt"
stamp="$venv/.tvm-requirements.sha256"
want=$(sha256sum "$req" | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" = "$want" ] && "$venv/bin/python" -c "import tvm" 2>/dev/null; then
  exit 0
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$req"
"$venv/bin/python" -m pip check
echo "$want" > "$stamp"
echo "Apache TVM ready: $("$venv/bin/python" -m pip show apache-tvm | grep ^Version)"
