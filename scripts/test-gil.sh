#!/usr/bin/env bash
# Python threads with the GIL released (tests/python/test_gil_released.py: 8 threads
# calling one library's functions and methods on shared objects) once more with the
# library built with AddressSanitizer (nightly): Python loads it with the ASan runtime
# preloaded (a cdylib does not link one), PYTHONMALLOC=malloc so ASan sees Python's
# allocations, and leak detection off (Python keeps memory to the end by design). The
# plain run is part of the Python interop suite (scripts/test.sh). Then eight threads
# through the Python door (tests/python/door_threads.py) the same way.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
target=${ABI_TARGET_DIR:-$(scripts/target-dir.sh)}
triple=$(rustc -vV | sed -n 's/^host: //p')
[ -x .venv/bin/python ] || scripts/setup-venv.sh
# The flags and folder of scripts/test-asan.sh, which runs before: the runtime built there
# serves here.
RUSTFLAGS="-Zsanitizer=address -Clink-arg=-rdynamic" cargo +nightly build --quiet -p abi-objects-lib \
  -p abi-interop-lib --target "$triple" --target-dir "$target/asan"
runtime=$(gcc -print-file-name=libasan.so)
[ -e "$runtime" ] || { echo "FAIL: no ASan runtime (gcc -print-file-name=libasan.so: $runtime)" >&2; exit 1; }
# libstdc++ preloaded too: the runtime finds the real __cxa_throw when it starts, which it
# needs when libtvm_ffi throws (it aborts with "CHECK failed ... real___cxa_throw" otherwise).
cxx=$(gcc -print-file-name=libstdc++.so.6)
# conftest's `load` reads libraries from $ABI_TARGET_DIR/debug.
LD_PRELOAD="$runtime $cxx" PYTHONMALLOC=malloc ASAN_OPTIONS="detect_leaks=0:halt_on_error=1" \
  ABI_TARGET_DIR="$target/asan/$triple" .venv/bin/python -m pytest -q -p no:cacheprovider tests/python/test_gil_released.py
# The Python door (issue 51): eight threads through interop-lib's package, its library the
# ASan build (the package made by the `abi` of the libraries step).
door=$target/asan/door-package
rm -rf "$door"
"$target/debug/abi" stubs "$target/asan/$triple/debug/libabi_interop_lib.so" --package interop_lib -o "$door" >/dev/null
ln -s "$target/asan/$triple/debug/libabi_interop_lib.so" "$door/interop_lib/"
counted=$(LD_PRELOAD="$runtime $cxx" PYTHONMALLOC=malloc ASAN_OPTIONS="detect_leaks=0:halt_on_error=1" \
  PYTHONPATH="$door" .venv/bin/python tests/python/door_threads.py)
[ "$counted" = "16000 [] True" ] || { echo "FAIL: eight threads through the door under ASan: $counted" >&2; exit 1; }
echo "AddressSanitizer (Python threads): no errors"
