#!/usr/bin/env bash
# Call-cost benchmarks. Prints one table: case, instructions/call (callgrind, difference of
# two loop lengths in one process, so set-up cancels), ns/call (criterion mean), and both ratios to the
# case's floor. Every case runs in two worlds: the embedded runtime, and with libtvm_ffi
# loaded in the process (`<case>@tvm-ffi`, from the project venv: scripts/setup-venv.sh);
# the `py_*` cases are Python calling through the real tvm_ffi package (venv only), the
# `py_op_*` ones an op's call from numpy through the package `abi stubs` writes, the
# `py_peer_*` ones the same Rust bodies through PyO3 and through that package.
#   --quick         instruction counts only (no criterion)
#   --check         instruction counts only; checks every stated budget (benches/src/cases.rs)
#                   and that benches/README.md shows this table; exits 1 on a miss
#   --write-readme  with --check: rewrite the tables in benches/README.md from this run
#                   (and docs/guide/python.md's door-cost tables, which --check holds to the README's)
# --check and the full run also run scripts/bench-iree.sh (the IREE module through the IREE tools);
# --check also runs scripts/bench-build.sh --check (stripped bytes and LLVM IR lines per export
# against benches/build/budgets.txt; the full build comparison with PyO3 is run by hand).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

quick=0 check=0 write=0
for arg in "$@"; do
  case "$arg" in
    --quick) quick=1 ;;
    --check) quick=1 check=1 ;;
    --write-readme) write=1 ;;
    *) echo "usage: scripts/bench.sh [--quick | --check [--write-readme]]" >&2; exit 2 ;;
  esac
done
[ "$write" = 0 ] || [ "$check" = 1 ] || { echo "--write-readme goes with --check" >&2; exit 2; }
short=${ICOUNT_SHORT:-1000}
long=${ICOUNT_LONG:-11000}

command -v valgrind >/dev/null || { echo "error: valgrind is required (scripts/ensure-tools.sh installs it)" >&2; exit 1; }
cargo build --quiet --release -p abi-benches --bin icount
target=${ABI_TARGET_DIR:-$(scripts/target-dir.sh)}
bin=$target/release/icount
out=$target/bench
mkdir -p "$out"

tvm_ffi=
if [ -x .venv/bin/tvm-ffi-config ]; then
  tvm_ffi=$(.venv/bin/tvm-ffi-config --libfiles)
elif [ "$check" = 1 ]; then
  echo "error: --check measures both worlds and needs libtvm_ffi: run scripts/setup-venv.sh" >&2
  exit 1
else
  echo "note: no .venv (scripts/setup-venv.sh): measuring the embedded runtime only" >&2
fi

# Instructions per world, each in one process: the program runs every case of its world,
# each for $short and for $long iterations between the two marks of benches/marks.c, on
# which callgrind zeroes its counts and writes them ($file.1, $file.2, ...: two a case, in
# the order the program prints the cases' names). Prints "case<TAB>long - short".
measure() { # label command...
  local file="$out/cg.$1" names i=0 a b name
  shift
  rm -f "$file" "$file".*
  names=$(valgrind --tool=callgrind --callgrind-out-file="$file" "$@" 2>"$file.log") || { cat "$file.log" >&2; echo "error: callgrind run $file failed" >&2; return 1; }
  while read -r name; do
    a=$(awk '/^summary:|^totals:/ {print $2; exit}' "$file.$((2 * i + 1))")
    b=$(awk '/^summary:|^totals:/ {print $2; exit}' "$file.$((2 * i + 2))")
    printf '%s\t%s\n' "$name" "$((b - a))"
    i=$((i + 1))
  done <<<"$names"
  [ "$i" -gt 0 ] && [ ! -e "$file.$((2 * i + 1))" ] || { echo "error: $file: $i cases named, dumps do not match" >&2; return 1; }
}
# The rows of icount.tsv (case, floor, budget, instructions), in the listing's order (case
# floor budget worlds), each case's rows of the embedded world and then of the tvm-ffi one
# (`@tvm-ffi` added to case and floor); every measured case must be listed.
rows() { # listing embedded.tsv [tvm-ffi.tsv]
  python3 - "$@" >> "$out/icount.tsv" <<'PY'
import sys
listing = [line.split(" ") for line in open(sys.argv[1]).read().splitlines()]
worlds = [dict(l.split("\t") for l in open(f).read().splitlines()) for f in sys.argv[2:]]
for name, floor, budget, _ in listing:
    for counts, suffix in zip(worlds, ["", "@tvm-ffi"]):
        if name in counts:
            print(f"{name}{suffix}\t{floor}{suffix}\t{budget}\t{counts.pop(name)}")
left = sorted(n for counts in worlds for n in counts)
if left:
    sys.exit(f"measured but not listed: {left}")
PY
}

: > "$out/icount.tsv"
"$bin" --list > "$out/cases.txt"
# The marks around each loop (valgrind's callgrind.h, which the valgrind package installs).
gcc -O1 -shared -fPIC -o "$out/marks.so" benches/marks.c
export ABI_BENCH_MARKS=$out/marks.so
pids=()
measure embedded "$bin" --all "$short" "$long" > "$out/embedded.tsv" & pids+=($!)
if [ -n "$tvm_ffi" ]; then
  measure tvm-ffi "$bin" --tvm-ffi "$tvm_ffi" --all "$short" "$long" > "$out/tvm-ffi.tsv" & pids+=($!)
