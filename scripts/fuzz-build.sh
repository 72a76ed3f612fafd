#!/usr/bin/env bash
# Builds the fuzz targets (fuzz/fuzz_targets/) for libFuzzer on the nightly toolchain and
# prints the folder holding them: the instrumentation `cargo fuzz build` applies (coverage
# counters, compare tracing, AddressSanitizer, debug assertions, `--cfg fuzzing`), passed
# to cargo directly so that neither the test command nor a campaign needs cargo-fuzz
# installed (building it takes minutes). fuzz/ stays a cargo-fuzz project: with cargo-fuzz,
# `cargo fuzz run TARGET` works there as usual.
#
# Usage: scripts/fuzz-build.sh [--campaign]. The default build is the test command's: no
# optimisation beyond opt-level 1 and parallel code generation, the cheapest to build from
# cold. --campaign builds as cargo-fuzz does by default (release, one codegen unit), slower
# to build and about twice as fast to run, for scripts/fuzz.sh.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
target=${ABI_TARGET_DIR:-$(scripts/target-dir.sh)}
triple=$(rustc -vV | sed -n 's/^host: //p')
flags="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4"
flags+=" -Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table"
flags+=" -Cllvm-args=-sanitizer-coverage-trace-compares -Cllvm-args=-sanitizer-coverage-stack-depth"
flags+=" -Cllvm-args=-simplifycfg-branch-fold-threshold=0 --cfg fuzzing -Zsanitizer=address -Cdebug-assertions"
case ${1:-} in
  --campaign) profile=release
    args=(--release --config 'profile.release.debug="line-tables-only"')
    flags+=" -Ccodegen-units=1" ;;
  "") profile=debug
    args=(--config profile.dev.opt-level=1 --config 'profile.dev.debug="line-tables-only"') ;;
  *) echo "usage: scripts/fuzz-build.sh [--campaign]" >&2; exit 2 ;;
esac
# --target: the flags reach the targets' code only, not build scripts and proc-macros.
# Each build is used as it is: no incremental state (it doubles the folder's size).
RUSTFLAGS="$flags" CARGO_INCREMENTAL=0 cargo +nightly build --quiet --manifest-path fuzz/Cargo.toml \
  --target "$triple" --target-dir "$target/fuzz" --bins "${args[@]}" >&2
echo "$target/fuzz/$triple/$profile"
