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

scripts/ensure-tools.sh # valgrind among them

# The test binaries, from cargo's JSON messages: the workspace's build (what the Rust tests
# step built, so nothing is compiled again), of which abi-core's and four derive suites'.
mapfile -t exes < <(
  cargo test --workspace --no-run --quiet --message-format=json | python3 -c '
import json, sys
derive = {"one_runtime", "objects", "objects_between_libraries", "globals"}
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") != "compiler-artifact" or not m.get("executable") or not m["profile"]["test"]:
        continue
    package = m["manifest_path"].replace("\\", "/").split("/")[-2]
    if package == "abi-core" or (package == "abi-derive-tests" and m["target"]["name"] in derive):
        print(m["executable"])'
)
if [ ${#exes[@]} -eq 0 ]; then
  echo "FAIL: cargo reported no abi-core test executables" >&2
  exit 1
fi

failed=()
for exe in "${exes[@]}"; do
  printf '  valgrind %s\n' "$(basename "$exe")"
  if ! scripts/memcheck.sh "$exe" --test-threads=1 --quiet; then
    failed+=("$(basename "$exe")")
  fi
done

if [ ${#failed[@]} -ne 0 ]; then
  echo "FAIL: valgrind reported errors in: ${failed[*]}" >&2
  exit 1
fi
echo "valgrind: no memory errors or leaks in ${#exes[@]} test binaries (abi-core, one_runtime, objects, objects_between_libraries, globals)"