fi

# Python's view (benches/python/calls.py): the real tvm_ffi package calling a release build
# of the objects fixture. One BLAS thread and a fixed hash seed keep the counts exact.
if [ -n "$tvm_ffi" ]; then
  cargo build --quiet --release -p abi-objects-lib -p op-kit -p abi-peer
  cargo build --quiet -p abi-cli
  # The package `abi stubs` writes for a library, in the folder $out/<folder>, the library
  # linked beside it.
  package() { # library package folder
    rm -rf "${out:?}/$3"
    "$target/debug/abi" stubs "$1" --package "$2" -o "$out/$3" >/dev/null
    ln -s "$1" "$out/$3/$2/"
  }
  objects_lib=$target/release/libabi_objects_lib.so
  # The package for it (the `py_*_pkg`/`_kw` cases call through it).
  package "$objects_lib" counters_pkg py-package
  export ABI_BENCH_PACKAGE_DIR=$out/py-package
  # An op's functional call from numpy (benches/python/ops.py): the package `abi stubs`
  # writes for examples/op-kit against np.empty plus the raw destination-passing call.
  ops_lib=$target/release/libop_kit.so
  package "$ops_lib" ops_pkg ops-package
  export ABI_BENCH_OPS_PACKAGE_DIR=$out/ops-package
  # The same Rust bodies two ways (benches/python/peer.py): benches/peer/pyo3-peer, an abi3
  # extension module on PyO3 and rust-numpy (its own workspace and Cargo.lock, built into
  # a target dir of its own, imported as pyo3_peer), and benches/peer/abi-peer through the
  # package `abi stubs` writes for it.
  PYO3_PYTHON=$root/.venv/bin/python cargo build --quiet --release --locked \
    --manifest-path benches/peer/pyo3-peer/Cargo.toml --target-dir "$target/pyo3-peer"
  rm -rf "$out/pyo3-peer"
  mkdir -p "$out/pyo3-peer"
  ln -s "$target/pyo3-peer/release/libpyo3_peer.so" "$out/pyo3-peer/pyo3_peer.abi3.so"
  export ABI_BENCH_PYO3_DIR=$out/pyo3-peer
  peer_lib=$target/release/libabi_peer.so
  package "$peer_lib" peer_pkg peer-package
  export ABI_BENCH_PEER_PACKAGE_DIR=$out/peer-package
  for script in calls ops peer; do
    case $script in calls) lib=$objects_lib ;; ops) lib=$ops_lib ;; peer) lib=$peer_lib ;; esac
    .venv/bin/python "benches/python/$script.py" --list > "$out/$script-cases.txt"
    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 PYTHONHASHSEED=0 \
      measure "$script" .venv/bin/python "benches/python/$script.py" --all "$lib" \
      "$short" "$long" > "$out/$script.tsv" & pids+=($!)
  done
fi
for pid in "${pids[@]}"; do wait "$pid"; done
if [ -n "$tvm_ffi" ]; then
  rows "$out/cases.txt" "$out/embedded.tsv" "$out/tvm-ffi.tsv"
  rows "$out/calls-cases.txt" "$out/calls.tsv"
  rows "$out/ops-cases.txt" "$out/ops.tsv"
  rows "$out/peer-cases.txt" "$out/peer.tsv"
else
  rows "$out/cases.txt" "$out/embedded.tsv"
fi

if [ "$quick" = 0 ]; then
  cargo bench --quiet -p abi-benches --bench calls -- --noplot >/dev/null
  if [ -n "$tvm_ffi" ]; then
    ABI_BENCH_TVM_FFI=$tvm_ffi cargo bench --quiet -p abi-benches --bench calls -- --noplot >/dev/null
  fi
fi

python3 scripts/readme_table.py calls "$out/icount.tsv" "$(( long - short ))" "$quick" "$check" "$write" "$target"

# Torch through the package (benches/python/torch_timings.py): timeit ratios in one run, in
# the frameworks venv the test command makes; reported in benches/README.md, not budgeted.
# --check fails when the README's table lists other calls than the script times.
if [ "$check" = 1 ] && [ -n "$tvm_ffi" ] && [ -x .venv-frameworks/bin/python ]; then
  .venv-frameworks/bin/python benches/python/torch_timings.py "$out/peer-package" > "$out/torch.md"
  .venv/bin/python benches/python/torch_timings.py --cases > "$out/torch-cases.txt"
  python3 scripts/readme_section.py benches/README.md torch-timings "$out/torch.md" "$out/torch-cases.txt" "$write"
fi

# The guide's door-cost tables (docs/guide/python.md) are copies of the README's checked ones.
if [ "$check" = 1 ]; then
  if [ "$write" = 1 ]; then python3 benches/python/guide_tables.py --write; else python3 benches/python/guide_tables.py; fi
fi

# The IREE module through IREE's own tools (its table is a second section of benches/README.md).
if [ "$check" = 1 ]; then
  if [ "$write" = 1 ]; then scripts/bench-iree.sh --check --write-readme; else scripts/bench-iree.sh --check; fi
elif [ "$quick" = 0 ]; then
  scripts/bench-iree.sh
fi

# What an export costs in the library (its build time, next to PyO3's, is in benches/README.md).
if [ "$check" = 1 ]; then
  scripts/bench-build.sh --check
fi
