#!/usr/bin/env bash
# Call-cost benchmarks. Prints one table: case, instructions/call (callgrind, difference of
# two loop lengths so start-up cancels), ns/call (criterion mean), and both ratios to the
# case's floor. `--quick` skips criterion (instruction counts only).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

quick=0
[ "${1:-}" = "--quick" ] && quick=1
short=${ICOUNT_SHORT:-1000}
long=${ICOUNT_LONG:-11000}

command -v valgrind >/dev/null || { echo "error: valgrind is required (scripts/ensure-tools.sh installs it)" >&2; exit 1; }
cargo build --quiet --release -p abi-benches --bin icount
target=${ABI_TARGET_DIR:-$(scripts/target-dir.sh)}
bin=$target/release/icount
out=$target/bench
mkdir -p "$out"

instructions() { # case iters -> total instructions executed
  valgrind --tool=callgrind --callgrind-out-file="$out/cg.$1.$2" "$bin" "$1" "$2" >/dev/null 2>&1
  awk '/^summary:|^totals:/ {print $2; exit}' "$out/cg.$1.$2"
}

: > "$out/icount.tsv"
"$bin" --list | while read -r name floor; do
  a=$(instructions "$name" "$short")
  b=$(instructions "$name" "$long")
  printf '%s\t%s\t%s\n' "$name" "$floor" "$(( (b - a) ))" >> "$out/icount.tsv"
done

if [ "$quick" = 0 ]; then
  cargo bench --quiet -p abi-benches --bench calls -- --noplot >/dev/null
fi

python3 - "$out/icount.tsv" "$(( long - short ))" "$quick" <<'PY'
import json, pathlib, sys
rows = [l.split("\t") for l in pathlib.Path(sys.argv[1]).read_text().splitlines()]
calls, quick = int(sys.argv[2]), sys.argv[3] == "1"
ins = {name: int(diff) / calls for name, _, diff in rows}
def ns(name):
    p = pathlib.Path("target/criterion/calls") / name / "new/estimates.json"
    return None if quick or not p.exists() else json.loads(p.read_text())["mean"]["point_estimate"]
print(f"{'case':<22} {'instr/call':>10} {'ns/call':>8}  {'floor':<18} {'instr ratio':>11} {'ns ratio':>8}")
for name, floor, _ in rows:
    t, ft = ns(name), ns(floor)
    tr = f"{t / ft:8.2f}" if t and ft else f"{'-':>8}"
    ts = f"{t:8.2f}" if t else f"{'-':>8}"
    print(f"{name:<22} {ins[name]:10.1f} {ts}  {floor:<18} {ins[name] / ins[floor]:11.2f} {tr}")
PY
