#!/usr/bin/env bash
# The generated IREE module against hand-written C ones, through the stock IREE tools, for two
# functions of examples/iree-kit:
#   - add_i32 (`0ii_i`, two scalars): benches/iree/add_loop.mlir calls it `n` times from one
#     IREE function, against benches/iree/hand_module.c;
#   - total (`0r_f`, the sum of a rank-1 f32 tensor): benches/iree/tensor_sum.mlir's
#     total_loop calls it `n` times on one 16-element tensor, and its sum calls it once (on
#     1M elements for the timing), against benches/iree/hand_tensor_module.c.
# Each program is compiled once per module: `kit` (examples/iree-kit, release build) and
# `hand` (the C module, gcc -O2). Two measurements:
#   - instructions per call through the whole VM path (callgrind over iree-run-module with
#     1,000 and 11,000 calls: the difference over 10,000), exact on these machines;
#   - wall time from iree-benchmark-module, alternating the two modules for several rounds
#     and taking each one's median (reported, never checked): add_i32 as calls per second,
#     total as the time of one sum of 1,048,576 f32 (target: kit within 1.2 times hand).
#   --check         instruction counts only; fails when kit costs more than 1.10 times hand
#                   per call (either function), or when benches/README.md does not show
#                   these counts
#   --write-readme  rewrite the tables in benches/README.md from this run (with --check:
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
elements=1048576

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
compile() { # source.mlir module out.vmfb
  sed "s/MODULE/$2/g" "$1" > "${3%.vmfb}.mlir"
  .venv/bin/iree-compile --iree-hal-target-device=local --iree-hal-local-target-device-backends=vmvx \
    "${3%.vmfb}.mlir" -o "$3"
}
expect() { # want libs module vmfb function inputs...: fails loudly unless result[0] is `want`
  local want=$1 m=$3 vmfb=$4 fn=$5 got
  local -n libs=$2
  shift 5
  got=$("$tools/iree-run-module" --device=local-sync --module="${libs[$m]}" --module="$vmfb" \
    --function="$fn" "$@" 2>&1) || true
  if ! grep -qxF "result[0]: $want" <<<"$got"; then
    echo "error: @$fn of the program importing $m ($*) did not give $want:" >&2
    echo "  $tools/iree-run-module --device=local-sync --module=${libs[$m]} --module=$vmfb --function=$fn $*" >&2
    sed 's/^/  | /' <<<"$got" >&2
    exit 1
  fi
}

gcc -O2 -shared -fPIC -Wall -Wextra -Werror -o "$out/libhand.so" benches/iree/hand_module.c
# Under valgrind, IREE's io_uring proactor thread can hang the run forever
# (docs/IREE-DYNAMIC-MODULE.md): callgrind runs the tool with io_uring unavailable, and a
# run that still hangs is killed and reported.
gcc -O2 -Wall -Wextra -Werror -o "$out/no_io_uring" tests/iree/no_io_uring.c
gcc -O2 -shared -fPIC -Wall -Wextra -Werror -o "$out/libhand_tensor.so" benches/iree/hand_tensor_module.c
declare -A lib=([kit]="$target/release/libiree_kit.so" [hand]="$out/libhand.so")
declare -A tlib=([kit]="$target/release/libiree_kit.so" [hand]="$out/libhand_tensor.so")
for m in kit hand; do
  compile benches/iree/add_loop.mlir "$m" "$out/$m.vmfb"
  compile benches/iree/tensor_sum.mlir "$m" "$out/$m.tensor.vmfb"
  expect i32=1000 lib "$m" "$out/$m.vmfb" add_loop --input=1000
  expect f32=10 tlib "$m" "$out/$m.tensor.vmfb" sum --input=4xf32=1,2,3,4
  expect f32=16000 tlib "$m" "$out/$m.tensor.vmfb" total_loop --input=16xf32=1 --input=1000
done

