#!/usr/bin/env bash
# examples/cuda-kit on a GPU machine: results against torch's, torch's current stream and
# caching allocator, CuPy, JAX through jax-tvm-ffi, and the per-call cost next to torch's
# own ops (tests/cuda-kit/gpu_check.py, one process and one timeout per check).
#
# The GPU machine has no network and no Rust toolchain, so what the check needs travels
# in one ignored folder, .gpu-check/, that `--prepare` fills here:
#   scripts/gpu-check.sh --prepare     the library (release) and the wheels (cp312
#                                      apache-tvm-ffi, py3-none jax-tvm-ffi, cp312
#                                      torch-c-dlpack-ext), with a manifest
#   scripts/gpu-check.sh [--out DIR]   on the GPU machine: installs the wheels with
#                                      `pip --no-index --no-deps --target`, runs the checks,
#                                      prints one summary line, writes DIR/gpu-check.json
#                                      (DIR: $OUT when set, else .gpu-check/out); with
#                                      the device tool: carry [".gpu-check"], command
#                                      `bash scripts/gpu-check.sh`, timeout_s 600
#   scripts/gpu-check.sh --record REPORT
#                                      here: keeps a GPU machine's gpu-check.json as
#                                      benches/gpu-check.json and writes its tables into
#                                      benches/README.md
#   scripts/gpu-check.sh --self-test   here, without a GPU (after a debug build of cuda-kit):
#                                      the install into a --target folder (for Python
#                                      3.12), then every check, which must end in skip or
#                                      err with its reason; and benches/README.md's GPU
#                                      tables must be what benches/gpu-check.json gives
# Exit status: 0 when no check failed or erred (skips allowed), 1 otherwise, 2 on misuse.
# Settings: GPU_CHECK_PYTHON (python3), GPU_CHECK_BUDGET (540 s for all checks),
# GPU_CHECK_LIMIT (one limit for every check), GPU_CHECK_KEEP=1 (keeps the temporary folder
# of the install and --self-test; otherwise it is removed on any exit, a failing one too).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
kit=.gpu-check
python=${GPU_CHECK_PYTHON:-python3}
checks=(env torch_results torch_stream torch_allocator cupy jax cost)
# Seconds per check: imports (torch, jax) take most of it; env may JIT-build tvm_ffi's torch
# addon when neither torch nor torch-c-dlpack-ext provides the exchange API.
declare -A limit=([env]=180 [torch_results]=90 [torch_stream]=60 [torch_allocator]=60 [cupy]=60 [jax]=120 [cost]=90)
# All checks together stop within GPU_CHECK_BUDGET seconds (a device command may run 600):
# a check gets what is left when less than its own limit, and none once it is spent.
budget=${GPU_CHECK_BUDGET:-540}
# The temporary folder of a run (the install, --self-test's kit), removed when the script
# exits however it exits (a RETURN trap would not run when `set -e` ends the script).
scratch=
trap '[ -z "$scratch" ] || [ -n "${GPU_CHECK_KEEP:-}" ] || rm -rf "$scratch"' EXIT

usage() {
  awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0" >&2
  exit 2
}

# Downloads the wheels of tests/cuda-kit/requirements-gpu.txt for the GPU machine's Python
# (CPython 3.12, manylinux x86_64) into $kit/wheels.
download_wheels() {
  mkdir -p "$kit/wheels"
  python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
    --python-version 3.12 --implementation cp --abi cp312 --abi none \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_24_x86_64 --platform manylinux_2_17_x86_64 \
    -d "$kit/wheels" -r tests/cuda-kit/requirements-gpu.txt
}

