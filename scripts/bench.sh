#!/usr/bin/env bash
# Call-cost benchmarks. Prints one table: case, instructions/call (callgrind, difference of
# two loop lengths so start-up cancels), ns/call (criterion mean), and both ratios to the
# case's floor. Every case runs in two worlds: the embedded runtime, and with libtvm_ffi
# loaded in the process (`<case>@tvm-ffi`, from the project venv: scripts/setup-venv.sh);
# the `py_*` cases are Python calling through the real tvm_ffi package (venv only), the
# `py_op_*` ones an op's call from numpy through the package `abi stubs` writes.
#   --quick         instruction counts only (no criterion)
#   --check         instruction counts only; checks every stated budget (benches/src/cases.rs)
#                   and that benches/README.md shows this table; exits 1 on a miss
#   --write-readme  with --check: rewrite the tables in benches/README.md from this run
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

instructions() { # case iters [--tvm-ffi LIB] -> total instructions executed
  local file="$out/cg.$1.$2${3:+.tvm-ffi}"
  valgrind --tool=callgrind --callgrind-out-file="$file" "$bin" ${3:+"$3" "$4"} "$1" "$2" >/dev/null 2>&1
  awk '/^summary:|^totals:/ {print $2; exit}' "$file"
}

: > "$out/icount.tsv"
"$bin" --list | while read -r name floor budget worlds; do
  if [ "$worlds" != tvm-ffi ]; then
    a=$(instructions "$name" "$short")
    b=$(instructions "$name" "$long")
    printf '%s\t%s\t%s\t%s\n' "$name" "$floor" "$budget" "$(( (b - a) ))" >> "$out/icount.tsv"
  fi
  if [ -n "$tvm_ffi" ] && [ "$worlds" != embedded ]; then
    a=$(instructions "$name" "$short" --tvm-ffi "$tvm_ffi")
    b=$(instructions "$name" "$long" --tvm-ffi "$tvm_ffi")
    printf '%s\t%s\t%s\t%s\n' "$name@tvm-ffi" "$floor@tvm-ffi" "$budget" "$(( (b - a) ))" >> "$out/icount.tsv"
  fi
done

# Python's view (benches/python/calls.py): the real tvm_ffi package calling a release build
# of the objects fixture. One BLAS thread and a fixed hash seed keep the counts exact.
if [ -n "$tvm_ffi" ]; then
  cargo build --quiet --release -p abi-objects-lib
  cargo build --quiet -p abi-cli
  objects_lib=$target/release/libabi_objects_lib.so
  # The package `abi stubs` writes for it (the `py_*_pkg`/`_kw` cases call through it).
  rm -rf "$out/py-package"
  "$target/debug/abi" stubs "$objects_lib" --package counters_pkg -o "$out/py-package" >/dev/null
  ln -s "$objects_lib" "$out/py-package/counters_pkg/"
  export ABI_BENCH_PACKAGE_DIR=$out/py-package
  py_instructions() { # script lib case iters -> total instructions executed
    local file="$out/cg.$3.$4"
    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 PYTHONHASHSEED=0 valgrind --tool=callgrind --callgrind-out-file="$file" \
      .venv/bin/python "$1" "$2" "$3" "$4" >/dev/null 2>&1
    awk '/^summary:|^totals:/ {print $2; exit}' "$file"
  }
  py_cases() { # script lib: each case the script lists, into icount.tsv
    .venv/bin/python "$1" --list | while read -r name floor budget _; do
      a=$(py_instructions "$1" "$2" "$name" "$short")
      b=$(py_instructions "$1" "$2" "$name" "$long")
      printf '%s\t%s\t%s\t%s\n' "$name" "$floor" "$budget" "$(( (b - a) ))" >> "$out/icount.tsv"
    done
  }
  py_cases benches/python/calls.py "$objects_lib"

  # An op's functional call from numpy (benches/python/ops.py): the package `abi stubs`
  # writes for examples/op-kit against np.empty plus the raw destination-passing call.
  cargo build --quiet --release -p op-kit
  ops_lib=$target/release/libop_kit.so
  rm -rf "$out/ops-package"
  "$target/debug/abi" stubs "$ops_lib" --package ops_pkg -o "$out/ops-package" >/dev/null
  ln -s "$ops_lib" "$out/ops-package/ops_pkg/"
  export ABI_BENCH_OPS_PACKAGE_DIR=$out/ops-package
  py_cases benches/python/ops.py "$ops_lib"
fi

if [ "$quick" = 0 ]; then
  cargo bench --quiet -p abi-benches --bench calls -- --noplot >/dev/null
  if [ -n "$tvm_ffi" ]; then
    ABI_BENCH_TVM_FFI=$tvm_ffi cargo bench --quiet -p abi-benches --bench calls -- --noplot >/dev/null
  fi
fi

python3 scripts/readme_table.py calls "$out/icount.tsv" "$(( long - short ))" "$quick" "$check" "$write" "$target"

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
