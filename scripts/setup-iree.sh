#!/usr/bin/env bash
# Adds the pinned IREE tools (tests/iree/requirements.txt: iree-run-module,
# iree-benchmark-module, iree-compile) to the project venv. Idempotent: reinstalls only when
# the pins change. Fails loudly.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
exec "$root/scripts/venv-pins.sh" "$root/tests/iree/requirements.txt" iree iree-run-module --help