instructions() { # libs module vmfb function calls inputs... -> instructions executed by the whole run
  local -n libs=$1
  local m=$2 vmfb=$3 fn=$4 n=$5 file="$out/cg.$4.$2.$5"
  shift 5
  rm -f "$file"
  if ! timeout --kill-after=10 120 "$out/no_io_uring" valgrind --tool=callgrind --callgrind-out-file="$file" \
    "$tools/iree-run-module" --device=local-sync --module="${libs[$m]}" --module="$vmfb" --function="$fn" "$@" \
    --input="$n" >/dev/null 2>"$file.log"; then
    echo "error: callgrind over @$fn of the program importing $m ($* --input=$n) failed or hung; see $file.log" >&2
    exit 1
  fi
  awk '/^summary:|^totals:/ {print $2; exit}' "$file"
}
: > "$out/results.tsv"
for m in kit hand; do
  a=$(instructions lib "$m" "$out/$m.vmfb" add_loop 1000)
  b=$(instructions lib "$m" "$out/$m.vmfb" add_loop 11000)
  printf 'instr\tadd_i32\t%s\t%s\n' "$m" "$(( b - a ))" >> "$out/results.tsv"
  a=$(instructions tlib "$m" "$out/$m.tensor.vmfb" total_loop 1000 --input=16xf32=1)
  b=$(instructions tlib "$m" "$out/$m.tensor.vmfb" total_loop 11000 --input=16xf32=1)
  printf 'instr\ttotal\t%s\t%s\n' "$m" "$(( b - a ))" >> "$out/results.tsv"
done

benchmark() { # libs module vmfb function inputs... -> real time of one call, ms
  local -n libs=$1
  local m=$2 vmfb=$3 fn=$4
  shift 4
  "$tools/iree-benchmark-module" --device=local-sync --module="${libs[$m]}" --module="$vmfb" \
    --function="$fn" "$@" --benchmark_format=json --benchmark_repetitions=1 2>/dev/null \
    | python3 -c 'import json, sys; b = json.load(sys.stdin)["benchmarks"][0]; assert b["time_unit"] == "ms"; print(b["real_time"])'
}
if [ "$check" = 0 ]; then
  for _ in $(seq "$rounds"); do
    for m in kit hand; do
      ms=$(benchmark lib "$m" "$out/$m.vmfb" add_loop --input="$calls")
      printf 'ms\tadd_i32\t%s\t%s\n' "$m" "$ms" >> "$out/results.tsv"
      ms=$(benchmark tlib "$m" "$out/$m.tensor.vmfb" sum --input="${elements}xf32=1")
      printf 'ms\ttotal\t%s\t%s\n' "$m" "$ms" >> "$out/results.tsv"
    done
  done
fi

python3 - "$out/results.tsv" "$check" "$write" "$calls" "$rounds" "$elements" <<'PY'
import pathlib, statistics, sys
sys.path.insert(0, "scripts")
import readme_table
rows = [l.split("\t") for l in pathlib.Path(sys.argv[1]).read_text().splitlines()]
check, write, calls, rounds, elements = sys.argv[2] == "1", sys.argv[3] == "1", int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
BUDGET = 1.10       # instructions per call, kit over hand: checked
TIME_TARGET = 1.2   # total's 1M-element sum, kit over hand: reported only
instr = {(f, m): int(v) / 10_000 for kind, f, m, v in rows if kind == "instr"}
ratio = {f: instr[f, "kit"] / instr[f, "hand"] for f in ("add_i32", "total")}

old = readme_table.shown("benches/README.md", "bench-iree", 5)
# Row keys of the two tables (first cells), by function and module.
key = {("add_i32", "kit"): "kit", ("add_i32", "hand"): "hand", ("add_i32", "ratio"): "kit / hand",
       ("total", "kit"): "kit.total", ("total", "hand"): "hand.total", ("total", "ratio"): "total: kit / hand"}
