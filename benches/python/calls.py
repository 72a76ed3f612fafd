"""Call costs seen from Python through the real tvm_ffi package, for instruction counting
under callgrind (scripts/bench.sh runs each case for two loop lengths in one process; the
difference cancels set-up): a free function taking an object, a method of that object, and a
field read, on `mylib.Counter` from fixtures/objects-lib (a release build); and the same
free function through the package `abi stubs` writes (a plain `def` taking keywords),
called positionally and by keyword, from the folder ABI_BENCH_PACKAGE_DIR names.

usage: calls.py --list | calls.py --all LIB SHORT LONG | calls.py LIB CASE ITERS
"""

import sys

# name, floor, budget (instructions per call are Python's own loop and call machinery
# plus ours; the ratios compare the three ways Python reaches the same value).
CASES = [
    ("py_free_fn", "py_free_fn", "-"),
    ("py_method", "py_free_fn", "ratio<=1.2"),
    ("py_field_get", "py_free_fn", "ratio<=1.0"),
    # What the package's wrapper adds to each call: a generated `def` costs about 340
    # instructions positionally and 630 with keywords on CPython 3.11.
    ("py_free_fn_pkg", "py_free_fn", "over<=400"),
    ("py_free_fn_kw", "py_free_fn", "over<=700"),
    # A struct result (two fields): a tvm_ffi.Array from the library's function, a named
    # tuple through the package's wrapper, which reads each field with one
    # `ffi.ArrayGetItem` call (iterating the Array costs several calls per item).
    ("py_struct_result", "py_free_fn", "-"),
    ("py_struct_result_pkg", "py_struct_result", "over<=7500"),
]


def prepare(lib, case):
    import tvm_ffi

    mod = tvm_ffi.load_module(lib)
    c = mod.make_counter("bench")
    free_fn, method = mod.counter_value, c.value
    assert free_fn(c) == method() == c.start == 0
    if case == "py_free_fn":

        def loop(iters, free_fn=free_fn, c=c):
            for _ in range(iters):
                free_fn(c)

    elif case == "py_method":

        def loop(iters, c=c):
            for _ in range(iters):
                c.value()

    elif case == "py_field_get":

        def loop(iters, c=c):
            for _ in range(iters):
                c.start

    elif case == "py_struct_result":
        read = mod.read_counter

        def loop(iters, c=c, read=read):
            for _ in range(iters):
                read(c)

    elif case in ("py_free_fn_pkg", "py_free_fn_kw", "py_struct_result_pkg"):
        import os

        if os.environ["ABI_BENCH_PACKAGE_DIR"] not in sys.path:
            sys.path.insert(0, os.environ["ABI_BENCH_PACKAGE_DIR"])
        import counters_pkg

        wrapped = counters_pkg.counter_value
        assert wrapped(c) == wrapped(c=c) == 0
        if case == "py_struct_result_pkg":
            read = counters_pkg.read_counter
            assert read(c).value == 0

            def loop(iters, c=c, read=read):
                for _ in range(iters):
                    read(c)

        elif case == "py_free_fn_pkg":

            def loop(iters, c=c, wrapped=wrapped):
                for _ in range(iters):
                    wrapped(c)

        else:

            def loop(iters, c=c, wrapped=wrapped):
                for _ in range(iters):
                    wrapped(c=c)

    else:
        sys.exit(f"unknown case {case}; try --list")
    return loop


if __name__ == "__main__":
    from cases import main

    main(sys.argv[1:], CASES, prepare, __doc__)