prepare() {
  local target_dir
  target_dir=$(scripts/target-dir.sh)
  rm -rf "$kit" && mkdir -p "$kit/lib"
  cargo build --quiet --release -p cuda-kit
  cp "$target_dir/release/libcuda_kit.so" "$kit/lib/"
  download_wheels
  # The newest glibc symbol version the library needs: the GPU machine's must be as new.
  local glibc
  glibc=$(objdump -T "$kit/lib/libcuda_kit.so" | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1)
  {
    echo "built $(date -u +%FT%TZ) at $(git rev-parse --short HEAD) on $(ldd --version | sed -n 1p)"
    echo "needs $glibc"
    (cd "$kit" && sha256sum lib/* wheels/*)
  } > "$kit/MANIFEST"
  du -sh "$kit"
  cat "$kit/MANIFEST"
}

# Installs the wheels named (by project name) into $site, offline.
install() {
  local site=$1
  shift
  local extra=()
  # --self-test installs for the GPU machine's Python (3.12) from another one.
  [ "${GPU_CHECK_FOR_312:-}" = 1 ] && extra=(--python-version 3.12 --implementation cp --abi cp312 --only-binary=:all:
    --platform manylinux_2_28_x86_64)
  if ! "$python" -m pip --version > /dev/null 2>&1; then
    # No pip there: a wheel is a zip of what pip --target would place.
    local name wheel
    for name in "$@"; do
      for wheel in "$kit/wheels/${name//-/_}"-*.whl; do
        "$python" -m zipfile -e "$wheel" "$site"
      done
    done
    return
  fi
  "$python" -m pip install --quiet --disable-pip-version-check --no-index --no-deps --find-links "$kit/wheels" \
    --target "$site" "${extra[@]}" "$@"
}

# Runs every check, each in its own process under its own timeout (GPU_CHECK_LIMIT, when set,
# for all); writes $2/gpu-check.json and prints one summary line. $1: where the wheels were
# installed (added to PYTHONPATH); $3: the library.
run_checks() {
  local site=$1 out=$2 lib=${3:-$kit/lib/libcuda_kit.so}
  case $lib in /*) ;; *) lib=$PWD/$lib ;; esac
  mkdir -p "$out/logs"
  : > "$out/results.jsonl"
  local start=$SECONDS
  for check in "${checks[@]}"; do
    local log=$out/logs/$check.log rc=0 seconds=${GPU_CHECK_LIMIT:-${limit[$check]}} left
    left=$((budget - (SECONDS - start)))
    [ "$left" -lt "$seconds" ] && seconds=$left
    if [ "$left" -lt 5 ]; then
      echo "not run: the ${budget} s of the whole check were spent" > "$log"
      rc=124
    else
      PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}" timeout --kill-after=10 "$seconds" \
        "$python" tests/cuda-kit/gpu_check.py "$check" "$lib" > "$log" 2>&1 || rc=$?
    fi
    local last
    last=$(tail -n 1 "$log")
    if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
      [ "$left" -lt 5 ] || last="timed out after $seconds s"
      last="{\"check\": \"$check\", \"status\": \"err\", \"message\": \"$last\", \"figures\": {}}"
    elif ! "$python" -c 'import json, sys; json.loads(sys.argv[1])' "$last" 2>/dev/null; then
      local why
      why=$(grep -v '^\s*$' "$log" | tail -n 1 | tr -d '"\\' | cut -c1-200)
      last="{\"check\": \"$check\", \"status\": \"err\", \"message\": \"exited $rc without a result: $why\", \"figures\": {}}"
    fi
    echo "$last" >> "$out/results.jsonl"
    printf '  %-16s %s\n' "$check" "$("$python" -c 'import json, sys; r = json.loads(sys.argv[1]); print(r["status"] + ": " + r["message"])' "$last")"
    # No exchange API after env: later checks run without tvm_ffi's torch addon rather than
    # trying (and timing out) to build it again in each process.
    if [ "$check" = env ] && grep -q '"exchange_api": "none"' "$out/results.jsonl"; then
      export TVM_FFI_DISABLE_TORCH_C_DLPACK=1
    fi
  done
  "$python" - "$out" "$(ldd --version | sed -n 1p)" "$(sed -n 2p "$kit/MANIFEST" 2>/dev/null)" "$(sed -n 1p "$kit/MANIFEST" 2>/dev/null)" <<'EOF'
import json, pathlib, sys
out, ldd, needs, built = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
results = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
counts = {s: sum(r["status"] == s for r in results) for s in ("ok", "fail", "skip", "err")}
gpu = next((r["figures"].get("gpu") for r in results if r["check"] == "env"), None) or "no GPU"
report = {"gpu": gpu, "ldd": ldd, "built": built, "library": needs, "counts": counts, "checks": {r["check"]: r for r in results}}
(out / "gpu-check.json").write_text(json.dumps(report, indent=2) + "\n")
cost = next((r["figures"] for r in results if r["check"] == "cost" and r["status"] == "ok"), {})
per_call = f"; add {cost['add_us']} us vs torch.add {cost['torch_add_us']} us" if cost else ""
states = " ".join(f"{r['check']}={r['status']}" for r in results)
print(f"gpu-check: {counts['ok']} ok, {counts['fail']} failed, {counts['skip']} skipped, {counts['err']} errors on {gpu}: {states}{per_call}; figures in {out / 'gpu-check.json'}")
sys.exit(0 if counts["fail"] + counts["err"] == 0 else 1)
EOF
}

gpu() {
  local out=${1:-${OUT:-$kit/out}}
  # The library was linked against the glibc of the machine that built it.
  ldd --version | sed -n 1p
  [ -f "$kit/MANIFEST" ] || { echo "error: no $kit/MANIFEST: run scripts/gpu-check.sh --prepare on the build machine" >&2; exit 2; }
  sed -n 1,2p "$kit/MANIFEST"
  local have needs
  have=$(ldd --version | sed -n 1p | grep -o '[0-9]*\.[0-9]*$')
  needs=$(sed -n 2p "$kit/MANIFEST" | grep -o '[0-9]*\.[0-9]*$')
  if [ "$(printf '%s\n' "$needs" "$have" | sort -V | head -1)" != "$needs" ]; then
    echo "error: the library needs glibc $needs and this machine has $have: build it on (or for) an older glibc" >&2
    exit 2
  fi
  (cd "$kit" && sed -n '3,$p' MANIFEST | sha256sum --check --quiet) || { echo "error: $kit differs from its MANIFEST" >&2; exit 2; }
  scratch=$(mktemp -d)
  local site=$scratch/site
  install "$site" apache-tvm-ffi jax-tvm-ffi
  # torch 2.10 and later give tvm_ffi their stream and allocator themselves; older ones
  # need torch-c-dlpack-ext (whose prebuilt addons stop at torch 2.9: beyond that tvm_ffi
  # builds its own, once, into TVM_FFI_CACHE_DIR, inside env's time).
  if "$python" -c 'import torch, sys; sys.exit(0 if hasattr(torch.Tensor, "__dlpack_c_exchange_api__") else 1)' 2>/dev/null; then
    export GPU_CHECK_TORCH_NATIVE=1
  else
    install "$site" torch-c-dlpack-ext
  fi
  export TVM_FFI_CACHE_DIR=${TVM_FFI_CACHE_DIR:-$(dirname "$site")/tvm-ffi-cache}
  run_checks "$site" "$out"
}

self_test() {
  python=${GPU_CHECK_PYTHON:-.venv-cuda/bin/python} # tvm_ffi and numpy; no torch, CuPy or JAX
  scratch=$(mktemp -d)
  # A kit of its own, with the debug library (.gpu-check/ is left as it is).
  kit=$scratch/kit
  download_wheels
  mkdir -p "$kit/lib"
  cp "$(scripts/target-dir.sh)/debug/libcuda_kit.so" "$kit/lib/"
  # The install the GPU machine does, for its Python 3.12, into a --target folder.
  GPU_CHECK_FOR_312=1 install "$scratch/site312" apache-tvm-ffi jax-tvm-ffi torch-c-dlpack-ext
  for module in tvm_ffi jax_tvm_ffi torch_c_dlpack_ext; do
    [ -d "$scratch/site312/$module" ] || { echo "self-test: $module not installed by --target" >&2; return 1; }
  done
  ls "$scratch/site312"/tvm_ffi/core.cpython-312-x86_64-linux-gnu.so > /dev/null
  # The checks here: the library loads, then each check skips (no torch, CuPy or JAX), with
  # its reason; with a library that is not there, each errs. Summary and figures written.
  local case status
  for case in "skip:$kit/lib/libcuda_kit.so" "err:$scratch/missing.so"; do
    status=0
    run_checks "" "$scratch/${case%%:*}" "${case#*:}" > "$scratch/summary" || status=$?
    tail -n 1 "$scratch/summary"
    "$python" - "$scratch/${case%%:*}/gpu-check.json" "${case%%:*}" "$status" "$(tail -n 1 "$scratch/summary")" "${checks[@]}" <<'EOF'
import json, sys
path, want, status, summary, names = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5:]
report = json.load(open(path))
assert list(report["checks"]) == names, report["checks"].keys()
for name, r in report["checks"].items():
    assert r["status"] == want and r["message"], (name, r)
assert report["gpu"] == "no GPU" and report["ldd"].startswith("ldd "), report
assert status == (1 if want == "err" else 0), f"exit status {status} with every check {want}"
assert summary.startswith(f"gpu-check: 0 ok, 0 failed, {len(names) if want == 'skip' else 0} skipped"), summary
EOF
  done
  python3 scripts/readme_table.py gpu benches/gpu-check.json
  echo "self-test: the install into --target works; every check skips without torch, CuPy or JAX and errs without the library, with its reason"
}

# Keeps a GPU machine's report as benches/gpu-check.json, and its tables in benches/README.md.
record() {
  local report=$1
  python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); assert r["checks"]["env"]["figures"].get("gpu"), "no GPU in this report"' "$report"
  [ "$report" -ef benches/gpu-check.json ] || cp "$report" benches/gpu-check.json
  python3 scripts/readme_table.py gpu benches/gpu-check.json --write
}

case "${1:-}" in
  --prepare) prepare ;;
  --self-test) self_test ;;
  --record) [ $# = 2 ] || usage; record "$2" ;;
  --out) [ $# = 2 ] || usage; gpu "$2" ;;
  "") gpu ;;
  *) usage ;;
esac
