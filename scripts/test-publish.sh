#!/usr/bin/env bash
# The four published crates (abi-shared, abi-macros, abi-core, abi-cli) package and build
# from their packaged sources alone, as `cargo publish` would upload them (every other
# member is `publish = false`). Needs the crates.io index, which cargo fetches.
set -euo pipefail
cd "$(dirname "$0")/.."
# Cargo unpacks the packaged crates from its temporary registry into CARGO_HOME and reuses
# an unpacked copy of the same version, so a second run would build the first run's
# sources: remove those copies (only this workspace's crates live in that registry).
# Its builds of registry crates are likewise taken as current, so the check builds in a
# target folder of its own whose abi-* fingerprints are removed (other dependencies stay
# built).
home=${CARGO_HOME:-$HOME/.cargo}
rm -rf "$home"/registry/src/-*/abi-*-[0-9]* "$home"/registry/cache/-*/abi-*-[0-9]*
target=${ABI_TARGET_DIR:-$(scripts/target-dir.sh)}/publish
rm -rf "$target"/debug/.fingerprint/abi-*
export CARGO_TARGET_DIR=$target
# --allow-dirty: a working tree with edits is checked as it stands; CI's clone is clean.
if ! out=$(cargo publish --workspace --dry-run --allow-dirty 2>&1); then
  printf '%s\n' "$out"
  exit 1
fi
packaged=$(printf '%s\n' "$out" | grep -c "aborting upload due to dry run" || true)
if [ "$packaged" -ne 4 ]; then
  printf '%s\n' "$out"
  echo "expected 4 crates to package, saw $packaged" >&2
  exit 1
fi
echo "cargo publish --dry-run: abi-shared, abi-macros, abi-core, abi-cli package and build"
