#!/usr/bin/env bash
# macOS and Windows, checked on this Linux machine (issue 39; docs/guide/platforms.md
# says what runs where):
#   - macOS (aarch64-apple-darwin, x86_64-apple-darwin): the whole workspace built for each
#     target, every library, cdylib and binary compiled and linked by the toolchain's rust-lld
#     (ld64 flavour) against the hand-written .tbd stubs of tests/platforms/macos-sdk (more than
#     code generation: nothing here runs Mach-O). Three dylibs are then read back: the records
#     in their sections equal the Linux build's (tests/platforms/same_records.py), and so does
#     `abi inspect --no-load --json`.
#   - Windows MSVC (x86_64-pc-windows-msvc): code generation of every library crate (but the
#     Linux-only benchmarks) as an rlib and of the binaries as objects (no Windows SDK to link).
#   - Windows GNU (x86_64-pc-windows-gnu): the test libraries built as DLLs with mingw and the
#     linker's defaults (--gc-sections), their records and `abi inspect` compared with Linux's;
#     abi-core's tests and the derive suites (exports, structs, objects with methods, globals,
#     imports through a DLL, records_in_file) run under wine.
#   - Every library built for Linux, macOS and Windows imports no CPython symbol and links no
#     Python library (tests/platforms/no_python_imports.py; the Python door, issue 51).
# Needs what scripts/ensure-tools.sh installs (the rustup targets, mingw-w64, wine64).
# Builds into the usual target directory (per-target folders), with -Cdebuginfo=0 for the
# foreign targets to keep it fast; the wine prefix lives in $target/wine.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
target=${ABI_TARGET_DIR:-$(scripts/target-dir.sh)}
# shellcheck source=scripts/cross-env.sh
source scripts/cross-env.sh

began=$SECONDS
phase() { printf '  [%3d s] %s\n' $((SECONDS - began)) "$*"; }

sysroot=$(rustc --print sysroot)
objcopy="env LD_LIBRARY_PATH=$sysroot/lib $sysroot/lib/rustlib/x86_64-unknown-linux-gnu/bin/rust-objcopy"
[ -x "$sysroot/lib/rustlib/x86_64-unknown-linux-gnu/bin/rust-lld" ] ||
  { echo "missing: the toolchain's rust-lld" >&2; exit 1; }

# The Linux builds every other build is compared with, and the CLI that reads them.
phase "Linux reference libraries and the abi CLI"
cargo build --quiet -p abi-objects-lib -p iree-kit -p abi-mathlib -p abi-cli
abi=$target/debug/abi

# Same records and same `abi inspect` output as the Linux library built from the same source.
same_as_linux() { # linux-lib other-lib
  python3 tests/platforms/same_records.py "$objcopy" "$1" "$2"
  local linux other
  linux=$("$abi" inspect --no-load --json "$1") || { echo "FAIL: abi inspect cannot read $1" >&2; return 1; }
  other=$("$abi" inspect --no-load --json "$2") || { echo "FAIL: abi inspect cannot read $2" >&2; return 1; }
  python3 - "$linux" "$other" "$2" <<'PY'
import json, sys
linux, other = (json.loads(t) for t in sys.argv[1:3])
for d in (linux, other):
    d.pop("library", None)
if linux != other:
    sys.exit(f"FAIL: abi inspect of {sys.argv[3]} differs from the Linux library's")
print(f"{sys.argv[3]}: abi inspect prints what it prints for the Linux library")
PY
}

# No library imports a CPython symbol or links a Python library (the Python door reaches
# the interpreter through a table the package fills): the check, shown to fail first on a
# library that imports one.
no_python() { python3 tests/platforms/no_python_imports.py "$@" >/dev/null; }
phase "no Python imports: the check refuses a library importing PyLong_FromLong"
probe=$target/no-python-probe
mkdir -p "$probe"
printf 'extern void *PyLong_FromLong(long);\nvoid *f(void) { return PyLong_FromLong(1); }\n' >"$probe/py.c"
gcc -shared -fPIC -o "$probe/libpy.so" "$probe/py.c"
if no_python "$probe/libpy.so" 2>/dev/null; then
  echo "FAIL: tests/platforms/no_python_imports.py passes a library importing PyLong_FromLong" >&2
  exit 1
fi
phase "no Python imports: the Linux libraries"
no_python "$target"/debug/lib*.so

# The abi-cli tool wheel of an `abi` executable (`abi tool-wheel`), checked: its platform
# tag matches the pattern given, and it holds the backend and the executable under the
# name given. abi tool-wheel itself refuses an arm64 macOS executable without a signature.
tool_wheel() { # executable tag-pattern name-inside
  local wheel
  wheel=$("$abi" tool-wheel "$1" -o "$target/tool-wheels" | sed 's/^wrote //')
  python3 - "$wheel" "$2" "$3" <<'PY'
import re, sys, zipfile
wheel, tag, inside = sys.argv[1:]
name = wheel.rsplit("/", 1)[-1]
if not re.fullmatch(rf"abi_cli-[0-9.]+-py3-none-{tag}\.whl", name):
    sys.exit(f"FAIL: {name} is not tagged {tag}")
names = set(zipfile.ZipFile(wheel).namelist())
missing = {"abi_cli/__init__.py", "abi_cli/build.py", inside} - names
if missing:
    sys.exit(f"FAIL: {name} lacks {sorted(missing)}")
print(f"{name}: the backend and {inside}")
PY
}

