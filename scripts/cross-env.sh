# Sourced by the scripts that build for macOS and Windows on Linux (test-platforms.sh,
# fuzz-seeds.sh), so that they build alike and one reuses what the other built: macOS
# libraries linked by the toolchain's rust-lld against the .tbd stubs in
# tests/platforms/macos-sdk, Windows GNU ones by mingw-w64, no debug info for the foreign
# targets (it keeps the builds fast), no incremental state. `cross_build TRIPLE ARGS...`
# is `cargo build --target TRIPLE ARGS...` with SDKROOT set for the macOS targets.
for var in AARCH64_APPLE_DARWIN X86_64_APPLE_DARWIN; do
  export "CARGO_TARGET_${var}_LINKER=rust-lld"
  export "CARGO_TARGET_${var}_RUSTFLAGS=-Clinker-flavor=ld64.lld -Clink-arg=-undefined -Clink-arg=dynamic_lookup -Cdebuginfo=0"
done
export CARGO_TARGET_X86_64_PC_WINDOWS_MSVC_RUSTFLAGS=-Cdebuginfo=0
export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUSTFLAGS=-Cdebuginfo=0
export CARGO_INCREMENTAL=0
cross_build() {
  local triple=$1
  shift
  case $triple in
    *-apple-darwin) SDKROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/tests/platforms/macos-sdk" \
      cargo build --target "$triple" "$@" ;;
    *) cargo build --target "$triple" "$@" ;;
  esac
}
