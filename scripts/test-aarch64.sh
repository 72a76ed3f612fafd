#!/usr/bin/env bash
# Linux aarch64 under qemu-user: abi-core's tests and the derive suites whose code depends
# on the target, cross-built for aarch64-unknown-linux-gnu and run through `qemu-aarch64`
# (no binfmt_misc needed: cargo runs each test binary through the runner, and a test's own
# subprocesses, cargo building the fixture libraries, are host tools). Then an aarch64
# wheel packaged by `abi wheel` and checked by `auditwheel show` (tests/aarch64).
#
# Everything is linked by `cargo zigbuild` against glibc 2.17, as the guide's wheel route
# links (docs/guide/platforms.md, "Linux: wheels as broad as tvm_ffi's"). The derive
# suites run here: record sections and linkme entries (exports, objects, globals), struct
# layout across the C boundary (structs), loading, pinning and finding libraries and the
# runtime (imports, one_runtime), thread-local errors (threads), IREE status blocks
# (iree_module).
# Left to the native run, to keep this step near its 2.5 minute budget:
# shims_as_a_host_calls_them (the C shims every suite above calls through),
# objects_between_libraries (three more fixture libraries to build; two libraries sharing
# one runtime are in one_runtime), the tensor suites, hostile_calls, env_shared and
# no_alloc (the same runtime paths with other inputs), the trybuild UI suite
# (target-independent), the guide-snippet suites (they compile code and run nothing),
# type_model (a pure model of texts), cpp_library (it needs the C++ library built for the
# host) and host_bridge (its scenarios need the wheel's libtvm_ffi, an x86_64 library).
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

phase() { printf '    (%s: %d s)\n' "$1" $((SECONDS - began)); began=$SECONDS; }
began=$SECONDS
cargo-zigbuild test --quiet --target "$zigtarget" -p abi-core --lib --tests
phase "abi-core under qemu"
cargo-zigbuild test --quiet --target "$zigtarget" -p abi-derive-tests \
  --test exports --test objects --test globals --test structs --test imports \
  --test one_runtime --test threads --test iree_module
phase "derive suites under qemu"

# The wheel, by the guide's route (in debug, so nothing else compiles): mathlib (it calls
# libm) linked by cargo zigbuild against glibc 2.17, packaged by `abi wheel`.
cargo-zigbuild build --quiet --target "$zigtarget" -p abi-mathlib
cargo build --quiet -p abi-cli
ABI_TARGET_DIR=${ABI_TARGET_DIR:-$(scripts/target-dir.sh)} .venv/bin/python -m pytest -q tests/aarch64
phase "aarch64 wheel"

# The abi-cli tool wheel for aarch64 (issue 53), as scripts/tool-wheels.sh builds it (in
# debug here): `abi` linked by cargo zigbuild against glibc 2.17, tagged manylinux2014,
# and the executable inside it runs under qemu, reading the aarch64 mathlib.
target=${ABI_TARGET_DIR:-$(scripts/target-dir.sh)}
wheel=$(scripts/tool-wheels.sh --debug -o "$target/tool-wheels" linux-aarch64)
case $wheel in
  */abi_cli-*-py3-none-manylinux_2_17_aarch64.manylinux2014_aarch64.whl) ;;
  *) echo "FAIL: the aarch64 tool wheel is $wheel, not manylinux_2_17_aarch64" >&2; exit 1 ;;
esac
rm -rf "$target/tool-wheels/aarch64" && python3 -m zipfile -e "$wheel" "$target/tool-wheels/aarch64"
tool=$target/tool-wheels/aarch64/abi_cli/bin/abi
chmod +x "$tool" # zipfile -e keeps no modes
said=$(qemu-aarch64 -L "$sysroot" "$tool" --version)
[ "$said" = "abi $(cargo pkgid -p abi-cli | sed 's/.*[#@]//')" ] || { echo "FAIL: abi --version under qemu said '$said'" >&2; exit 1; }
qemu-aarch64 -L "$sysroot" "$tool" inspect --no-load "$target/aarch64-unknown-linux-gnu/debug/libmathlib.so" | grep -q "^add(a: int, b: int) -> int$" ||
  { echo "FAIL: the aarch64 abi from the tool wheel cannot inspect the aarch64 mathlib" >&2; exit 1; }
echo "$(basename "$wheel"): abi --version and abi inspect run under qemu"
phase "aarch64 tool wheel"
