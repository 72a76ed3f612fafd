#!/usr/bin/env bash
# Every stated cost budget, checked on exact instruction counts (callgrind), and the table
# benches/README.md shows checked against this run.
set -euo pipefail
cd "$(dirname "$0")/.."
exec scripts/bench.sh --check