if check:
    # Timing columns are not measured by --check: keep the last full run's.
    timing = {k: (v[3], v[4]) for k, v in old.items()}
else:
    ms = {(f, m): statistics.median(float(v) for kind, ff, mm, v in rows if kind == "ms" and (ff, mm) == (f, m))
          for f, m in instr}
    timing = {}
    ns = {m: ms["add_i32", m] * 1e6 / calls for m in ("kit", "hand")}
    for m in ns:
        timing[key["add_i32", m]] = (f"{ns[m]:.1f}", f"{1e9 / ns[m] / 1e6:.2f} M")
    timing[key["add_i32", "ratio"]] = (f"{ns['kit'] / ns['hand']:.3f}", f"{ns['hand'] / ns['kit']:.3f}")
    t = {m: ms["total", m] for m in ("kit", "hand")}
    for m in t:
        timing[key["total", m]] = (f"{t[m]:.3f}", f"{elements * 4 / (t[m] * 1e-3) / 1e9:.2f}")
    timing[key["total", "ratio"]] = (f"{t['kit'] / t['hand']:.3f}", f"target <= {TIME_TARGET:.1f}")
timing = {k: timing.get(k, ("-", "-")) for k in key.values()}

def rows_of(f):
    k, h, r = key[f, "kit"], key[f, "hand"], key[f, "ratio"]
    return [
        f"| {k} | {instr[f, 'kit']:.1f} | {ratio[f]:.3f} | {timing[k][0]} | {timing[k][1]} |",
        f"| {h} | {instr[f, 'hand']:.1f} | 1.000 | {timing[h][0]} | {timing[h][1]} |",
        f"| {r} | {ratio[f]:.3f} | budget <= {BUDGET:.2f} | {timing[r][0]} | {timing[r][1]} |",
    ]
table = [
    "| module | instr/call (VM path) | ratio | ns/call | calls/s |",
    "|---|---:|---:|---:|---:|",
    *rows_of("add_i32"),
    "",
    f"| tensor function | instr/call, 16 f32 (VM path) | ratio | ms per sum of {elements:,} f32 | GB/s |",
    "|---|---:|---:|---:|---:|",
    *rows_of("total"),
]
print("\n".join(table))
if not check:
    print(f"(add_i32 ns/call: median of {rounds} alternating iree-benchmark-module runs of {calls} calls each;"
          f" total: median of {rounds} alternating runs of sum on {elements} f32)")
    tr = t["kit"] / t["hand"]
    print(f"total, {elements} f32: kit {t['kit']:.3f} ms, hand {t['hand']:.3f} ms, kit / hand = {tr:.3f}"
          f" (target <= {TIME_TARGET}, not checked{'' if tr <= TIME_TARGET else ': MISSED'})")

failed = False
for f in ("add_i32", "total"):
    if ratio[f] > BUDGET:
        print(f"FAIL: kit.{f} costs {ratio[f]:.3f} times hand.{f} per call through the VM (budget {BUDGET})", file=sys.stderr)
        failed = True
if write:
    readme_table.rewrite("benches/README.md", "bench-iree", table)
    print("benches/README.md: IREE tables rewritten from this run")
else:
    new = readme_table.rows(table, 5)
    counted = [key[f, m] for f in ("add_i32", "total") for m in ("kit", "hand")]
    stale = [k for k in counted if k not in old or abs(float(old[k][1]) - float(new[k][1])) > max(1.0, 0.02 * float(new[k][1]))]
    if stale:
        print(f"FAIL: benches/README.md's IREE table is stale for {', '.join(stale)}: run scripts/bench-iree.sh --write-readme", file=sys.stderr)
        failed = True
if failed:
    sys.exit(1)
print(f"iree bench: kit/hand = {ratio['add_i32']:.3f} (add_i32), {ratio['total']:.3f} (total) instructions per call through the VM (budget <= {BUDGET})")
PY
