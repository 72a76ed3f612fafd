"""The command line every Python bench script shares:
- `SCRIPT --list` prints its cases (name, floor, budget) for scripts/bench.sh;
- `SCRIPT --all LIB SHORT LONG` runs every case in this one process, each once unmeasured,
  then for SHORT and for LONG iterations between the marks of the library ABI_BENCH_MARKS
  names (benches/marks.c: callgrind zeroes its counts in the first and writes them in
  the second), printing each case's name once it is done;
- `SCRIPT LIB CASE ITERS` runs one case once.
A script's `prepare(lib, case)` does a case's set-up and returns its loop, `loop(iters)`."""

import os
import sys


def main(argv, cases, prepare, usage):
    if argv == ["--list"]:
        for name, floor, budget in cases:
            print(name, floor, budget, "python")
        return
    if len(argv) == 4 and argv[0] == "--all":
        import ctypes

        marks = ctypes.CDLL(os.environ["ABI_BENCH_MARKS"])
        start, stop = marks.abi_bench_mark_start, marks.abi_bench_mark_stop
        lib, short, long = argv[1], int(argv[2]), int(argv[3])
        for name, _, _ in cases:
            loop = prepare(lib, name)
            loop(short)
            for iters in (short, long):
                start()
                loop(iters)
                stop()
            print(name, flush=True)
        return
    if len(argv) != 3:
        sys.exit(usage)
    prepare(argv[0], argv[1])(int(argv[2]))
