"""Torch calls timed, for benches/README.md's "Torch through the package" table: timeit
medians in one run, reported and not budgeted (PyO3 has no torch tensor to compare with,
and wall time on a loaded machine varies between runs; the ratios within one run are what
the table says). The library is benches/peer/abi-peer, through the package `abi stubs`
writes for it (`peer_pkg`).

usage: torch_timings.py PEER_PACKAGE_DIR   (prints the table's rows, markdown)
       torch_timings.py --cases            (prints the first column only)
"""

import sys
import timeit

# (row, statement, what the ratio column compares it with): `pkg` is the package, `x` a
# 16-element float32 CPU tensor, `a` the same as a numpy array.
CASES = [
    ("`pkg.total(x)`, a plain export taking a torch CPU tensor (the door)", "pkg.total(x)", "tvm"),
    ("the same through tvm_ffi (the package's route before the door)", "pkg.total.__wrapped__(x)", "tvm"),
    ("the library's `tvm_ffi` function itself", "raw_total(x)", "tvm"),
    ("`pkg.plus_one(x)`, a torch tensor result (the door)", "pkg.plus_one(x)", "plus"),
    ("the same through tvm_ffi", "pkg.plus_one.__wrapped__(x)", "plus"),
    ("`pkg.plus_one_op(x)`, a functional op on torch (the door)", "pkg.plus_one_op(x)", "torch"),
    ("`pkg.torch.plus_one_op(x)`, the torch custom op", "pkg.torch.plus_one_op(x)", "torch"),
    ("`pkg.plus_one_op(a)`, the op on numpy (the door)", "pkg.plus_one_op(a)", "torch"),
    ("`x + 1`, torch's own op doing the same work", "x + 1", "torch"),
]
# What each ratio is to: the tvm_ffi function, the tvm_ffi route of plus_one, torch's op.
BASES = {"tvm": "raw_total(x)", "plus": "pkg.plus_one.__wrapped__(x)", "torch": "x + 1"}


def median_ns(statement, env, number=2000, repeat=7):
    times = timeit.repeat(statement, globals=env, number=number, repeat=repeat)
    return sorted(times)[len(times) // 2] / number * 1e9


def main():
    if sys.argv[1:] == ["--cases"]:
        for row, _, _ in CASES:
            print(row)
        return
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.path.insert(0, sys.argv[1])
    import numpy as np
    import torch

    import peer_pkg as pkg

    torch.set_num_threads(1)
    env = {
        "pkg": pkg,
        "x": torch.arange(16, dtype=torch.float32),
        "a": np.arange(16, dtype=np.float32),
        "raw_total": pkg._lib["total"],
    }
    pkg.torch.plus_one_op(env["x"])  # defines the custom op before timing it
    measured = {statement: median_ns(statement, env) for _, statement, _ in CASES}
    print(f"torch {torch.__version__}, numpy {np.__version__}, one thread\n")
    print("| call | ns/call (median) | ratio | to |")
    print("|---|---:|---:|---|")
    for row, statement, base in CASES:
        to = BASES[base]
        print(f"| {row} | {measured[statement]:,.0f} | {measured[statement] / measured[to]:.2f} | `{to}` |")


if __name__ == "__main__":
    main()
