#!/usr/bin/env bash
# Prints how many lines #[export_fn] adds for `add(i64, i64)`: the non-blank lines that
# `cargo +nightly rustc -- -Zunpretty=expanded` prints for a scratch crate with the
# attribute, minus the same crate without it (statics and registry entries included).
# Exits 1 above the budget (51 lines: 49 after the merge of the flattened shim with the
# per-type texts, plus ~5%; 50 since the shim's `const KIND` picks its body of `export`).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
target=${ABI_TARGET_DIR:-$("$root/scripts/target-dir.sh")}
budget=51
work=$target/expansion-lines
mkdir -p "$work"
count() { # with|without -> non-blank lines of the expanded crate
  local dir=$work/$1
  mkdir -p "$dir/src"
  cat > "$dir/Cargo.toml" <<TOML
[package]
name = "expansion_$1"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
abi-core = { path = "$root/abi-core" }

[workspace]
TOML
  local attr=""
  [ "$1" = with ] && attr="#[abi_core::export_fn]"
  printf '%s\npub fn add(a: i64, b: i64) -> i64 {\n    a + b\n}\n' "$attr" > "$dir/src/lib.rs"
  (cd "$dir" && CARGO_TARGET_DIR="$work/target" cargo +nightly rustc --quiet --lib -- -Zunpretty=expanded) |
    grep -cv '^[[:space:]]*$'
}
lines=$(( $(count with) - $(count without) ))
echo "#[export_fn] on add(i64, i64) expands to $lines lines (budget $budget)"
[ "$lines" -le "$budget" ] || { echo "FAIL: over the budget of $budget lines" >&2; exit 1; }
