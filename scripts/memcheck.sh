#!/usr/bin/env bash
# Runs a command under valgrind's memcheck with the project's rules: any memory error, or a
# definite or indirect leak, fails (exit 1); "possibly lost" and still-reachable blocks
# (thread-locals, registries kept for the process) are ignored. Used by test-valgrind.sh
# and test-cpp-host.sh.
set -euo pipefail
RUST_BACKTRACE=0 exec valgrind --leak-check=full --show-leak-kinds=definite,indirect \
  --errors-for-leak-kinds=definite,indirect --error-exitcode=1 -q "$@"
