#!/usr/bin/env bash
# The abi-cli tool wheels (issue 53): the `abi` executable built for each platform from
# this checkout, packaged by `abi tool-wheel` with the build backend (abi-cli/python).
#
# Usage: scripts/tool-wheels.sh [--debug] [-o DIR] PLATFORM...
#   PLATFORM  linux-x86_64, linux-aarch64: `cargo zigbuild` against glibc 2.17
#                 (manylinux2014), zig and cargo-zigbuild from the project venv;
#             windows-x86_64: the GNU toolchain (mingw-w64), as the platform step builds;
#             macos-arm64, macos-x86_64: linked by the toolchain's rust-lld against the
#                 .tbd stubs of tests/platforms/macos-sdk, as the platform step links
#                 (rust-lld signs arm64 executables ad hoc; `abi tool-wheel` refuses an
#                 unsigned one). These have never run: no macOS machine runs the tests.
#   --debug   the debug profile (the test command: it reuses the builds of its other
#             steps); release otherwise, what a release publishes.
#   -o DIR    where the wheels go (default dist/tool-wheels).
# Prints the path of each wheel written. Needs what scripts/ensure-tools.sh installs.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
profile=release out=dist/tool-wheels platforms=()
while [ $# -gt 0 ]; do
  case $1 in
    --debug) profile=debug ;;
    -o) out=$2; shift ;;
    linux-x86_64 | linux-aarch64 | windows-x86_64 | macos-arm64 | macos-x86_64) platforms+=("$1") ;;
    *) echo "usage: scripts/tool-wheels.sh [--debug] [-o DIR] {linux-x86_64|linux-aarch64|windows-x86_64|macos-arm64|macos-x86_64}..." >&2
       exit 2 ;;
  esac
  shift
done
[ ${#platforms[@]} -gt 0 ] || { echo "tool-wheels.sh: name at least one platform" >&2; exit 2; }
target=${ABI_TARGET_DIR:-$(scripts/target-dir.sh)}
export CARGO_TARGET_DIR=$target
# shellcheck source=scripts/cross-env.sh
source scripts/cross-env.sh
flags=(--quiet -p abi-cli --bin abi)
[ "$profile" = release ] && flags+=(--release)

# The `abi` that writes the wheels: this machine's, of the same version.
cargo build --quiet -p abi-cli --bin abi
host=$target/debug/abi

for platform in "${platforms[@]}"; do
  case $platform in
    linux-*)
      arch=${platform#linux-}
      scripts/setup-venv.sh # ziglang and cargo-zigbuild come with the venv's pins
      PATH="$root/.venv/bin:$PATH" CARGO_ZIGBUILD_PYTHON_PATH="$root/.venv/bin/python" \
        cargo-zigbuild build "${flags[@]}" --target "$arch-unknown-linux-gnu.2.17"
      binary=$target/$arch-unknown-linux-gnu/$profile/abi ;;
    windows-x86_64)
      cross_build x86_64-pc-windows-gnu "${flags[@]}"
      binary=$target/x86_64-pc-windows-gnu/$profile/abi.exe ;;
    macos-*)
      arch=${platform#macos-}
      triple=${arch/arm64/aarch64}-apple-darwin
      cross_build "$triple" "${flags[@]}"
      binary=$target/$triple/$profile/abi ;;
  esac
  "$host" tool-wheel "$binary" -o "$out" | sed 's/^wrote //'
done
