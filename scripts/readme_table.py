"""A generated Markdown table kept between `<!-- NAME:begin -->` and `<!-- NAME:end -->` in a
file: read the rows it shows, or replace it. Used by scripts/bench.sh and
scripts/bench-iree.sh for their tables in benches/README.md; `calls_report` is
scripts/bench.sh's table itself (run as `readme_table.py calls ...`), `gpu_report` the GPU
check's (run as `readme_table.py gpu REPORT [--write]` by scripts/gpu-check.sh)."""

import pathlib
import sys


def _split(path, name):
    text = pathlib.Path(path).read_text()
    begin, end = f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
    if begin not in text or end not in text:
        sys.exit(f"{path} has no {begin} ... {end} section")
    head, rest = text.split(begin, 1)
    shown, tail = rest.split(end, 1)
    return head + begin, shown, end + tail


def rows(lines, cells):
    """The data rows of table `lines` with `cells` columns, by their first cell."""
    out = {}
    for line in lines:
        row = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(row) == cells and not set(row[0]) <= set("-") and row[0] != "case":
            out[row[0]] = row
    return out


def lines(path, name):
    """The lines the section `name` of `path` holds now."""
    return _split(path, name)[1].strip().splitlines()


def shown(path, name, cells):
    """The rows the section `name` of `path` shows now."""
    return rows(lines(path, name), cells)


def rewrite(path, name, table):
    """Replaces the section's table with `table` (its lines)."""
    head, _, tail = _split(path, name)
    pathlib.Path(path).write_text(f"{head}\n" + "\n".join(table) + f"\n{tail}")

def calls_report(tsv, calls, quick, check, write, target):
    """scripts/bench.sh's report: the call-cost table from its instruction counts (`tsv`:
    case, floor, budget, instructions over `calls` calls) with criterion's ns/call unless
    `quick`; with `check`, every budget checked and benches/README.md's `bench-check` table
    compared with this run (or rewritten, with `write`). Returns the exit status."""
    import json

    measured = [l.split("\t") for l in pathlib.Path(tsv).read_text().splitlines()]
    ins = {name: int(diff) / calls for name, _, _, diff in measured}

    def ns(name):
        group, _, world = name.partition("@")
        p = pathlib.Path(target) / ("criterion/calls" + ("_" + world.replace("-", "_") if world else "")) / group / "new/estimates.json"
        return None if quick or not p.exists() else json.loads(p.read_text())["mean"]["point_estimate"]

    if not check:
        print(f"{'case':<22} {'instr/call':>10} {'ns/call':>8}  {'floor':<18} {'instr ratio':>11} {'ns ratio':>8}")
        for name, floor, _, _ in measured:
            t, ft = ns(name), ns(floor)
            tr = f"{t / ft:8.2f}" if t and ft else f"{'-':>8}"
            ts = f"{t:8.2f}" if t else f"{'-':>8}"
            print(f"{name:<22} {ins[name]:10.1f} {ts}  {floor:<18} {ins[name] / ins[floor]:11.2f} {tr}")
        return 0

    def verdict(name, floor, budget):
        """`ratio<=R` (to the floor), `over<=N` (instructions above the floor's), `instr<=N`."""
        if budget == "-":
            return ""
        kind, limit = budget.split("<=")
        value = {"ratio": ins[name] / ins[floor], "over": ins[name] - ins[floor]}.get(kind, ins[name])
        return "met" if value <= float(limit) else "MISSED"

    table = ["| case | instr/call | floor | ratio | budget | met |", "|---|---:|---|---:|---|---|"]
    missed = []
    for name, floor, budget, _ in measured:
        v = verdict(name, floor, budget)
        if v == "MISSED":
            missed.append(name)
        table.append(f"| {name} | {ins[name]:.1f} | {floor} | {ins[name] / ins[floor]:.2f} | {budget} | {v} |")
    print("\n".join(table))

    stale = []
    if write:
        rewrite("benches/README.md", "bench-check", table)
        print("benches/README.md: table rewritten from this run")
    else:
        # The README must show this run's table: same cases, floors, budgets and verdicts, and
        # instruction counts within 2% (or 1 instruction) of this run's.
        ours, theirs = rows(table, 6), shown("benches/README.md", "bench-check", 6)
        stale = sorted(set(ours) ^ set(theirs))
        for name in set(ours) & set(theirs):
            a, b = ours[name], theirs[name]
            if (a[2], a[4], a[5]) != (b[2], b[4], b[5]) or abs(float(a[1]) - float(b[1])) > max(1.0, 0.02 * float(a[1])):
                stale.append(name)
        if stale:
            print(f"FAIL: benches/README.md is stale for {', '.join(sorted(stale))}: run scripts/bench.sh --check --write-readme", file=sys.stderr)
    if missed:
        print(f"FAIL: budget missed: {', '.join(missed)}", file=sys.stderr)
    if missed or (not write and stale):
        return 1
    print(f"bench check: every budget met ({sum(1 for r in measured if r[2] != '-')} budgets, {len(measured)} cases)")
    return 0


