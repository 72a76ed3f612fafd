"""Python calling the same Rust bodies built two ways, for instruction counting under
callgrind (scripts/bench.sh runs each case for two loop lengths in one process; the
difference cancels set-up and first use): benches/peer/pyo3-peer, an abi3 extension module
on PyO3 and rust-numpy (imported as `pyo3_peer` from the folder ABI_BENCH_PYO3_DIR
names), against benches/peer/abi-peer, `#[abi_core::export_fn]` exports called through the
package `abi stubs` writes for it (`peer_pkg`, from the folder ABI_BENCH_PEER_PACKAGE_DIR
names). LIB is abi-peer's library (a release build), also loaded here with tvm_ffi for the
raw calls (`_raw` cases: the library's function without the package's wrapper).

usage: peer.py --list | peer.py --all LIB SHORT LONG | peer.py LIB CASE ITERS
       peer.py --targets ICOUNT_TSV [CALLS]  (each case's ratio to its floor, by its target)
"""

import os
import sys

# The tensor argument: 16 float32, so the bodies' own work is a small part of each call.
N = 16

# The budgets the package's calls (through the Python door) meet, as ratios to PyO3's
# instruction counts in the same run (the measured ratios: benches/README.md's py_peer_*
# rows). greet: the shim makes its String result a Python `str` itself for the door (no
# Str object between, docs/ABI.md section 13).
BUDGETS = {
    "py_peer_add": "ratio<=1.0",
    "py_peer_add_kw": "ratio<=1.0",
    "py_peer_total": "ratio<=1.0",
    "py_peer_total_ro": "ratio<=1.0",
    "py_peer_greet": "ratio<=1.2",
    "py_peer_plus_one": "ratio<=1.2",
    # The op through the door (its output allocated by numpy's C API).
    "py_peer_plus_one_op": "ratio<=1.2",
}
# name, floor, budget. Each function three ways: `_pyo3` (PyO3's module, the floor), the
# package's function (the budget), `_raw` (the library's function through tvm_ffi alone).
CASES = []
for _fn in ("add", "add_kw", "greet", "total", "total_ro", "plus_one", "plus_one_op"):
    _floor = f"py_peer_{_fn}_pyo3"
    CASES += [(_floor, _floor, "-"), (f"py_peer_{_fn}", _floor, BUDGETS.get(f"py_peer_{_fn}", "-"))]
    CASES.append((f"py_peer_{_fn}_raw", _floor, "-"))
del _fn, _floor


def _path(variable):
    folder = os.environ[variable]
    if folder not in sys.path:
        sys.path.insert(0, folder)


def prepare(lib, case):
    if case not in {name for name, _, _ in CASES}:
        sys.exit(f"unknown case {case}; try --list")
    import numpy as np
    import tvm_ffi

    _path("ABI_BENCH_PYO3_DIR")
    _path("ABI_BENCH_PEER_PACKAGE_DIR")
    import peer_pkg
    import pyo3_peer

    name = case.removeprefix("py_peer_")
    way = "pkg"
    for suffix in ("_pyo3", "_raw"):
        if name.endswith(suffix):
            name, way = name[: -len(suffix)], suffix[1:]
    raw = tvm_ffi.load_module(lib)
    x = np.arange(N, dtype=np.float32)
    ro = x.copy()
    ro.setflags(write=False)
    plus = x + 1
    empty, f32, from_dlpack = np.empty, np.float32, np.from_dlpack

    def versioned(a):
        # What a caller writes for a read-only array today: numpy refuses it the
        # unversioned DLPack capsule tvm_ffi asks for, and gives a versioned one.
        return tvm_ffi.from_dlpack(a.__dlpack__(max_version=(1, 0)))

    export = name.removesuffix("_ro")  # total_ro calls total
    if way == "raw":
        fn = raw[export]
    else:
        fn = getattr(pyo3_peer if way == "pyo3" else peer_pkg, export)

    if name == "add":
        assert fn(1, 2) == 3

        def loop(iters, fn=fn):
            for _ in range(iters):
                fn(1, 2)

    elif name == "add_kw" and way == "raw":
        # A tvm_ffi function takes no keywords: every argument by position.
        assert fn(1, 2, 1) == 4

        def loop(iters, fn=fn):
            for _ in range(iters):
                fn(1, 2, 1)

    elif name == "add_kw":
        assert fn(1, b=2) == 4

        def loop(iters, fn=fn):
            for _ in range(iters):
                fn(1, b=2)

    elif name == "greet":
        assert fn("world") == "hello, world"

        def loop(iters, fn=fn):
            for _ in range(iters):
                fn("world")

    elif name == "total":
        assert fn(x) == N * (N - 1) / 2

        def loop(iters, fn=fn, x=x):
            for _ in range(iters):
                fn(x)

    elif name == "total_ro" and way == "raw":
        # tvm_ffi asks numpy for the unversioned DLPack capsule, which numpy refuses a
        # read-only array: the caller's way round, a versioned one.
        assert fn(versioned(ro)) == N * (N - 1) / 2

        def loop(iters, fn=fn, ro=ro, versioned=versioned):
            for _ in range(iters):
                fn(versioned(ro))

    elif name == "total_ro":
        assert fn(ro) == N * (N - 1) / 2

        def loop(iters, fn=fn, ro=ro):
            for _ in range(iters):
                fn(ro)

    elif name == "plus_one":
        # numpy in, numpy out (the raw tvm_ffi function gives a tvm_ffi.Tensor).
        result = fn(x)
        assert (way == "raw" or type(result) is np.ndarray) and (from_dlpack(result) == plus).all()

        def loop(iters, fn=fn, x=x):
            for _ in range(iters):
                fn(x)

    elif name == "plus_one_op" and way == "raw":
        # The functional call's floor in benches/python/ops.py: `np.empty` for the output,
        # then the destination-passing export.
        y = empty(x.shape, f32)
        fn(x, y)
        assert (y == plus).all()

        def loop(iters, fn=fn, x=x, empty=empty, f32=f32):
            for _ in range(iters):
                y = empty(x.shape, f32)
                fn(x, y)

    elif name == "plus_one_op":
        result = fn(x)
        assert type(result) is np.ndarray and (result == plus).all()

        def loop(iters, fn=fn, x=x):
            for _ in range(iters):
                fn(x)

    else:
        sys.exit(f"unknown case {case}; try --list")
    return loop


def targets(tsv, calls):
    """Each measured peer case's ratio to its floor (from scripts/bench.sh's icount.tsv:
    case, floor, budget, instructions over `calls` calls), with its target and whether it
    meets it."""
    counts = {}
    for line in open(tsv).read().splitlines():
        case, floor, _, diff = line.split("\t")
        counts[case] = (floor, int(diff))
    print(f"{'case':<26} {'instr/call':>10} {'floor':<26} {'ratio':>6}  target")
    for case, floor, _ in CASES:
        if case not in counts or floor not in counts:
            continue
        ratio = counts[case][1] / counts[floor][1]
        target = BUDGETS.get(case, "-")
        met = "" if target == "-" else ("met" if ratio <= float(target.split("<=")[1]) else "MISSED")
        print(f"{case:<26} {counts[case][1] / calls:10.1f} {floor:<26} {ratio:6.2f}  {target} {met}".rstrip())


if __name__ == "__main__":
    if len(sys.argv) in (3, 4) and sys.argv[1] == "--targets":
        targets(sys.argv[2], int(sys.argv[3]) if len(sys.argv) == 4 else 10000)
        sys.exit(0)
    from cases import main

    main(sys.argv[1:], CASES, prepare, __doc__)
