#!/usr/bin/env bash
# Memcheck over every abi-core test binary and the two-library test (two abi cdylibs
# sharing one runtime with no tvm-ffi host: maps, arrays, strings, functions, errors and
# globals crossing both ways): objects are created and released by hand (headers,
# deleters, cells), so leaks and invalid reads are checked on real runs.
# Only definite and indirect leaks count; "possibly lost" and still-reachable blocks
# (thread-locals, the embedded global registry) are expected and ignored.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

if ! command -v valgrind >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "installing valgrind"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind >/dev/null
  else
    echo "FAIL: valgrind is not installed (apt-get install valgrind)" >&2
    exit 1
  fi
fi

# Build the test binaries and collect their paths from cargo's JSON messages.
mapfile -t exes < <(
  {
    cargo test -p abi-core --no-run --quiet --message-format=json
    cargo test -p abi-derive-tests --test one_runtime --test objects --test objects_between_libraries --test globals --no-run --quiet --message-format=json
  } | sed -n 's/.*"executable":"\([^"]*\)".*/\1/p'
)
if [ ${#exes[@]} -eq 0 ]; then
  echo "FAIL: cargo reported no abi-core test executables" >&2
  exit 1
fi

failed=()
for exe in "${exes[@]}"; do
  printf '  valgrind %s\n' "$(basename "$exe")"
  if ! RUST_BACKTRACE=0 valgrind --leak-check=full --show-leak-kinds=definite,indirect \
    --errors-for-leak-kinds=definite,indirect --error-exitcode=1 -q \
    "$exe" --test-threads=1 --quiet; then
    failed+=("$(basename "$exe")")
  fi
done

if [ ${#failed[@]} -ne 0 ]; then
  echo "FAIL: valgrind reported errors in: ${failed[*]}" >&2
  exit 1
fi
echo "valgrind: no memory errors or leaks in ${#exes[@]} test binaries (abi-core, one_runtime, objects, objects_between_libraries, globals)"
