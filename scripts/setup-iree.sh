#!/usr/bin/env bash
# Adds the pinned IREE tools (tests/iree/requirements.txt: iree-run-module,
# iree-benchmark-module, iree-compile) to the project venv. Idempotent: reinstalls only when
# the pins change. Fails loudly.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup-venv.sh"
venv="$root/.venv"
req="$root/tests/iree/requirements.txt"
stamp="$venv/.iree-requirements.sha256"
want=$(sha256sum "$req" | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" = "$want" ] && [ -x "$venv/bin/iree-run-module" ]; then
  exit 0
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$req"
"$venv/bin/iree-run-module" --version >/dev/null 2>&1 || "$venv/bin/iree-run-module" --help >/dev/null
echo "$want" > "$stamp"
echo "IREE tools ready: $("$venv/bin/python" -m pip show iree-base-runtime | grep ^Version)"
