"""The iree-kit example as an IREE VM dynamic module: programs compiled by iree-compile
call every function through iree-run-module (results, error statuses with their messages,
many calls in one run, both message modes, a wrong import refused), and valgrind watches
one run. Run by scripts/test-iree.sh, which installs the pinned IREE tools into .venv."""

import os
import pathlib
import shutil
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
BIN = pathlib.Path(sys.executable).parent
# Where cargo puts build outputs: the interop suite's helper (ABI_TARGET_DIR, else cargo's).
sys.path.insert(0, str(ROOT / "tests" / "python"))
from conftest import target_dir  # noqa: E402
from iree._runtime import libs  # noqa: E402

# The native tools. `.venv/bin/iree-run-module` is a Python wrapper that starts this binary
# as a child process, so valgrind must be pointed at the binary itself to watch the module.
TOOLS = pathlib.Path(libs.library_path)


LIB = target_dir() / "debug" / "libiree_kit.so"


def compile_program(name, out_dir, backend="vmvx"):
    out = out_dir / f"{name}.{backend}.vmfb"
    subprocess.run(
        [
            str(BIN / "iree-compile"),
            "--iree-hal-target-device=local",
            f"--iree-hal-local-target-device-backends={backend}",
            "--iree-llvmcpu-target-cpu=generic",
            "--iree-input-demote-f64-to-f32=false",
            str(HERE / f"{name}.mlir"),
            "-o",
            str(out),
        ],
        check=True,
        timeout=300,
    )
    return out


@pytest.fixture(scope="session")
def programs(tmp_path_factory):
    assert LIB.exists(), f"{LIB} is missing: run scripts/test-iree.sh (it builds iree-kit)"
    out_dir = tmp_path_factory.mktemp("vmfb")
    return {name: compile_program(name, out_dir) for name in ["programs", "wrong_cconv", "missing_function"]}


@pytest.fixture(scope="session")
def valgrind(tmp_path_factory):
    """The command prefix that runs a tool under valgrind: through `no_io_uring.c`, since
    IREE's io_uring proactor thread can deadlock valgrind (a run hung forever)."""
    valgrind = shutil.which("valgrind")
    assert valgrind, "valgrind is missing: scripts/ensure-tools.sh installs it"
    shim = tmp_path_factory.mktemp("shim") / "no_io_uring"
    subprocess.run(["gcc", "-O2", "-Wall", "-Wextra", "-Werror", "-o", str(shim), str(HERE / "no_io_uring.c")], check=True)
    return [str(shim), valgrind, "--error-exitcode=99", "--leak-check=full", "--errors-for-leak-kinds=definite"]


def run(programs, function, *inputs, program="programs", module=None, prefix=()):
    args = [
        *prefix,
        str(TOOLS / "iree-run-module"),
        f"--module={module or LIB}",
        f"--module={programs[program]}",
        f"--function={function}",
        *[f"--input={i}" for i in inputs],
    ]
    env = dict(os.environ, RUST_BACKTRACE="0")
    return subprocess.run(args, capture_output=True, text=True, timeout=600, env=env)


def results(out):
    assert out.returncode == 0, out.stdout + out.stderr
    return [line.split(": ", 1)[1] for line in out.stdout.splitlines() if line.startswith("result[")]


@pytest.mark.parametrize(
    "function, inputs, expected",
    [
        ("add", ["40", "2"], ["i32=42"]),
        ("add", ["2147483647", "1"], ["i32=-2147483648"]),
        ("mix", ["3", "10", "1.5"], ["f32=4.5", "i64=13"]),
        ("checked", ["5"], ["i64=5"]),
        ("pick", ["1"], ["f64=1.5"]),
        ("lookup", ["2"], ["i64=200"]),
        ("widen", ["-3", "300", "0"], ["i64=297"]),
        ("widen", ["-3", "-300", "1"], ["i64=303"]),
        # i8/i16/i1 arrive zero-extended from IREE's VM: the extremes still decode.
        ("widen", ["127", "-32768", "1"], ["i64=32641"]),
        ("widen", ["-128", "32767", "0"], ["i64=32639"]),
        ("is_positive", ["2.5"], ["i32=1"]),
        ("is_positive", ["-2.5"], ["i32=0"]),
        ("pair", [], ["i32=7", "i32=-7"]),
        ("unlucky", ["12"], ["i32=12"]),
        ("halve", ["42"], ["i64=21"]),
    ],
)
def test_results(programs, function, inputs, expected):
    assert results(run(programs, function, *inputs)) == expected


