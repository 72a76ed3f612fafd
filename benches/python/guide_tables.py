"""The door-cost tables of docs/guide/python.md ("The Python door: what a call from Python
costs, and why"), made from benches/README.md's checked tables and nothing else: the
`py_peer_*` rows of its `bench-check` table (instructions per call, ratios to PyO3's,
budgets) as `door-costs`, and its `torch-timings` block copied as `door-torch`.
scripts/bench.sh --check runs this after checking the README (and --write-readme with
--write), and tests/python/test_docs.py checks the guide against the README too, so the
guide's numbers are the README's.

usage: guide_tables.py [--write]   (without --write: exit 1 when the guide differs)
"""

import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import readme_table  # noqa: E402

README, GUIDE = ROOT / "benches/README.md", ROOT / "docs/guide/python.md"
# peer.py's functions, in its order, as the guide names the call.
CALLS = [
    ("add", "`add(1, 2)`"),
    ("add_kw", "`add_kw(1, b=2)`"),
    ("greet", '`greet("world")`, a 12-byte `String` result'),
    ("total", "`total(x)`, 16 f32 from numpy"),
    ("total_ro", "the same, `x` read-only"),
    ("plus_one", "`plus_one(x)`, a new 16-element numpy array"),
    ("plus_one_op", "`plus_one_op(x)`, the same as a functional op (its output allocated by the door)"),
]


def blocks():
    """The guide's sections as they should read: name -> lines."""
    shown = readme_table.shown(README, "bench-check", 6)  # case -> [case, instr, floor, ratio, budget, met]
    costs = ["| call | PyO3 | door | door / PyO3 | `tvm_ffi` | `tvm_ffi` / PyO3 | budget: door / PyO3 |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for fn, call in CALLS:
        pyo3, door, raw = (shown[f"py_peer_{fn}{suffix}"] for suffix in ("_pyo3", "", "_raw"))
        costs.append(f"| {call} | {float(pyo3[1]):,.0f} | {float(door[1]):,.0f} | {door[3]} "
                     f"| {float(raw[1]):,.0f} | {raw[3]} | {door[4].removeprefix('ratio<=')} |")
    text = README.read_text()
    start, end = "<!-- torch-timings:start -->\n", "<!-- torch-timings:end -->"
    torch = text.split(start, 1)[1].split(end, 1)[0].strip().splitlines()
    return {"door-costs": costs, "door-torch": torch}


def stale():
    """The names of the guide's sections that differ from blocks()."""
    return [name for name, lines in blocks().items() if readme_table.lines(GUIDE, name) != lines]


def main(args):
    if args == ["--write"]:
        for name, lines in blocks().items():
            readme_table.rewrite(GUIDE, name, lines)
        print("docs/guide/python.md: door-costs and door-torch rewritten from benches/README.md")
        return 0
    if args:
        sys.exit(__doc__)
    if stale():
        print(f"FAIL: docs/guide/python.md's {', '.join(stale())} differ from benches/README.md's tables: "
              "run python3 benches/python/guide_tables.py --write", file=sys.stderr)
        return 1
    print("ok: docs/guide/python.md's door-cost tables are benches/README.md's")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
