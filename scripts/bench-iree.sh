#!/usr/bin/env bash
# The generated IREE module against a hand-written C one, through the stock IREE tools.
# benches/iree/add_loop.mlir calls add_i32 `n` times from one IREE function; it is compiled
# once per module: `kit` (examples/iree-kit, release build) and `hand`
# (benches/iree/hand_module.c, gcc -O2). Two measurements:
#   - instructions per call through the whole VM path (callgrind over iree-run-module with
#     1,000 and 11,000 calls: the difference over 10,000), exact on these machines;
#   - calls per second from iree-benchmark-module, alternating the two modules for several
#     rounds and taking each one's median (wall-clock: reported, never checked).
#   --check         instruction counts only; fails when kit costs more than 1.10 times hand
#                   per call, or when benches/README.md does not show these counts
#   --write-readme  rewrite the table in benches/README.md from this run (with --check:
#                   instruction columns only, the timing columns keep their last full run)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

check=0 write=0
for arg in "$@"; do
  case "$arg" in
    --check) check=1 ;;
    --write-readme) write=1 ;;
    *) echo "usage: scripts/bench-iree.sh [--check] [--write-readme]" >&2; exit 2 ;;
  esac
done
rounds=${IREE_BENCH_ROUNDS:-7}
calls=${IREE_BENCH_CALLS:-100000}

command -v valgrind >/dev/null || { echo "error: valgrind is required (scripts/ensure-tools.sh installs it)" >&2; exit 1; }
command -v gcc >/dev/null || { echo "error: gcc is required (scripts/ensure-tools.sh installs it)" >&2; exit 1; }
scripts/setup-iree.sh
cargo build --quiet --release -p iree-kit
target=${ABI_TARGET_DIR:-$(scripts/target-dir.sh)}
out=$target/bench-iree
mkdir -p "$out"
# The native tools: .venv/bin/iree-* are Python wrappers that run them as child processes,
# which callgrind would not follow.
tools=$(.venv/bin/python -c 'from iree._runtime import libs; print(libs.library_path)')

gcc -O2 -shared -fPIC -Wall -Wextra -Werror -o "$out/libhand.so" benches/iree/hand_module.c
declare -A lib=([kit]="$target/release/libiree_kit.so" [hand]="$out/libhand.so")
for m in kit hand; do
  sed "s/MODULE/$m/g" benches/iree/add_loop.mlir > "$out/$m.mlir"
  .venv/bin/iree-compile --iree-hal-target-device=local --iree-hal-local-target-device-backends=vmvx \
    "$out/$m.mlir" -o "$out/$m.vmfb"
  got=$("$tools/iree-run-module" --device=local-sync --module="${lib[$m]}" --module="$out/$m.vmfb" \
    --function=add_loop --input=1000 | grep '^result\[0\]')
  [ "$got" = "result[0]: i32=1000" ] || { echo "error: $m.add_i32 loop gave '$got', not i32=1000" >&2; exit 1; }
done

instructions() { # module calls -> instructions executed by the whole run
  local file="$out/cg.$1.$2"
  valgrind --tool=callgrind --callgrind-out-file="$file" "$tools/iree-run-module" --device=local-sync \
    --module="${lib[$1]}" --module="$out/$1.vmfb" --function=add_loop --input="$2" >/dev/null 2>&1
  awk '/^summary:|^totals:/ {print $2; exit}' "$file"
}
: > "$out/results.tsv"
for m in kit hand; do
  a=$(instructions "$m" 1000)
  b=$(instructions "$m" 11000)
  printf 'instr\t%s\t%s\n' "$m" "$(( b - a ))" >> "$out/results.tsv"
done

if [ "$check" = 0 ]; then
  for _ in $(seq "$rounds"); do
    for m in kit hand; do
      "$tools/iree-benchmark-module" --device=local-sync --module="${lib[$m]}" --module="$out/$m.vmfb" \
        --function=add_loop --input="$calls" --benchmark_format=json --benchmark_repetitions=1 2>/dev/null \
        | python3 -c 'import json, sys; b = json.load(sys.stdin)["benchmarks"][0]; assert b["time_unit"] == "ms"; print(b["real_time"])' \
        | while read -r ms; do printf 'ms\t%s\t%s\n' "$m" "$ms" >> "$out/results.tsv"; done
    done
  done
fi

python3 - "$out/results.tsv" "$check" "$write" "$calls" "$rounds" <<'PY'
import pathlib, statistics, sys
sys.path.insert(0, "scripts")
import readme_table
rows = [l.split("\t") for l in pathlib.Path(sys.argv[1]).read_text().splitlines()]
check, write, calls, rounds = sys.argv[2] == "1", sys.argv[3] == "1", int(sys.argv[4]), int(sys.argv[5])
BUDGET = 1.10
instr = {m: int(v) / 10_000 for kind, m, v in rows if kind == "instr"}
ratio = instr["kit"] / instr["hand"]

old = readme_table.shown("benches/README.md", "bench-iree", 5)
if check:
    # Timing columns are not measured by --check: keep the last full run's.
    timing = {k: (v[3], v[4]) for k, v in old.items()}
else:
    ms = {m: statistics.median(float(v) for kind, mm, v in rows if kind == "ms" and mm == m) for m in instr}
    ns = {m: ms[m] * 1e6 / calls for m in ms}
    timing = {m: (f"{ns[m]:.1f}", f"{1e9 / ns[m] / 1e6:.2f} M") for m in ns}
    timing["kit / hand"] = (f"{ns['kit'] / ns['hand']:.3f}", f"{ns['hand'] / ns['kit']:.3f}")
timing = {k: timing.get(k, ("-", "-")) for k in ("kit", "hand", "kit / hand")}

table = [
    "| module | instr/call (VM path) | ratio | ns/call | calls/s |",
    "|---|---:|---:|---:|---:|",
    f"| kit | {instr['kit']:.1f} | {ratio:.3f} | {timing['kit'][0]} | {timing['kit'][1]} |",
    f"| hand | {instr['hand']:.1f} | 1.000 | {timing['hand'][0]} | {timing['hand'][1]} |",
    f"| kit / hand | {ratio:.3f} | budget <= {BUDGET:.2f} | {timing['kit / hand'][0]} | {timing['kit / hand'][1]} |",
]
print("\n".join(table))
if not check:
    print(f"(ns/call: median of {rounds} alternating iree-benchmark-module runs of {calls} calls each)")

failed = False
if ratio > BUDGET:
    print(f"FAIL: kit.add_i32 costs {ratio:.3f} times hand.add_i32 per call through the VM (budget {BUDGET})", file=sys.stderr)
    failed = True
if write:
    readme_table.rewrite("benches/README.md", "bench-iree", table)
    print("benches/README.md: IREE table rewritten from this run")
else:
    new = readme_table.rows(table, 5)
    stale = [k for k in ("kit", "hand") if k not in old or abs(float(old[k][1]) - float(new[k][1])) > max(1.0, 0.02 * float(new[k][1]))]
    if stale:
        print(f"FAIL: benches/README.md's IREE table is stale for {', '.join(stale)}: run scripts/bench-iree.sh --write-readme", file=sys.stderr)
        failed = True
if failed:
    sys.exit(1)
print(f"iree bench: kit/hand = {ratio:.3f} instructions per call through the VM (budget <= {BUDGET})")
PY
