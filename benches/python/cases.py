"""The command line every Python bench script shares: `SCRIPT --list` prints its cases (name,
floor, budget) for scripts/bench.sh, `SCRIPT LIB CASE ITERS` runs one case."""

import sys


def main(argv, cases, run, usage):
    if argv == ["--list"]:
        for name, floor, budget in cases:
            print(name, floor, budget, "python")
        return
    if len(argv) != 3:
        sys.exit(usage)
    run(argv[0], argv[1], int(argv[2]))
