#!/usr/bin/env bash
# The fuzz targets (fuzz/fuzz_targets/: the export, class and IREE record readers, metadata
# into the type model, a whole library file as `abi --no-load` reads it, the stub writer
# whose output must parse) each run for a fixed number of executions from the seeds of the
# real libraries (scripts/fuzz-seeds.sh), with a fixed seed, so a run is the same each
# time: 20,000 executions a target, 5,000 of the stub writer (each checked by Python's
# ast.parse) and 3,000 of whole library files (megabytes each). A crash, a 10-second input
# or one allocation over 512 MiB fails. ABI_FUZZ_RUNS=N runs every target N times instead.
# Longer campaigns: scripts/fuzz.sh --minutes N.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
target=${ABI_TARGET_DIR:-$(scripts/target-dir.sh)}
runs_of() {
  [ -z "${ABI_FUZZ_RUNS:-}" ] || { echo "$ABI_FUZZ_RUNS"; return; }
  case $1 in
    library_file) echo 3000 ;;
    stubs) echo 5000 ;;
    *) echo 20000 ;;
  esac
}
# --build: the seeds and the targets only (the test command builds them in a step of its
# own, then runs them on one core beside other steps); the runs below build first when
# needed.
case ${1:-} in
  --build) scripts/fuzz-seeds.sh "$target/fuzz/seeds" >/dev/null && scripts/fuzz-build.sh >/dev/null; exit ;;
  "") ;;
  *) echo "usage: scripts/test-fuzz.sh [--build]" >&2; exit 2 ;;
esac
scripts/fuzz-seeds.sh "$target/fuzz/seeds" >/dev/null
bin=$(scripts/fuzz-build.sh)
# Each target's corpus is a temporary folder, removed after its run and on any exit (a
# failing target, or the test command stopping this step), so none is left in /tmp.
corpus=
trap '[ -z "$corpus" ] || rm -rf "$corpus" "$corpus.log"' EXIT
# The seeds' size (whole libraries are megabytes), not libFuzzer's 1 MiB cap.
max_len() { if [ "$1" = library_file ]; then echo 4194304; else echo 1048576; fi; }
for source in fuzz/fuzz_targets/*.rs; do
  t=$(basename "$source" .rs) start=$SECONDS runs=$(runs_of "$t")
  corpus=$(mktemp -d)
  mkdir -p "fuzz/artifacts/$t"
  # What a run finds goes to a fresh folder, not the seeds, so every run starts alike.
  ASAN_OPTIONS=detect_odr_violation=0 "$bin/$t" "$corpus" "$target/fuzz/seeds/$t" -artifact_prefix="fuzz/artifacts/$t/" \
    -runs="$runs" -seed=43 -timeout=10 -malloc_limit_mb=512 -max_len="$(max_len "$t")" 2>"$corpus.log" ||
    { tail -n 40 "$corpus.log" >&2; echo "FAIL: fuzz target $t (log above; the input is in fuzz/artifacts/$t/)" >&2; exit 1; }
  echo "fuzz $t: $runs executions, $((SECONDS - start)) s"
  rm -rf "$corpus" "$corpus.log"
done
