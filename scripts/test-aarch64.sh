#!/usr/bin/env bash
# Linux aarch64 under qemu-user: abi-core's tests and the derive suites that drive the
# runtime's unsafe code and the export and import paths, cross-built for
# aarch64-unknown-linux-gnu and run through `qemu-aarch64` (no binfmt_misc needed: cargo
# runs each test binary through the runner, and a test's own subprocesses are host tools).
# Then an aarch64 wheel: a library from the same build, packaged by `abi wheel`, checked by
# `auditwheel show` (tests/aarch64).
#
# Everything is linked by `cargo zigbuild` against glibc 2.17, as the wheel build route
# links (docs: Linux breadth); the test binaries and the wheel's library share one build.
# Left to the native run: the trybuild UI suite (target-independent), the guide-snippet
# suites (they compile code and run nothing), type_model (a pure model of texts),
# cpp_library (it needs the C++ library built for the host) and host_bridge (its
# scenarios need the wheel's libtvm_ffi, an x86_64 library).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

scripts/setup-venv.sh # ziglang and cargo-zigbuild come with the venv's pins
export PATH="$root/.venv/bin:$PATH"
export CARGO_ZIGBUILD_PYTHON_PATH="$root/.venv/bin/python"
sysroot=/usr/aarch64-linux-gnu # Debian's libc6-arm64-cross: the loader and libc qemu runs with
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="qemu-aarch64 -L $sysroot"
# The fixture libraries the derive suites build for themselves (abi-derive-tests/src/lib.rs)
# are built for aarch64 too, with the linker cargo-zigbuild set.
export ABI_FIXTURE_TARGET=aarch64-unknown-linux-gnu
zigtarget=aarch64-unknown-linux-gnu.2.17

cargo-zigbuild test --quiet --target "$zigtarget" -p abi-core --lib --tests
cargo-zigbuild test --quiet --target "$zigtarget" -p abi-derive-tests \
  --test exports --test imports --test globals --test structs --test objects \
  --test objects_between_libraries --test one_runtime --test shims_as_a_host_calls_them \
  --test hostile_calls --test threads --test env_shared --test no_alloc --test iree_module \
  --test typed_tensors --test strided_tensors --test tensor_overlaps \
  --test tensor_errors_in_bodies --test ndarray_views

# The wheel: mathlib (it calls libm) from the debug build above, so nothing else compiles.
cargo-zigbuild build --quiet --target "$zigtarget" -p abi-mathlib
cargo build --quiet -p abi-cli
ABI_TARGET_DIR=${ABI_TARGET_DIR:-$(scripts/target-dir.sh)} .venv/bin/python -m pytest -q tests/aarch64
