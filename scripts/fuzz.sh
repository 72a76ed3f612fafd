#!/usr/bin/env bash
# A fuzzing campaign: every target of fuzz/fuzz_targets/ for N minutes in all (split
# evenly), seeded from the real libraries (scripts/fuzz-seeds.sh), each keeping what it
# finds in fuzz/corpus/<target> (ignored by git) for the next campaign; a crash is saved
# under fuzz/artifacts/<target>/ and fails the run. Usage: scripts/fuzz.sh --minutes N
# [TARGET...]. Needs the nightly toolchain; the targets are built by scripts/fuzz-build.sh
# --campaign (optimised, as cargo-fuzz builds them).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
minutes=
targets=()
while [ $# -gt 0 ]; do
  case $1 in
    --minutes) minutes=$2; shift 2 ;;
    -*) echo "usage: scripts/fuzz.sh --minutes N [TARGET...]" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
# libFuzzer runs without end for 0 seconds: at least a minute.
[[ $minutes =~ ^[1-9][0-9]*$ ]] || { echo "usage: scripts/fuzz.sh --minutes N [TARGET...] (N >= 1)" >&2; exit 2; }
target=${ABI_TARGET_DIR:-$(scripts/target-dir.sh)}
[ ${#targets[@]} -gt 0 ] || mapfile -t targets < <(basename -s .rs fuzz/fuzz_targets/*.rs)
for t in "${targets[@]}"; do
  [ -e "fuzz/fuzz_targets/$t.rs" ] ||
    { echo "no fuzz target $t; the targets: $(basename -s .rs fuzz/fuzz_targets/*.rs | tr '\n' ' ')" >&2; exit 2; }
done
seconds=$(( minutes * 60 / ${#targets[@]} ))
[ "$seconds" -gt 0 ] || seconds=1
echo "building the example libraries for seeds, then the targets (release): minutes from cold, before the $minutes minute(s)"
scripts/fuzz-seeds.sh "$target/fuzz/seeds" >/dev/null
bin=$(scripts/fuzz-build.sh --campaign)
# The seeds' size (whole libraries are megabytes), not libFuzzer's 1 MiB cap.
max_len() { if [ "$1" = library_file ]; then echo 4194304; else echo 1048576; fi; }
for t in "${targets[@]}"; do
  mkdir -p "fuzz/corpus/$t" "fuzz/artifacts/$t"
  echo "==> $t: $seconds s"
  # -malloc_limit_mb: one allocation larger than any input could need is a finding.
  ASAN_OPTIONS=detect_odr_violation=0 "$bin/$t" "fuzz/corpus/$t" "$target/fuzz/seeds/$t" -artifact_prefix="fuzz/artifacts/$t/" \
    -max_total_time="$seconds" -timeout=10 -malloc_limit_mb=512 -max_len="$(max_len "$t")" -print_final_stats=1
done
