#!/usr/bin/env bash
# Prints the directory cargo builds into (honours CARGO_TARGET_DIR and .cargo/config), so
# scripts and tests find build outputs where cargo puts them, inside the checkout or not.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo metadata --format-version 1 --no-deps | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])'
