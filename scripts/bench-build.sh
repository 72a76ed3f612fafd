#!/usr/bin/env bash
# Build-cost benchmark (issue 29): what `#[abi_core::export_fn]` costs per export at build
# time and in the library, next to PyO3 with the same functions.
#
# Generates (benches/build/gen.py) crates with N = 0, 1 and 200 functions cycling six
# signature shapes (N = 1: the first shape alone), for two variants: `abi` (cdylib on
# ../abi-core, #[abi_core::export_fn]) and `pyo3` (cdylib on PyO3 from crates.io,
# #[pyfunction] + one #[pymodule]). Everything is generated and built under
# $(scripts/target-dir.sh)/bench-build, never in the checkout; each crate is its own
# workspace with cargo's default release profile, and the three crates of a variant share
# one CARGO_TARGET_DIR so dependencies are built once. It measures:
#   - release rebuild time after touching src/lib.rs (dependencies built): BENCH_BUILD_RUNS
#     (default 3) pairs, abi and pyo3 alternating (the first of a pair alternates too);
#     medians and the median of the per-pair ratios abi/pyo3, for N = 200 and N = 0;
#   - stripped .so bytes (a `strip`ped copy), per export two ways: from N = 0,
#     (size200 - size0) / 200 (issue 29's measure), and marginal, (size200 - size1) / 199,
#     with the fixed cost size1 - size0. Each N = 0 crate links its runtime with no
#     function (abi's through `extern crate abi_core;`, PyO3's through its #[pymodule]), so
#     the runtime is in the N = 0 size; what the first function adds beyond one more (the
#     runtime code only exports use) is in the fixed cost, and spread over the 200 in the
#     measure from N = 0;
#   - the marginal bytes per export by ELF section (`size -A` on the stripped N = 1 and
#     N = 200 libraries), written to $out/sections.<variant>.tsv (section, bytes per
#     export, bytes at N = 1, bytes at N = 200; sections that do not change are left out);
#   - LLVM IR lines (`cargo llvm-lines --release`, unoptimised IR, deterministic) per
#     export the same two ways, (lines200 - lines0) / 200 and (lines200 - lines1) / 199,
#     the fixed lines1 - lines0, and the top 10 functions of the abi N = 200 crate.
# Writes $out/results.tsv (metric, variant, value, unit) and prints tables. Times are
# noisy on shared 2-core machines: they are reported, never asserted.
#
#   --check   abi only, no timing, no PyO3: stripped bytes and IR lines per export (from
#             N = 0 and marginal) against benches/build/budgets.txt; exits 1 when one is
#             over. Writes check.tsv and check.sections.abi.tsv (a full run's files stay).
#
# Environment: BENCH_BUILD_RUNS (pairs, default 3), BENCH_BUILD_N (default 200, at least 2),
# BENCH_BUILD_PYO3 (PyO3 version, default 0.30.1), PYO3_PYTHON (default .venv/bin/python,
# else python3), ABI_TARGET_DIR (instead of scripts/target-dir.sh), BENCH_BUILD_ABI_CORE
# (the abi-core to measure, default this checkout's; e.g. a `git archive` of another commit:
# its workspace's Cargo.lock seeds the generated crates' lockfiles).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

check=0
for arg in "$@"; do
  case "$arg" in
    --check) check=1 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "usage: scripts/bench-build.sh [--check]" >&2; exit 2 ;;
  esac
done

runs=${BENCH_BUILD_RUNS:-3}
n=${BENCH_BUILD_N:-200}
pyo3_version=${BENCH_BUILD_PYO3:-0.30.1}
budgets=$root/benches/build/budgets.txt
gen=$root/benches/build/gen.py
abi_core=$(cd "${BENCH_BUILD_ABI_CORE:-$root/abi-core}" && pwd) ||
  { echo "error: BENCH_BUILD_ABI_CORE=${BENCH_BUILD_ABI_CORE:-} is not a directory" >&2; exit 2; }
[ -f "$abi_core/Cargo.toml" ] || { echo "error: no Cargo.toml in $abi_core (BENCH_BUILD_ABI_CORE)" >&2; exit 2; }
lockfile=$(dirname "$abi_core")/Cargo.lock
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "error: BENCH_BUILD_RUNS must be a positive integer, got '$runs'" >&2; exit 2; }
if ! [[ "$n" =~ ^[1-9][0-9]*$ ]] || [ "$n" -lt 2 ]; then
  echo "error: BENCH_BUILD_N must be an integer of at least 2 (the marginal measures start at N = 1), got '$n'" >&2
  exit 2
