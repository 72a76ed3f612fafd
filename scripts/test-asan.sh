#!/usr/bin/env bash
# AddressSanitizer (with LeakSanitizer) over the runtime tests and the hostile-call,
# thread, import, struct and two-library (one runtime) suites, on the nightly toolchain. Objects are created and
# released on both sides of real library boundaries in these suites.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
if ! rustup toolchain list | grep -q '^nightly'; then
  echo "FAIL: AddressSanitizer needs the nightly toolchain (rustup toolchain install nightly)" >&2
  exit 1
fi
triple=$(rustc -vV | sed -n 's/^host: //p')
export RUSTFLAGS="-Zsanitizer=address -Clink-arg=-rdynamic"
export RUSTDOCFLAGS="-Zsanitizer=address"
# allocator_may_return_null: an allocation memory cannot hold returns null, as glibc's
# does, so the tests of `Tensor::empty`'s MemoryError run here too (ASan aborts otherwise).
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:halt_on_error=1:allocator_may_return_null=1"
export ABI_FIXTURE_TARGET="$triple"
target=${ABI_TARGET_DIR:-$(scripts/target-dir.sh)}
run() { cargo +nightly test --quiet --target "$triple" --target-dir "$target/asan" "$@"; }
run -p abi-core --lib --tests
run -p abi-derive-tests --test hostile_calls --test threads --test imports --test structs --test one_runtime --test objects --test objects_between_libraries
echo "AddressSanitizer: no errors"
