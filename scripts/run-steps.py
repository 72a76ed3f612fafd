"""Runs the test command's steps (scripts/test-steps.toml) and prints their time table.

Each step is a bash command with a name, a time budget, the steps it comes after, and the
cores it keeps busy (1: an interpreter or emulator, valgrind, Miri, qemu, wine, one Python
process; 2: cargo building, which uses every core). Steps start in the plan's order as
soon as what they come after has passed and their cores are free: the slots are the
machine's cores plus one (ABI_TEST_SLOTS overrides), so a one-core step runs beside a
build, two one-core steps beside each other, and two builds never at once (they would
only share the cores and wait on cargo's lock). A step waiting for cores holds back the
steps listed after it, so the plan's order is the order of priority: a build is not kept
waiting by one-core steps listed after it, each taking a core as it frees.

A running step's output goes to its own log (under $ABI_TARGET_DIR/test-logs); each log
is printed whole when its step ends, so outputs never interleave. The first step that
fails stops the run: the others are stopped, its log is printed, its last lines again after
the table with a FAIL line naming it, and the exit status is 1. The table at the end gives each step's start, time
and budget, marks the steps over their budget, and warns when the whole run took over 60
minutes: warnings only, since these machines are noisy (docs: CONTRIBUTING.md).

Usage: run-steps.py PLAN [--quick] [--list] | run-steps.py PLAN (--doc | --write-doc) FILE
  --quick      only the steps marked `quick` (the inner loop's tier), each after the quick
               steps it names
  --list       prints the steps, their budgets and what they come after, and runs nothing
  --doc FILE   checks that FILE's `steps` table (between `<!-- steps:begin -->` and
               `<!-- steps:end -->`) is the plan's; --write-doc FILE writes it
"""

import os
import re
import shutil
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WHOLE_RUN_WARNING_S = 60 * 60


class Step:
    def __init__(self, raw, index):
        unknown = set(raw) - {"name", "run", "budget", "cores", "after", "quick"}
        if unknown:
            sys.exit(f"run-steps: step {raw.get('name', index)!r} has unknown keys {sorted(unknown)}")
        self.name = raw["name"]
        self.run = raw["run"]
        self.budget = int(raw["budget"])
        self.cores = int(raw.get("cores", 2))
        self.after = list(raw.get("after", []))
        self.quick = bool(raw.get("quick", False))
        self.index = index
        self.started = self.seconds = self.cpu = None
        self.process = self.log = None

    @property
    def slug(self):
        return re.sub(r"[^a-z0-9]+", "-", self.name.lower()).strip("-")


def load_plan(path, quick):
    with open(path, "rb") as f:
        steps = [Step(raw, i) for i, raw in enumerate(tomllib.load(f)["step"])]
    names = [s.name for s in steps]
    if len(set(names)) != len(names):
        sys.exit(f"run-steps: {path} names a step twice")
    by_name = {s.name: s for s in steps}
    for s in steps:
        for dep in s.after:
            if dep not in by_name:
                sys.exit(f"run-steps: step {s.name!r} comes after {dep!r}, which is not a step")
            if by_name[dep].index >= s.index:
                sys.exit(f"run-steps: step {s.name!r} comes after {dep!r}, listed later: list steps in an order they can run")
        if s.cores not in (1, 2):
            sys.exit(f"run-steps: step {s.name!r}: cores must be 1 or 2")
    if not quick:
        return steps
    # The quick tier: its steps, each after the quick steps it names.
    chosen = [s for s in steps if s.quick]
    for s in chosen:
        s.after = [d for d in s.after if by_name[d].quick]
    return chosen


# How many lines of a failed step's log the run prints again at its end.
FAILED_TAIL_LINES = 60


def print_log(step):
    step.log.flush()
    with open(step.log.name, errors="replace") as f:
        shutil.copyfileobj(f, sys.stdout)