fi
counts=(0 1 "$n") # the crates of each variant: no export, one (the first shape), N

for tool in python3 strip size cargo; do
  command -v "$tool" >/dev/null || { echo "error: '$tool' is required and not on PATH" >&2; exit 1; }
done
target=${ABI_TARGET_DIR:-$("$root/scripts/target-dir.sh")}
out=$target/bench-build
mkdir -p "$out/stripped"

pyo3_python=""
variants=(abi)
[ "$check" = 1 ] || variants=(abi pyo3)

# --- timing helpers -------------------------------------------------------------------
now() { date +%s.%N; }
secs() { python3 -c 'import sys; print(f"{float(sys.argv[2]) - float(sys.argv[1]):.2f}")' "$1" "$2"; }
step_name="" step_start=""
step() { # name: ends the previous step (printing its duration) and starts this one
  step_end
  step_name=$1 step_start=$(now)
  echo "== $step_name" >&2
}
step_end() {
  [ -z "$step_name" ] || echo "   ($step_name: $(secs "$step_start" "$(now)") s)" >&2
  step_name=""
}
total_start=$(now)

# --- the crates -----------------------------------------------------------------------
crate_dir() { echo "$out/$1/n$2"; }                  # variant n
so_path() { echo "$out/$1/target/release/libbench_$1_n$2.so"; }
cargo_in() { # variant n cargo-args...: cargo in that crate with its variant's target dir
  local variant=$1 count=$2
  shift 2
  local vars=(CARGO_TARGET_DIR="$out/$variant/target")
  [ "$variant" != pyo3 ] || vars+=(PYO3_PYTHON="$pyo3_python")
  (cd "$(crate_dir "$variant" "$count")" && env "${vars[@]}" cargo "$@")
}

if [ "$check" = 0 ]; then
  pyo3_python=${PYO3_PYTHON:-}
  if [ -z "$pyo3_python" ]; then
    if [ -x "$root/.venv/bin/python" ]; then
      pyo3_python=$root/.venv/bin/python
    else
      pyo3_python=$(command -v python3)
      echo "note: no .venv (scripts/setup-venv.sh): PyO3 configures against $pyo3_python" >&2
    fi
  fi
  [ -x "$pyo3_python" ] || { echo "error: PYO3_PYTHON=$pyo3_python is not an executable interpreter" >&2; exit 1; }
fi

step "tools"
if ! cargo llvm-lines --version >/dev/null 2>&1; then
  echo "   installing cargo-llvm-lines (cargo install cargo-llvm-lines --locked)" >&2
  cargo install cargo-llvm-lines --locked --quiet ||
    { echo "error: could not install cargo-llvm-lines" >&2; exit 1; }
fi

step "generate crates (N = ${counts[*]}) under $out"
for variant in "${variants[@]}"; do
  for count in "${counts[@]}"; do
    python3 "$gen" "$variant" "$count" "$(crate_dir "$variant" "$count")" \
      --abi-core "$abi_core" --pyo3-version "$pyo3_version" --lockfile "$lockfile"
  done
done

for variant in "${variants[@]}"; do
  step "release build: $variant (dependencies once, then the ${#counts[@]} crates)"
  for count in "${counts[@]}"; do
    cargo_in "$variant" "$count" build --release --quiet ||
      { echo "error: the generated $variant crate (N = $count) does not build: $(crate_dir "$variant" "$count")" >&2; exit 1; }
    [ -f "$(so_path "$variant" "$count")" ] || { echo "error: no $(so_path "$variant" "$count") after the build" >&2; exit 1; }
  done
done

# --- results --------------------------------------------------------------------------
tsv=$out/results.tsv
sections_prefix=$out/sections
if [ "$check" = 1 ]; then # a check leaves the full run's results alone
  tsv=$out/check.tsv
  sections_prefix=$out/check.sections
