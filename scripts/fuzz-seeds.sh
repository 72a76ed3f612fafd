#!/usr/bin/env bash
# Writes the seed inputs of the fuzz targets (fuzz/fuzz_targets/) from the real libraries
# the project builds (the example libraries, built here if missing): for each, its record
# sections, each export's metadata JSON, the stripped library file, and the stub writer's
# input (the three sections behind two lengths); the macOS and Windows builds of two of
# them as whole files. Usage: scripts/fuzz-seeds.sh DIR; writes
# DIR/<target>/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=$1
target=${ABI_TARGET_DIR:-$(scripts/target-dir.sh)}
cargo build --quiet -p abi-mathlib -p abi-objects-lib -p iree-kit -p abi-interop-lib -p signal-kit
libs=("$target"/debug/libmathlib.so "$target"/debug/libabi_objects_lib.so "$target"/debug/libiree_kit.so
  "$target"/debug/libabi_interop_lib.so "$target"/debug/libsignal_kit.so)
rm -rf "$out" && # tensor_view and iree_params start from no seed: their input is a structure libFuzzer builds.
mkdir -p "$out"/{export_records,class_records,iree_records,iree_params,metadata,library_file,stubs,tensor_view}
python3 - "$out" "${libs[@]}" <<'PY'
import os, subprocess, sys, tempfile

out, libs = sys.argv[1], sys.argv[2:]

def section(lib, name):
    with tempfile.NamedTemporaryFile() as f:
        r = subprocess.run(["objcopy", "-O", "binary", f"--only-section={name}", lib, f.name])
        return open(f.name, "rb").read() if r.returncode == 0 else b""

for lib in libs:
    base = os.path.basename(lib)
    exports, classes, iree = (section(lib, n) for n in ("abi_export_records", "abi_class_records", "abi_iree_records"))
    for target, data in (("export_records", exports), ("class_records", classes), ("iree_records", iree)):
        if data.strip(b"\0"):
            open(f"{out}/{target}/{base}", "wb").write(data)
    # Each export record: name NUL global NUL length(4) body(metadata NUL signature NUL doc NUL).
    rest, n = exports, 0
    while rest.strip(b"\0"):
        rest = rest.lstrip(b"\0")
        name, _, rest = rest.partition(b"\0")
        _, _, rest = rest.partition(b"\0")
        length = int.from_bytes(rest[:4], "little")
        body, rest = rest[4:4 + length], rest[4 + length:]
        open(f"{out}/metadata/{base}-{name.decode()}", "wb").write(body.split(b"\0")[0])
        n += 1
    head = len(exports).to_bytes(4, "little") + len(classes).to_bytes(4, "little")
    open(f"{out}/stubs/{base}", "wb").write(head + exports + classes + iree)
    subprocess.run(["objcopy", "--strip-all", lib, f"{out}/library_file/{base}"], check=True)
PY
# Mach-O and PE files as well, for library_file: built as scripts/test-platforms.sh builds
# them (scripts/cross-env.sh), so that step reuses these builds.
# shellcheck source=scripts/cross-env.sh
source scripts/cross-env.sh
for triple in x86_64-apple-darwin x86_64-pc-windows-gnu; do
  cross_build "$triple" --quiet -p abi-mathlib -p abi-objects-lib
done
# Under the 4 MiB the target reads: a DLL keeps its export table when stripped of all
# symbols, a dylib needs its symbols (abi reads exports from them).
sysroot=$(rustc --print sysroot)
objcopy() { LD_LIBRARY_PATH=$sysroot/lib "$sysroot/lib/rustlib/x86_64-unknown-linux-gnu/bin/rust-objcopy" "$@"; }
for lib in mathlib abi_objects_lib; do
  objcopy --strip-debug "$target/x86_64-apple-darwin/debug/lib$lib.dylib" "$out/library_file/lib$lib.dylib"
  objcopy --strip-all "$target/x86_64-pc-windows-gnu/debug/$lib.dll" "$out/library_file/$lib.dll"
done
for dir in "$out"/*/; do
  printf '%s: %d seeds\n' "$(basename "$dir")" "$(ls "$dir" | wc -l)"
done
