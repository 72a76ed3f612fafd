"""The cost of an op's functional call from numpy (issue 40), for instruction counting under
callgrind (scripts/bench.sh runs each case for two loop lengths in one process; the
difference cancels set-up and first use): `ops_pkg.scale_rows(x, k)` from the package `abi stubs`
writes for examples/op-kit, which allocates the output `y` by its rule (`out = x`) and
returns it, against its floor, `np.empty` for the output plus the raw destination-passing
call `scale_rows(x, k, y)` through tvm_ffi. The package is imported from the folder
ABI_BENCH_OPS_PACKAGE_DIR names; LIB is op-kit's library (a release build), loaded here
with tvm_ffi for the raw call.

usage: ops.py --list | ops.py --all LIB SHORT LONG | ops.py LIB CASE ITERS
"""

import sys

# The op measured and its arguments: a small float64 matrix, so the kernel's own work
# (32 multiplications) is a small part of every case and the ratios show the call's cost.
OP, ROWS, COLS = "scale_rows", 4, 8

# name, floor, budget.
CASES = [
    # The raw destination-passing call, its output allocated before the loop.
    ("py_op_dps", "py_op_dps", "-"),
    # The functional call's floor: `np.empty` for the output, then the raw call.
    ("py_op_floor", "py_op_dps", "-"),
    # The package's functional call, numpy in, numpy out, through the fast path: measured
    # 1.29 times its floor (1.26 before the second tensor was checked to be a numpy array
    # too, so a list there takes the general path), budget 1.35.
    ("py_op_pkg", "py_op_floor", "ratio<=1.35"),
    # The package's call into a given output (`y=buf`), the general path, against the raw
    # call: measured 2.09, budget 2.15.
    ("py_op_pkg_out", "py_op_dps", "ratio<=2.15"),
    # `hand_scale_rows` below, what a wrapper written for this one op costs: 1.06.
    ("py_op_hand", "py_op_floor", "-"),
]


def hand_wrapper(np, raw):
    """A wrapper written by hand for this one op, doing for numpy what the package's does:
    output allocated by its rule (`like x`), read-only inputs passed as versioned DLPack
    (tried only when the plain call refuses them, before the kernel runs), a read-only
    output refused. The reference for what the package's generic wrapper adds."""
    import tvm_ffi

    ndarray, empty, f64 = np.ndarray, np.empty, np.dtype("float64")

    def readable(a):
        if isinstance(a, ndarray) and not a.flags.writeable:
            return tvm_ffi.from_dlpack(a.__dlpack__(max_version=(1, 0)))
        return a

    def hand_scale_rows(x, k, *, y=None):
        if type(x) is not ndarray:
            raise TypeError("hand_scale_rows takes numpy arrays")
        if y is None:
            y = empty(x.shape, f64)
        try:
            raw(x, k, y)
        except BufferError:
            if not y.flags.writeable:
                raise ValueError("hand_scale_rows: `y` is read-only") from None
            raw(readable(x), readable(k), y)
        return y

    return hand_scale_rows


def prepare(lib, case):
    import os

    import numpy as np
    import tvm_ffi

    raw = tvm_ffi.load_module(lib)[OP]
    if os.environ["ABI_BENCH_OPS_PACKAGE_DIR"] not in sys.path:
        sys.path.insert(0, os.environ["ABI_BENCH_OPS_PACKAGE_DIR"])
    import ops_pkg

    op = getattr(ops_pkg, OP)
    x = np.arange(ROWS * COLS, dtype=np.float64).reshape(ROWS, COLS)
    k = np.linspace(0.5, 2.0, COLS, dtype=np.float64)
    want = x * k
    buf = np.empty_like(x)
    # Every path computes the same thing (and has run once before the loop).
    raw(x, k, buf)
    assert (buf == want).all()
    assert (op(x, k) == want).all()
    buf[:] = 0
    assert op(x, k, y=buf) is buf and (buf == want).all()
    hand = hand_wrapper(np, raw)
    assert (hand(x, k) == want).all()
    if case == "py_op_dps":

        def loop(iters, raw=raw, x=x, k=k, buf=buf):
            for _ in range(iters):
                raw(x, k, buf)

    elif case == "py_op_floor":
        empty, f64 = np.empty, np.float64

        def loop(iters, raw=raw, x=x, k=k, empty=empty, f64=f64):
            for _ in range(iters):
                y = empty(x.shape, f64)
                raw(x, k, y)

    elif case == "py_op_pkg":

        def loop(iters, x=x, k=k, op=op):
            for _ in range(iters):
                op(x, k)

    elif case == "py_op_pkg_out":

        def loop(iters, x=x, k=k, buf=buf, op=op):
            for _ in range(iters):
                op(x, k, y=buf)

    elif case == "py_op_hand":

        def loop(iters, x=x, k=k, hand=hand):
            for _ in range(iters):
                hand(x, k)

    else:
        sys.exit(f"unknown case {case}; try --list")
    return loop


if __name__ == "__main__":
    from cases import main

    main(sys.argv[1:], CASES, prepare, __doc__)
