#!/usr/bin/env bash
# ThreadSanitizer over the suites where threads meet in the runtime: threads.rs (8 threads
# mixing results and errors, callbacks across threads), thread_stress.rs (objects and weak
# references shared and dropped, errors, environment streams, while a second library
# attaches and globals are registered), one_runtime.rs and objects_between_libraries.rs
# (the attach handshake between libraries), env_shared.rs (the per-thread environment
# table), on the nightly toolchain with the standard library rebuilt instrumented
# (-Zbuild-std), for the test programs and the fixture libraries they open alike.
# A negative control proves the step can fail: tests/tsan-negative-control holds a data
# race the run must report. Installs the nightly `rust-src` component when missing.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
target=${ABI_TARGET_DIR:-$(scripts/target-dir.sh)}
triple=$(rustc -vV | sed -n 's/^host: //p')
if ! rustup component list --toolchain nightly --installed | grep -q '^rust-src'; then
  rustup component add rust-src --toolchain nightly
fi
# -rdynamic: the libraries a test opens find the TSan runtime in the test program.
export RUSTFLAGS="-Zsanitizer=thread -Clink-arg=-rdynamic"
export RUSTDOCFLAGS="-Zsanitizer=thread"
export TSAN_OPTIONS="halt_on_error=1"
# Each build is used once: no incremental state (it doubles the folder's size).
export CARGO_INCREMENTAL=0
# One target folder for the control, the fixture libraries and the suites: the instrumented
# std and the runtime are built once for all of them.
cargo_tsan() { cargo +nightly "$1" -Zbuild-std --quiet --target "$triple" --target-dir "$target/tsan" "${@:2}"; }

log=$(cargo_tsan test --manifest-path tests/tsan-negative-control/Cargo.toml 2>&1 || true)
if ! grep -q "WARNING: ThreadSanitizer: data race" <<<"$log"; then
  echo "error: the ThreadSanitizer negative control's data race was not reported:" >&2
  echo "$log" >&2
  exit 1
fi
echo "negative control: data race reported, as it must be"

# The libraries the suites open, built beforehand (ABI_FIXTURE_DIR) with the same flags.
cargo_tsan build -p abi-mathlib -p abi-objects-lib -p abi-objects-twin -p abi-objects-conflict \
  -p abi-interop-lib -p tensor-kit
export ABI_FIXTURE_DIR="$target/tsan/$triple/debug"
cargo_tsan test -p abi-derive-tests --test threads --test thread_stress --test one_runtime \
  --test objects_between_libraries --test env_shared
echo "ThreadSanitizer: no data races"