def stop(process):
    """Stops a step and everything it started (each step is a process group)."""
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=10)
    except ProcessLookupError:
        return
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def cpu_seconds():
    """Seconds all cores spent busy since boot (Linux's /proc/stat), or None elsewhere."""
    try:
        fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    except OSError:
        return None
    ticks = [int(f) for f in fields]
    # user nice system idle iowait irq softirq steal: busy is all but idle and iowait.
    return (sum(ticks[:8]) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")


def free_gib(path):
    """Free space where the build outputs go, in GiB: a run that fills the disk fails in
    whatever step writes next, so the table says how much there was."""
    try:
        return shutil.disk_usage(path).free / 2**30
    except OSError:
        return None


def table(steps, began, failed, busy_at_start, free_at_start, target):
    wall = time.monotonic() - began
    print("\nstep times (start, seconds, budget, CPU seconds):")
    over = []
    for s in steps:
        if s.seconds is None:
            state = "stopped" if s.started is not None else "not run"
            print(f"  {'':>6}  {'':>6}  {s.budget:6d}  {'':>6}  {s.name} ({state})")
            continue
        mark = ""
        if s.seconds > s.budget:
            mark = "  OVER BUDGET"
            over.append(s.name)
        print(f"  {s.started:6.0f}  {s.seconds:6.0f}  {s.budget:6d}  {s.cpu:6.0f}  {s.name}{mark}")
    ran = [s for s in steps if s.seconds is not None]
    busy = cpu_seconds()
    cores = f", {(busy - busy_at_start) / wall:.2f} of {os.cpu_count()} cores busy" if busy is not None and busy_at_start is not None else ""
    print(f"  {wall:6.0f} s  total wall time ({sum(s.seconds for s in ran):.0f} s of steps, "
          f"budgets {sum(s.budget for s in steps)} s{cores})")
    free_now = free_gib(target)
    if free_at_start is not None and free_now is not None:
        print(f"  disk where the build outputs go: {free_at_start:.1f} GiB free at the start, {free_now:.1f} GiB at the end")
    if over:
        print(f"WARNING: over budget (not a failure; these machines are noisy): {', '.join(over)}")
    if wall > WHOLE_RUN_WARNING_S and not failed:
        print(f"WARNING: the whole run took {wall / 60:.0f} minutes, over {WHOLE_RUN_WARNING_S // 60} (not a failure)")


def doc_table(steps):
    """The plan as the Markdown table CONTRIBUTING.md shows."""
    rows = ["| step | budget (s) | cores | after | quick |", "|---|---:|---:|---|---|"]
    for s in steps:
        rows.append(f"| {s.name} | {s.budget} | {s.cores} | {', '.join(s.after) or '-'} | {'yes' if s.quick else ''} |")
    rows.append(f"| (the budgets' sum; steps overlap) | {sum(s.budget for s in steps)} | | | |")
    return rows


def doc(plan, path, write):
    """Checks (or, with `write`, rewrites) the `steps` table of `path`."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import readme_table

    table = doc_table(load_plan(plan, False))
    if write:
        readme_table.rewrite(path, "steps", table)
        print(f"{path}: the steps table rewritten from {plan}")
        return 0
    shown = readme_table._split(path, "steps")[1].strip().splitlines()
    if shown != table:
        print(f"error: {path}'s steps table is not {plan}'s: run scripts/run-steps.py {plan} --write-doc {path}", file=sys.stderr)
        return 1
    return 0


def main(argv):
    if len(argv) == 3 and argv[1] in ("--doc", "--write-doc"):
        return doc(argv[0], argv[2], argv[1] == "--write-doc")
    args = [a for a in argv if not a.startswith("--")]
    flags = {a for a in argv if a.startswith("--")}
    if len(args) != 1 or flags - {"--quick", "--list"}:
        sys.exit(
            "usage: run-steps.py PLAN [--quick] [--list] | run-steps.py PLAN (--doc | --write-doc) FILE\n"
            "  PLAN: the steps, scripts/test-steps.toml (scripts/test.sh runs it so; run that instead)"
        )
    if not Path(args[0]).is_file():
        sys.exit(f"run-steps: no plan at {args[0]} (the plan is scripts/test-steps.toml)")
    steps = load_plan(args[0], "--quick" in flags)
    if "--list" in flags:
        for s in steps:
            after = f" (after {', '.join(s.after)})" if s.after else ""
            print(f"{s.budget:6d} s  {s.cores} core{'s' if s.cores > 1 else ' '}  {s.name}{after}")
        print(f"{sum(s.budget for s in steps):6d} s  the budgets' sum; the run takes less, steps overlapping")
        return 0

    target = os.environ.get("ABI_TARGET_DIR")
    if not target:
        sys.exit("run-steps: ABI_TARGET_DIR is not set (scripts/test.sh sets it)")
    logs = Path(target) / "test-logs"
    shutil.rmtree(logs, ignore_errors=True)
    logs.mkdir(parents=True)
    slots = int(os.environ.get("ABI_TEST_SLOTS") or (os.cpu_count() or 2) + 1)
    pending, running, passed = list(steps), [], set()
    began, busy_at_start, free_at_start = time.monotonic(), cpu_seconds(), free_gib(target)
    failed = None

    def start_ready():
        free = slots - sum(s.cores for s in running)
        for s in list(pending):
            if not all(d in passed for d in s.after):
                continue
            if min(s.cores, slots) > free:
                # In the plan's order: a step waiting for cores holds back the ones listed
                # after it, which would otherwise take each core it waits for as it frees.
                break
            pending.remove(s)
            s.log = open(logs / f"{s.slug}.log", "w")
            s.started = time.monotonic() - began
            print(f"\n==> {s.name}  (started at {s.started:.0f} s)", flush=True)
            s.process = subprocess.Popen(
                ["bash", "-c", "set -euo pipefail\n" + s.run], cwd=ROOT, stdin=subprocess.DEVNULL,
                stdout=s.log, stderr=subprocess.STDOUT, start_new_session=True,
            )
            running.append(s)
            free -= min(s.cores, slots)

    try:
        start_ready()
        while running:
            pid, status, usage = os.wait4(-1, 0)
            step = next((s for s in running if s.process.pid == pid), None)
            if step is None:
                continue
            step.process.returncode = os.waitstatus_to_exitcode(status)
            step.seconds = time.monotonic() - began - step.started
            # The step's processes and every one they waited for.
            step.cpu = usage.ru_utime + usage.ru_stime
            running.remove(step)
            print(f"\n--- {step.name}: output ({step.log.name})", flush=True)
            print_log(step)
            if step.process.returncode != 0:
                failed = step
                break
            passed.add(step.name)
            print(f"    ({step.name}: {step.seconds:.0f} s, budget {step.budget} s)", flush=True)
            start_ready()
            if not running and pending:
                failed = pending[0]
                print(f"run-steps: nothing can start; {failed.name!r} waits on steps that did not pass")
                break
    except KeyboardInterrupt:
        for s in running:
            stop(s.process)
        print("\ninterrupted: every running step stopped")
        return 130
    for s in running:
        stop(s.process)
        s.seconds = None
    table(steps, began, failed, busy_at_start, free_at_start, target)
    if failed:
        code = failed.process.returncode if failed.process else "-"
        if failed.log:
            # Again after the table: a display that keeps only the run's last lines still
            # shows why it failed.
            with open(failed.log.name, errors="replace") as f:
                tail = f.read().splitlines()[-FAILED_TAIL_LINES:]
            print(f"\n--- {failed.name}: the last {len(tail)} lines of its log", flush=True)
            print("\n".join(tail), flush=True)
        print(f"\nFAIL: step {failed.name!r} (exit status {code}); its log is above and in "
              f"{logs / (failed.slug + '.log')}", flush=True)
        return 1
    print(f"\nall {len(steps)} steps passed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
