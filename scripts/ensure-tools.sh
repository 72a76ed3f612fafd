#!/usr/bin/env bash
# Makes sure the tools the test suite needs are present: python3 with venv, gcc, g++, valgrind,
# for scripts/test-platforms.sh mingw-w64 and wine, and for scripts/test-aarch64.sh qemu-user
# and Debian's aarch64 glibc (libc6-arm64-cross, the loader and libc qemu-aarch64 runs the
# tests with), installed with apt-get when missing and running as root; a nightly Rust
# toolchain for the AddressSanitizer step; and the macOS, Windows and aarch64 Linux targets
# of the pinned toolchain that abi-cli's platform tests, scripts/test-platforms.sh and
# scripts/test-aarch64.sh build for (installed with rustup when missing). Otherwise fails
# saying what to install.
set -euo pipefail
if ! rustup toolchain list | grep -q '^nightly'; then
  echo "installing the nightly Rust toolchain (AddressSanitizer needs it)"
  rustup toolchain install nightly --profile minimal ||
    { echo "missing tool: the nightly Rust toolchain (rustup toolchain install nightly)" >&2; exit 1; }
fi
# The macOS and Windows targets of the pinned toolchain (rust-toolchain.toml): abi-cli's
# tests link libraries for them with the toolchain's rust-lld (abi-cli/tests/platforms.rs),
# scripts/test-platforms.sh builds the workspace for them; scripts/test-aarch64.sh builds
# for aarch64 Linux.
targets=(aarch64-apple-darwin x86_64-apple-darwin x86_64-pc-windows-msvc x86_64-pc-windows-gnu)
targets+=(aarch64-unknown-linux-gnu)
installed=$(cd "$(dirname "$0")/.." && rustup target list --installed)
for target in "${targets[@]}"; do
  grep -qx "$target" <<<"$installed" && continue
  echo "adding the Rust target $target"
  (cd "$(dirname "$0")/.." && rustup target add "$target") ||
    { echo "missing Rust target: $target (rustup target add $target)" >&2; exit 1; }
done
missing=()
command -v g++ >/dev/null || missing+=(g++)
command -v gcc >/dev/null || missing+=(gcc)
command -v objcopy >/dev/null || missing+=(binutils)                           # fuzz-seeds.sh
command -v valgrind >/dev/null || missing+=(valgrind)
command -v python3 >/dev/null || missing+=(python3)
python3 -c 'import venv, ensurepip' 2>/dev/null || missing+=(python3-venv)
command -v x86_64-w64-mingw32-gcc >/dev/null || missing+=(gcc-mingw-w64-x86-64)
command -v wine >/dev/null && command -v wineboot >/dev/null || missing+=(wine wine64)
command -v qemu-aarch64 >/dev/null || missing+=(qemu-user)                          # test-aarch64.sh
[ -e /usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1 ] || missing+=(libc6-arm64-cross) # its -L sysroot
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "installing: ${missing[*]}"
  apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null ||
    { echo "missing tools: ${missing[*]} (apt-get install failed)" >&2; exit 1; }
  for tool in g++ gcc valgrind python3 x86_64-w64-mingw32-gcc wine wineboot qemu-aarch64; do
    command -v "$tool" >/dev/null || { echo "missing tool: $tool (not there after apt-get install ${missing[*]})" >&2; exit 1; }
  done
  [ -e /usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1 ] ||
    { echo "missing: /usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1 (not there after apt-get install ${missing[*]})" >&2; exit 1; }
else
  echo "missing tools: ${missing[*]} (install them, e.g. apt-get install ${missing[*]})" >&2
  exit 1
fi
