#!/usr/bin/env bash
# examples/cuda-kit without a GPU: its PTX is NVRTC 13.0's output for its CUDA source and
# assembles for sm_75/80/90 (PyPI's nvidia-cuda-nvrtc, in .venv-cuda from
# tests/cuda-kit/requirements.txt); the library loads, `abi inspect` reads it, calls fail
# with "no CUDA driver", launches are configured on the caller's stream (tests/cuda-kit);
# and scripts/gpu-check.sh installs its wheels offline and reports skips and errors.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/setup-venv.sh .venv-cuda tests/cuda-kit/requirements.txt
cargo build --quiet -p cuda-kit -p abi-cli
nvrtc=$(echo "$root"/.venv-cuda/lib/python3*/site-packages/nvidia/cu13/lib)
[ -e "$nvrtc/libnvrtc.so.13" ] || { echo "error: no libnvrtc.so.13 in $nvrtc" >&2; exit 1; }
LD_LIBRARY_PATH="$nvrtc${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" cargo test --quiet -p cuda-kit -- --include-ignored
ABI_TARGET_DIR=${ABI_TARGET_DIR:-$(scripts/target-dir.sh)} .venv-cuda/bin/python -m pytest -q tests/cuda-kit
scripts/gpu-check.sh --self-test
