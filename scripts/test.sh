#!/usr/bin/env bash
# The whole test suite, the command CI runs: formatting, lints and docs, the Rust tests, the
# interop suites against the real tvm_ffi Python package (in a project-local venv this
# script builds), the framework ops, the C++ host, IREE's and Apache TVM's tools, the
# sanitizers, Miri, the fuzz runs, the other platforms and the cost budgets. The steps are
# scripts/test-steps.toml, run by scripts/run-steps.py: two at a time where one of them
# keeps only one core busy, each one's output printed whole when it ends, and the time
# table at the end (CONTRIBUTING.md has each step's budget).
#
# Usage: scripts/test.sh [--quick] [--list]
#   --quick   the inner loop's tier: formatting, lints and docs, the libraries, the Rust
#             tests and both Python suites (interop against the real tvm_ffi, packaging):
#             at most 10 minutes warm
#   --list    the steps, their budgets and order, without running anything (with
#             --quick, the quick tier's)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
for arg in "$@"; do
  case $arg in
    --quick | --list) ;;
    *) [ "$arg" = --help ] || echo "error: unknown option $arg" >&2
       sed -n '/^# Usage/,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
  esac
done

# Every scripts/test-*.sh is a step: one not named in the plan would silently not run.
for script in scripts/test-*.sh; do
  grep -q "scripts/$(basename "$script")" scripts/test-steps.toml ||
    { echo "error: $script is not a step of scripts/test-steps.toml" >&2; exit 1; }
done

# CONTRIBUTING.md states each step's budget: it must be the plan's.
python3 scripts/run-steps.py scripts/test-steps.toml --doc CONTRIBUTING.md

# Where cargo puts build outputs (CARGO_TARGET_DIR may point outside the checkout); the
# Python suite and the scripts read it from here.
ABI_TARGET_DIR=$(scripts/target-dir.sh)
export ABI_TARGET_DIR
exec python3 scripts/run-steps.py scripts/test-steps.toml "$@"
