#!/usr/bin/env bash
# The generated code stays small: a two-argument export expands to 55 lines or fewer.
set -euo pipefail
exec "$(dirname "$0")/expansion-lines.sh"