# macOS: everything built and linked with rust-lld and the .tbd stubs.
for triple in aarch64-apple-darwin x86_64-apple-darwin; do
  phase "$triple: the workspace, linked with rust-lld"
  cross_build "$triple" --quiet --workspace
  out=$target/$triple/debug
  no_python "$out"/lib*.dylib
  same_as_linux "$target/debug/libabi_objects_lib.so" "$out/libabi_objects_lib.dylib"
  same_as_linux "$target/debug/libiree_kit.so" "$out/libiree_kit.dylib"
  same_as_linux "$target/debug/libmathlib.so" "$out/libmathlib.dylib"
  # The abi-cli tool wheel of this `abi` (issue 53), as scripts/tool-wheels.sh packages it
  # (it builds `-p abi-cli` alone; here the workspace build's executable serves). It has
  # never run: only its tag, its contents and (arm64) its signature are checked.
  arch=${triple%%-*}
  tool_wheel "$out/abi" "macosx_[0-9]+_[0-9]+_${arch/aarch64/arm64}" abi_cli/bin/abi
done

# Windows MSVC: code generation only.
# abi-benches is left out: the call-cost benchmarks run under callgrind on Linux and load
# libtvm_ffi the unix way.
phase "x86_64-pc-windows-msvc: rlib code generation of every library, objects of the binaries"
msvc=(--quiet --target x86_64-pc-windows-msvc)
libs=$(cargo metadata --format-version 1 --no-deps | python3 -c '
import json, sys
for p in json.load(sys.stdin)["packages"]:
    if p["name"] != "abi-benches" and any(k in ("lib", "cdylib", "rlib") for t in p["targets"] for k in t["kind"]):
        print(p["name"])')
for package in $libs; do
  cargo rustc "${msvc[@]}" -p "$package" --lib --crate-type rlib
done
# rustc links whatever else --emit names: `true` stands in for link.exe, absent here, so the
# objects are all that comes out.
cargo rustc "${msvc[@]}" -p abi-cli --bin abi -- --emit=obj -Clinker=true
cargo rustc "${msvc[@]}" -p abi-examples --bin quickstart -- --emit=obj -Clinker=true

# Windows GNU: DLLs with the linker's defaults, tests under wine.
phase "x86_64-pc-windows-gnu: the test libraries as DLLs"
gnu=(--quiet --target x86_64-pc-windows-gnu)
cross_build x86_64-pc-windows-gnu --quiet -p abi-objects-lib -p iree-kit -p abi-mathlib -p abi-interop-lib -p signal-kit \
  -p running-stats -p tensor-kit -p abi-objects-twin -p abi-objects-conflict -p abi-trial-lib
dlls=$target/x86_64-pc-windows-gnu/debug
no_python "$dlls"/*.dll
same_as_linux "$target/debug/libabi_objects_lib.so" "$dlls/abi_objects_lib.dll"
same_as_linux "$target/debug/libiree_kit.so" "$dlls/iree_kit.dll"
same_as_linux "$target/debug/libmathlib.so" "$dlls/mathlib.dll"

phase "wine: a prefix, and ProcessPrng for Rust's std (Debian's Wine 8 lacks it)"
wine_dir=$target/wine
mkdir -p "$wine_dir"
x86_64-w64-mingw32-gcc -O2 -shared -o "$wine_dir/bcryptprimitives.dll" tests/platforms/windows/bcryptprimitives.c -ladvapi32
export WINEPREFIX=$wine_dir/prefix WINEDEBUG=-all WINEPATH="Z:${wine_dir//\//\\}"
[ -d "$WINEPREFIX" ] || wineboot -i >/dev/null 2>&1
export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER=wine

phase "wine: the abi-cli tool wheel's abi.exe (scripts/tool-wheels.sh, GNU toolchain)"
exe_wheel=$(scripts/tool-wheels.sh --debug -o "$target/tool-wheels" windows-x86_64)
tool_wheel "$target/x86_64-pc-windows-gnu/debug/abi.exe" win_amd64 abi_cli/bin/abi.exe
rm -rf "$wine_dir/tool" && python3 -m zipfile -e "$exe_wheel" "$wine_dir/tool"
version=$(wine "$wine_dir/tool/abi_cli/bin/abi.exe" --version | tr -d '\r')
[ "$version" = "abi $("$abi" --version | cut -d' ' -f2)" ] || { echo "FAIL: abi.exe --version said '$version'" >&2; exit 1; }
wine "$wine_dir/tool/abi_cli/bin/abi.exe" inspect --no-load --json "Z:${dlls//\//\\}\\mathlib.dll" | tr -d '\r' >"$wine_dir/inspect.json"
python3 - "$wine_dir/inspect.json" "$("$abi" inspect --no-load --json "$target/debug/libmathlib.so")" <<'PY'
import json, sys
windows, linux = json.load(open(sys.argv[1])), json.loads(sys.argv[2])
for d in (windows, linux):
    d.pop("library", None)
if windows != linux:
    sys.exit("FAIL: abi.exe inspect of mathlib.dll under wine differs from abi inspect of libmathlib.so")
print("abi.exe from the tool wheel, under wine: --version, and inspect of mathlib.dll equal to Linux's")
PY

phase "wine: abi-core's tests"
cargo test "${gnu[@]}" -p abi-core

phase "wine: the derive suites"
ABI_FIXTURE_DIR=$dlls cargo test "${gnu[@]}" -p abi-derive-tests \
  --test exports --test structs --test objects --test globals --test imports --test records_in_file

phase "done"