def test_many_calls_in_one_run(programs):
    # 1000 calls of add_i32 and 1000 of tick (`0v_v`) in one invocation.
    assert results(run(programs, "sum_to", "1000")) == ["i32=499500"]


@pytest.mark.parametrize(
    "function, inputs, status",
    [
        ("checked", ["-7"], "INVALID_ARGUMENT; kit.checked: ValueError: x must not be negative, got -7;"),
        ("pick", ["9"], "OUT_OF_RANGE; kit.pick: IndexError: index 9 is out of range for 3 values;"),
        ("lookup", ["7"], "NOT_FOUND; kit.lookup: KeyError: no value under key 7;"),
        ("unlucky", ["13"], "INTERNAL; kit.unlucky panicked: 13 is unlucky;"),
        # The library's own error type, converted.
        ("halve", ["7"], "INVALID_ARGUMENT; kit.halve: ValueError: 7 is odd;"),
    ],
)
def test_errors_are_statuses_with_messages(programs, function, inputs, status):
    out = run(programs, function, *inputs)
    assert out.returncode == 1, out.stdout + out.stderr
    # `file:line: CODE; message; while calling import; ...` as iree-run-module prints it.
    assert "examples/iree-kit/src/lib.rs:" in out.stderr and status in out.stderr, out.stderr
    assert "while calling import" in out.stderr, out.stderr


def test_messages_off_gives_codes_and_prints_the_message(programs):
    module = f"{LIB}@iree_vm_dynamic_module_create?abi.messages=off"
    out = run(programs, "checked", "-7", module=module)
    assert out.returncode == 1, out.stdout + out.stderr
    assert "abi: INVALID_ARGUMENT: kit.checked: ValueError: x must not be negative, got -7\n" in out.stderr
    # The status itself carries the code only.
    assert "\nINVALID_ARGUMENT; while calling import" in out.stderr, out.stderr
    assert "lib.rs:" not in out.stderr, out.stderr
    # Results are unaffected.
    assert results(run(programs, "add", "1", "2", module=module)) == ["i32=3"]


@pytest.mark.parametrize(
    "query, says",
    [
        ("abi.nope=1", "module `kit`: unknown parameter `abi.nope` (known: `abi.messages=on|off`, `abi.mapping=on|off`)"),
        ("abi.messages=maybe", "module `kit`: `abi.messages` is `on` or `off`, not `maybe`"),
    ],
)
def test_creation_refuses_unknown_parameters(programs, query, says):
    out = run(programs, "add", "1", "2", module=f"{LIB}@iree_vm_dynamic_module_create?{query}")
    assert out.returncode != 0
    assert f"INVALID_ARGUMENT; {says}" in out.stderr, out.stderr


def test_a_wrong_import_is_refused_naming_both_conventions(programs):
    out = run(programs, "add", "1", "2", program="wrong_cconv")
    assert out.returncode != 0
    assert "kit.add_i32 has calling convention 0ii_i, but the program imports it as 0II_I" in out.stderr, out.stderr


def test_a_missing_function_is_refused_naming_it_and_what_there_is(programs):
    out = run(programs, "main", "1", program="missing_function")
    assert out.returncode != 0
    assert "NOT_FOUND; module `kit` has no function `nosuch` (it has: add_i32, checked, halve," in out.stderr, out.stderr


def test_one_run_is_clean_under_valgrind(programs, valgrind):
    prefix = [*valgrind, "-q"]
    out = run(programs, "sum_to", "50", prefix=prefix)
    assert out.returncode == 0, out.stdout + out.stderr
    assert results(out) == ["i32=1225"]
    # A failing call too: the message block is freed by the host.
    out = run(programs, "checked", "-7", prefix=prefix)
    assert out.returncode == 1, out.stdout + out.stderr
    assert "==" not in out.stderr, out.stderr


def guide_excerpt(marker):
    """The output docs/guide/iree.md shows for `marker`."""
    text = (ROOT / "docs/guide/iree.md").read_text()
    block = text.split(f"<!-- excerpt of: {marker} -->\n```text\n", 1)[1]
    return block.split("```", 1)[0]


@pytest.mark.parametrize(
    "marker, function, inputs",
    [
        ("iree-run-module --function=mix --input=3 --input=10 --input=1.5", "mix", ["3", "10", "1.5"]),
        ("iree-run-module --function=checked --input=-7", "checked", ["-7"]),
    ],
)
def test_the_guide_excerpts_are_real_output(programs, marker, function, inputs):
    out = run(programs, function, *inputs)
    real = out.stdout + out.stderr
    for line in guide_excerpt(marker).splitlines():
        assert line in real.splitlines(), f"guide line {line!r} not in:\n{real}"