fi
: > "$tsv.tmp"
record() { printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >> "$tsv.tmp"; } # metric variant value unit
value() { awk -F'\t' -v m="$1" -v v="$2" '$1 == m && $2 == v { print $3 }' "$tsv.tmp"; }
per() { python3 -c 'import sys; print(f"{(int(sys.argv[2]) - int(sys.argv[1])) / int(sys.argv[3]):.1f}")' "$@"; } # from to count
derive() { # metric variant unit: <metric>_per_export (from N = 0), _marginal (from N = 1), _fixed (N = 1 - N = 0)
  local v0 v1 vn
  v0=$(value "${1}_n0" "$2") v1=$(value "${1}_n1" "$2") vn=$(value "${1}_n$n" "$2")
  record "${1}_per_export" "$2" "$(per "$v0" "$vn" "$n")" "$3"
  record "${1}_marginal" "$2" "$(per "$v1" "$vn" $((n - 1)))" "$3"
  record "${1}_fixed" "$2" $((v1 - v0)) "$3"
}

step "stripped sizes and sections"
for variant in "${variants[@]}"; do
  for count in "${counts[@]}"; do
    copy=$out/stripped/libbench_${variant}_n$count.so
    cp "$(so_path "$variant" "$count")" "$copy"
    strip "$copy"
    size -A "$copy" > "${copy%.so}.sections.txt"
    record "stripped_bytes_n$count" "$variant" "$(stat -c %s "$copy")" bytes
  done
  derive stripped_bytes "$variant" bytes
  # Marginal bytes per export by section, N = 1 to N, largest first, unchanged sections out.
  python3 - "$n" "$out/stripped/libbench_${variant}_n1.sections.txt" "$out/stripped/libbench_${variant}_n$n.sections.txt" \
    > "$sections_prefix.$variant.tsv" <<'PY'
import sys
n, first, last = int(sys.argv[1]), sys.argv[2], sys.argv[3]
def sections(path):  # `size -A`: a title, "section size addr", one line per section, Total
    s = {}
    for line in open(path).read().splitlines():
        f = line.split()
        if len(f) == 3 and f[0] != "Total" and f[1].isdigit() and f[2].isdigit():
            s[f[0]] = s.get(f[0], 0) + int(f[1])
    if not s:
        sys.exit(f"no sections in {path} (size -A output)")
    return s
a, b = sections(first), sections(last)
rows = [(k, b.get(k, 0) - a.get(k, 0), a.get(k, 0), b.get(k, 0)) for k in {**a, **b}]
for k, d, x, y in sorted((r for r in rows if r[1]), key=lambda r: (-r[1], r[0])):
    print(f"{k}\t{d / (n - 1):.1f}\t{x}\t{y}")
PY
done

# The Python door's fixed bytes (issue 51): the N = 1 abi crate again, on abi-core without
# its `python-door` feature (the generated crate's dependency line edited), stripped.
step "the Python door's fixed bytes (N = 1 without the python-door feature)"
nodoor=$out/abi/n1-nodoor
rm -rf "$nodoor"
cp -r "$(crate_dir abi 1)" "$nodoor"
sed -i 's|^abi-core = { path = "\(.*\)" }$|abi-core = { path = "\1", default-features = false }|' "$nodoor/Cargo.toml"
grep -q 'default-features = false' "$nodoor/Cargo.toml" ||
  { echo "error: no abi-core dependency line to edit in $nodoor/Cargo.toml" >&2; exit 1; }
(cd "$nodoor" && CARGO_TARGET_DIR="$out/abi-nodoor/target" cargo build --release --quiet) ||
  { echo "error: the N = 1 abi crate without the python-door feature does not build: $nodoor" >&2; exit 1; }
copy=$out/stripped/libbench_abi_n1_nodoor.so
cp "$out/abi-nodoor/target/release/libbench_abi_n1.so" "$copy"
strip "$copy"
record door_fixed_bytes abi $(($(value stripped_bytes_n1 abi) - $(stat -c %s "$copy"))) bytes
# The package `abi stubs` writes takes the door over the library with it and the tvm_ffi
# route over the one without (no door entry to open), with the same result.
abi_tool=$target/debug/abi venv_python=$root/.venv/bin/python
if [ -x "$abi_tool" ] && [ -x "$venv_python" ]; then
  for lib in "$(so_path abi 1)=abi 3" "$out/abi-nodoor/target/release/libbench_abi_n1.so=builtins 3"; do
    pkg=$out/door-route
    rm -rf "$pkg"
    "$abi_tool" stubs "${lib%%=*}" --package bench_route -o "$pkg" >/dev/null
    cp "${lib%%=*}" "$pkg/bench_route/"
    got=$(PYTHONPATH=$pkg "$venv_python" -c 'import bench_route as p; print(type(p.fn_0).__module__, p.fn_0(2, 3))')
    [ "$got" = "${lib#*=}" ] ||
      { echo "error: the package over ${lib%%=*} printed '$got', not '${lib#*=}' (door, then tvm_ffi route)" >&2; exit 1; }
  done
