#!/usr/bin/env bash
# Installs a pinned requirements file into the project venv (made first by setup-venv.sh),
# again only when the file's content changes: a stamp in the venv records its hash.
# Usage: scripts/venv-pins.sh REQUIREMENTS NAME PROBE...; PROBE (a command run with the
# venv's bin first on PATH) must succeed once installed; NAME is what the stamp is called.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
req=$1 name=$2
shift 2
"$root/scripts/setup-venv.sh"
venv="$root/.venv"
stamp="$venv/.$name-requirements.sha256"
want=$(sha256sum "$req" | cut -d' ' -f1)
probe() { PATH="$venv/bin:$PATH" "$@" >/dev/null 2>&1; }
if [ "$(cat "$stamp" 2>/dev/null)" = "$want" ] && probe "$@"; then
  exit 0
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$req"
"$venv/bin/python" -m pip check >/dev/null
probe "$@" || { echo "error: $name installed from $req, but \`$*\` fails" >&2; exit 1; }
echo "$want" > "$stamp"
echo "$name ready: $(grep -v '^#' "$req" | tr '\n' ' ')"
