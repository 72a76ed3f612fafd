#!/usr/bin/env bash
# Makes sure the tools the test suite needs are present: python3 with venv, gcc, g++, valgrind
# (installed with apt-get when missing and running as root), a nightly Rust toolchain
# for the AddressSanitizer step and the rustup targets the CLI's platform tests link for
# (installed with rustup when missing), and for scripts/test-aarch64.sh the Rust target
# aarch64-unknown-linux-gnu, qemu-user and Debian's aarch64 glibc (libc6-arm64-cross, the
# loader and libc qemu-aarch64 runs the tests with). Otherwise fails saying what to install.
set -euo pipefail
if ! rustup toolchain list | grep -q '^nightly'; then
  echo "installing the nightly Rust toolchain (AddressSanitizer needs it)"
  rustup toolchain install nightly --profile minimal ||
    { echo "missing tool: the nightly Rust toolchain (rustup toolchain install nightly)" >&2; exit 1; }
fi
# The targets abi-cli's tests link macOS and Windows libraries for (with the toolchain's
# rust-lld, abi-cli/tests/platforms.rs).
cli_targets=(aarch64-apple-darwin x86_64-apple-darwin x86_64-pc-windows-msvc)
cli_targets+=(aarch64-unknown-linux-gnu) # scripts/test-aarch64.sh
installed=$(cd "$(dirname "$0")/.." && rustup target list --installed)
for target in "${cli_targets[@]}"; do
  grep -qx "$target" <<<"$installed" && continue
  echo "adding the Rust target $target"
  (cd "$(dirname "$0")/.." && rustup target add "$target") ||
    { echo "missing Rust target: $target (rustup target add $target)" >&2; exit 1; }
done
missing=()
command -v g++ >/dev/null || missing+=(g++)
command -v gcc >/dev/null || missing+=(gcc)
command -v valgrind >/dev/null || missing+=(valgrind)
command -v python3 >/dev/null || missing+=(python3)
python3 -c 'import venv, ensurepip' 2>/dev/null || missing+=(python3-venv)
command -v qemu-aarch64 >/dev/null || missing+=(qemu-user)                          # test-aarch64.sh
[ -e /usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1 ] || missing+=(libc6-arm64-cross) # its -L sysroot
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "installing: ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null ||
    { echo "cannot install: ${missing[*]} (apt-get install ${missing[*]} failed)" >&2; exit 1; }
else
  echo "missing tools: ${missing[*]} (install them, e.g. apt-get install ${missing[*]})" >&2
  exit 1
fi