elif [ "$check" = 1 ]; then
  echo "error: --check calls the N = 1 libraries through a package: it needs $abi_tool and $venv_python" >&2
  exit 1
fi

if [ "$check" = 0 ]; then
  step "release rebuild times: $runs pairs (N = $n, then N = 0)"
  samples=$out/rebuild-samples.tsv
  : > "$samples"
  rebuild() { # variant count -> seconds of `cargo build --release` after touching src/lib.rs
    # Dependencies first, untimed (abi-core may be edited while this runs); a sample in which
    # cargo compiled anything but the touched crate is thrown away and taken again.
    local start t log=$out/rebuild.log
    for _ in 1 2 3 4; do
      cargo_in "$1" "$2" build --release --quiet
      touch "$(crate_dir "$1" "$2")/src/lib.rs"
      start=$(now)
      cargo_in "$1" "$2" build --release 2> "$log" || { cat "$log" >&2; exit 1; }
      t=$(secs "$start" "$(now)")
      if [ "$(grep -c '^ *Compiling ' "$log")" = 1 ]; then
        echo "$t"
        return
      fi
      echo "   ($1 N = $2: a dependency changed during the run, sample discarded)" >&2
    done
    echo "error: dependencies of the $1 crate keep changing: no clean rebuild sample" >&2
    exit 1
  }
  for count in "$n" 0; do
    for ((k = 1; k <= runs; k++)); do
      order=(abi pyo3)
      [ $((k % 2)) = 1 ] || order=(pyo3 abi)
      for variant in "${order[@]}"; do
        t=$(rebuild "$variant" "$count")
        printf '%s\t%s\t%s\t%s\n' "$count" "$k" "$variant" "$t" >> "$samples"
        echo "   N = $count pair $k: $variant $t s" >&2
      done
    done
  done
  python3 - "$samples" "$n" >> "$tsv.tmp" <<'PY'
import statistics, sys
rows = [line.split("\t") for line in open(sys.argv[1]).read().splitlines()]
for count in (sys.argv[2], "0"):
    t = {(k, v): float(s) for c, k, v, s in rows if c == count}
    pairs = sorted({k for k, _ in t})
    for v in ("abi", "pyo3"):
        print(f"rebuild_s_n{count}\t{v}\t{statistics.median(t[k, v] for k in pairs):.2f}\ts")
    ratio = statistics.median(t[k, "abi"] / t[k, "pyo3"] for k in pairs)
    print(f"rebuild_ratio_n{count}\tabi/pyo3\t{ratio:.2f}\tx")
PY
fi

step "LLVM IR lines (cargo llvm-lines --release, unoptimised IR)"
for variant in "${variants[@]}"; do
  for count in "${counts[@]}"; do
    lines_file=$out/llvm-lines.$variant.n$count.txt
    cargo_in "$variant" "$count" llvm-lines --release --lib > "$lines_file" 2> "$out/llvm-lines.log" ||
      { cat "$out/llvm-lines.log" >&2; echo "error: cargo llvm-lines failed for the $variant crate (N = $count)" >&2; exit 1; }
    total=$(awk '/\(TOTAL\)/ { print $1; exit }' "$lines_file")
    [ -n "$total" ] || { echo "error: no (TOTAL) line in $lines_file" >&2; exit 1; }
    record "ir_lines_n$count" "$variant" "$total" lines
  done
  derive ir_lines "$variant" lines
done
# The top 10 functions by IR lines in the abi N crate (where to cut).
awk 'f && NF { print; if (++c == 10) exit } /\(TOTAL\)/ { f = 1 }' "$out/llvm-lines.abi.n$n.txt" > "$out/llvm-lines-top.abi.n$n.txt"

if [ "$check" = 0 ]; then
  for metric in stripped_bytes_per_export stripped_bytes_marginal ir_lines_per_export ir_lines_marginal; do
    record "${metric}_ratio" abi/pyo3 \
      "$(python3 -c 'import sys; print(f"{float(sys.argv[1]) / float(sys.argv[2]):.2f}")' "$(value "$metric" abi)" "$(value "$metric" pyo3)")" x
  done
fi
step_end
mv "$tsv.tmp" "$tsv"