def gpu_table(report):
    """benches/README.md's `gpu-check` section from a report of scripts/gpu-check.sh: the
    machine, then one row per check, then the per-call costs next to torch's."""
    import json

    r = json.loads(pathlib.Path(report).read_text())
    checks = r["checks"]
    env = checks["env"]["figures"]
    lines = [
        f"Library {r.get('built', 'built at an unrecorded commit')}; ran on {r['gpu']} (compute capability "
        f"{env.get('capability')}, CUDA {env.get('driver_cuda')} driver), {r['ldd']}, Python "
        f"{env.get('python')}, torch {env.get('torch')}, tvm_ffi {env.get('tvm_ffi')}, JAX "
        f"{env.get('jax')}, jax-tvm-ffi {env.get('jax_tvm_ffi')}, CuPy {env.get('cupy')}. "
        f"{r['counts']['ok']} ok, {r['counts']['fail']} failed, {r['counts']['skip']} skipped, "
        f"{r['counts']['err']} errors.",
        "",
        "| check | status | what it showed |",
        "|---|---|---|",
    ]
    lines += [f"| {name} | {c['status']} | {c['message'].replace('|', '/')} |" for name, c in checks.items()]
    cost = checks.get("cost", {}).get("figures", {})
    pairs = [("ck.add(x, y)", "add_us", "torch.add(x, y)", "torch_add_us"),
             ("ck.add_into(x, y, out)", "add_into_us", "torch.add(x, y, out=out)", "torch_add_out_us"),
             ("ck.sum(x)", "sum_us", "torch.sum(x)", "torch_sum_us")]
    if all(k in cost and t in cost for _, k, _, t in pairs):
        lines += ["", "| call (1024 float32 on the GPU) | µs/call | torch's own op | µs/call | ratio |", "|---|---:|---|---:|---:|"]
        lines += [f"| `{a}` | {cost[k]} | `{b}` | {cost[t]} | {cost[k] / cost[t]:.2f} |" for a, k, b, t in pairs]
    return lines


def gpu_report(report, write):
    """Rewrites (with `write`) or checks benches/README.md's `gpu-check` section against
    `report`. Returns the exit status."""
    table = gpu_table(report)
    if write:
        rewrite("benches/README.md", "gpu-check", table)
        print("benches/README.md: gpu-check section rewritten")
        return 0
    shown_now = _split("benches/README.md", "gpu-check")[1].strip().splitlines()
    if shown_now != table:
        print(f"FAIL: benches/README.md's gpu-check section is not what {report} gives: run scripts/gpu-check.sh --record {report}", file=sys.stderr)
        return 1
    print(f"benches/README.md's gpu-check section matches {report}")
    return 0


if __name__ == "__main__":
    if len(sys.argv) in (3, 4) and sys.argv[1] == "gpu" and sys.argv[3:] in ([], ["--write"]):
        sys.exit(gpu_report(sys.argv[2], sys.argv[3:] == ["--write"]))
    if len(sys.argv) == 8 and sys.argv[1] == "calls":
        tsv, calls, quick, check, write, target = sys.argv[2:]
        sys.exit(calls_report(tsv, int(calls), quick == "1", check == "1", write == "1", target))
    sys.exit("usage: readme_table.py calls TSV CALLS QUICK CHECK WRITE TARGET | gpu REPORT [--write]")