# --- report ---------------------------------------------------------------------------
python3 - "$tsv" "$n" "$check" "$sections_prefix" <<'PY'
import sys
tsv, n, check, sections = sys.argv[1], sys.argv[2], sys.argv[3] == "1", sys.argv[4]
r = {}
for line in open(tsv).read().splitlines():
    m, v, val, _ = line.split("\t")
    r[m, v] = val
g = lambda m, v: r.get((m, v), "-")
variants = ["abi"] if check else ["abi", "pyo3"]
def ratio(m):  # abi/pyo3 for a column's metric, if there is one
    if m.startswith("rebuild_s_n"):
        return g("rebuild_ratio_n" + m[len("rebuild_s_n"):], "abi/pyo3")
    return r.get((m + "_ratio", "abi/pyo3"), "")
def table(cols):
    cols = [c for c in cols if not (check and c[1].startswith("rebuild"))]
    print("| variant | " + " | ".join(c[0] for c in cols) + " |")
    print("|---|" + "---:|" * len(cols))
    for v in variants:
        print(f"| {v} | " + " | ".join(g(c[1], v) for c in cols) + " |")
    if not check:
        print("| abi/pyo3 | " + " | ".join(ratio(c[1]) for c in cols) + " |")
table([("rebuild N=%s (s)" % n, "rebuild_s_n" + n), ("rebuild N=0 (s)", "rebuild_s_n0"),
       ("stripped N=0 (B)", "stripped_bytes_n0"), ("N=1 (B)", "stripped_bytes_n1"),
       ("N=%s (B)" % n, "stripped_bytes_n" + n), ("fixed N=1 - N=0 (B)", "stripped_bytes_fixed"),
       ("B/export from N=0", "stripped_bytes_per_export"), ("B/export marginal", "stripped_bytes_marginal")])
print()
table([("IR lines N=0", "ir_lines_n0"), ("N=1", "ir_lines_n1"), ("N=%s" % n, "ir_lines_n" + n),
       ("fixed N=1 - N=0", "ir_lines_fixed"), ("lines/export from N=0", "ir_lines_per_export"),
       ("lines/export marginal", "ir_lines_marginal")])
print(f"\n(from N=0: (N={n} - N=0) / {n}; marginal: (N={n} - N=1) / {int(n) - 1}; fixed: N=1 - N=0)")
if not check:
    print("(rebuild: median of paired runs; the ratio is the median of the per-pair ratios)")
for v in variants:
    rows = [line.split("\t") for line in open(f"{sections}.{v}.tsv").read().splitlines()]
    print(f"\nmarginal bytes per export by section, {v} (stripped, N=1 to N={n}):\n")
    print("| section | B/export |\n|---|---:|")
    for name, per, _, _ in rows:
        print(f"| {name} | {per} |")
    total = (sum(int(y) for *_, y in rows) - sum(int(x) for *_, x, _ in rows)) / (int(n) - 1)
    print(f"| (all sections) | {total:.1f} |")
    print(f"| (whole file) | {g('stripped_bytes_marginal', v)} |")
PY
sections_files=""
for variant in "${variants[@]}"; do sections_files+=" $sections_prefix.$variant.tsv"; done
echo "results: $tsv; sections:$sections_files; top IR functions (abi, N = $n): $out/llvm-lines-top.abi.n$n.txt" >&2

if [ "$check" = 1 ]; then
  [ -f "$budgets" ] || { echo "error: no budgets file $budgets" >&2; exit 1; }
  fail=0
  while read -r metric budget _; do
    case "$metric" in '' | '#'*) continue ;; esac
    got=$(awk -F'\t' -v m="$metric" '$1 == m && $2 == "abi" { print $3 }' "$tsv")
    if [ -z "$got" ]; then
      echo "FAIL: budget '$metric' names no measured metric (see $tsv)" >&2
      fail=1
    elif python3 -c 'import sys; sys.exit(float(sys.argv[1]) > float(sys.argv[2]))' "$got" "$budget"; then
      echo "ok: $metric = $got (budget $budget)"
    else
      echo "FAIL: $metric = $got is over its budget of $budget (benches/build/budgets.txt)" >&2
      fail=1
    fi
  done < "$budgets"
  echo "bench-build --check: $(secs "$total_start" "$(now)") s" >&2
  exit "$fail"
fi
echo "bench-build: $(secs "$total_start" "$(now)") s" >&2
