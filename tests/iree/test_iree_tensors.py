"""Tensors between compiled IREE programs and the iree-kit module: `tensor<...>` arguments
arrive as `HostTensor`s (element type and rank checked, buffer mapped for the call),
`Tensor` results come back as buffer views the program keeps using. Both backends (vmvx,
llvm-cpu), both byte routes (mapped, and `abi.mapping=off`'s hal.buffer.load/store),
zero-size tensors, refusals naming the parameter, and 1,000 calls under valgrind with no
growth. Run by scripts/test-iree.sh."""

import re
import subprocess

import pytest

from test_iree import HERE, LIB, TOOLS, compile_program, guide_excerpt, valgrind  # noqa: F401 (a fixture)

BACKENDS = ["vmvx", "llvm-cpu"]


@pytest.fixture(scope="session")
def tensor_programs(tmp_path_factory):
    assert LIB.exists(), f"{LIB} is missing: run scripts/test-iree.sh (it builds iree-kit)"
    out_dir = tmp_path_factory.mktemp("tensor-vmfb")
    names = ["tensors", "tensor_mismatch"]
    return {(n, b): compile_program(n, out_dir, b) for b in BACKENDS for n in names}


def run(programs, function, *inputs, program="tensors", backend="vmvx", device="local-sync", module=None, prefix=()):
    args = [
        *prefix,
        str(TOOLS / "iree-run-module"),
        f"--device={device}",
        f"--module={module or LIB}",
        f"--module={programs[program, backend]}",
        f"--function={function}",
        *[f"--input={i}" for i in inputs],
    ]
    return subprocess.run(args, capture_output=True, text=True, timeout=600)


def tensor_results(out):
    """`result[i]` values, with a buffer view's contents on the line after its header."""
    assert out.returncode == 0, out.stdout + out.stderr
    lines = out.stdout.splitlines()
    values = []
    for i, line in enumerate(lines):
        if line.startswith("result["):
            value = line.split(": ", 1)[1]
            values.append(lines[i + 1] if value == "hal.buffer_view" else value)
    return values


MAPPED = str(LIB)
COPIED = f"{LIB}@iree_vm_dynamic_module_create?abi.mapping=off"


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("device", ["local-sync", "local-task"])
@pytest.mark.parametrize("module", [MAPPED, COPIED], ids=["mapped", "copied"])
@pytest.mark.parametrize(
    "function, inputs, expected",
    [
        ("total", ["4xf32=1,2,3,4.5"], ["f32=10.5"]),
        ("scaled", ["2x3xf32=1,2,3,4,5,6", "2"], ["2x3xf32=[2 4 6][8 10 12]"]),
        # The result feeds the program's own `arith.addf`.
        ("scaled_doubled", ["2x2xf32=1,2,3,4", "0.5"], ["2x2xf32=[1 2][3 4]"]),
        # int32 in, an int64 tensor and a scalar out.
        ("row_sums", ["3x2xi32=1,2,3,4,5,-6"], ["3xi64=3 7 -1", "i64=3"]),
        # Zero-size tensors: no element to map, still the right shapes.
        ("total", ["0xf32"], ["f32=-0"]),
        ("scaled", ["0x3xf32", "2"], ["0x3xf32="]),
        ("row_sums", ["2x0xi32"], ["2xi64=0 0", "i64=2"]),
        # Tensors the program computes: on local-task, transient buffers whose driver hands
        # the mapping to the committed buffer behind them.
        ("computed", ["3xf32=1,2,3", "50"], ["f32=600"]),
        ("many", ["2x2xf32=1,2,3,4", "3xf32=1,2,3", "50"], ["2x2xf32=[1 2][3 4]", "f32=300"]),
    ],
)
def test_tensors_in_and_out(tensor_programs, backend, device, module, function, inputs, expected):
    out = run(tensor_programs, function, *inputs, backend=backend, device=device, module=module)
    assert tensor_results(out) == expected


@pytest.mark.parametrize(
    "function, inputs, says",
    [
        (
            "total_of_matrix",
            ["2x2xf32=1,2,3,4"],
            "INVALID_ARGUMENT; kit.total: TypeError: argument `x` (#0): expected a tensor of dtype "
            "float32 and rank 1, got dtype float32 and rank 2 (shape [2, 2]);",
        ),
        (
            "scaled_ints",
            ["2x3xi32=1,2,3,4,5,6", "1"],
            "INVALID_ARGUMENT; kit.scaled: TypeError: argument `x` (#0): expected a tensor of dtype "
            "float32 and rank 2, got dtype int32 and rank 2 (shape [2, 3]);",
        ),
    ],
)
def test_a_wrong_dtype_or_rank_is_refused_naming_the_parameter(tensor_programs, function, inputs, says):
    out = run(tensor_programs, function, *inputs, program="tensor_mismatch")
    assert out.returncode == 1, out.stdout + out.stderr
    assert says in out.stderr, out.stderr
    assert "examples/iree-kit/src/lib.rs:" in out.stderr, out.stderr


@pytest.mark.parametrize("device", ["local-sync", "local-task"])
@pytest.mark.parametrize("module", [MAPPED, COPIED], ids=["mapped", "copied"])
@pytest.mark.parametrize(
    "function, inputs, expected",
    [
        ("many", ["2x2xf32=1,2,3,4", "3xf32=1,2,3"], lambda n: ["2x2xf32=[1 2][3 4]", f"f32={6 * n}"]),
        ("computed", ["3xf32=1,2,3"], lambda n: [f"f32={12 * n}"]),
    ],
)
def test_many_calls_under_valgrind_leave_nothing_behind(tensor_programs, valgrind, device, module, function, inputs, expected):
    """1,000 calls in one run (`many`: `scaled`, a new result buffer each, and `total`;
    `computed`: `total` of a tensor the program computes): clean under valgrind, and the
    heap in use at exit is the same as after 10 calls."""
    in_use = {}
    for n in [10, 1000]:
        out = run(tensor_programs, function, *inputs, str(n), device=device, module=module, prefix=valgrind)
        assert tensor_results(out) == expected(n)
        assert "ERROR SUMMARY: 0 errors" in out.stderr, out.stderr
        in_use[n] = re.search(r"in use at exit: ([\d,]+) bytes in ([\d,]+) blocks", out.stderr).groups()
    assert in_use[10] == in_use[1000], in_use


def test_the_copied_route_says_nothing_and_the_mapped_one_needs_no_copy(tensor_programs):
    # `abi.mapping=off` is silent (it is asked for); a layout mismatch would print one line.
    out = run(tensor_programs, "total", "3xf32=1,2,3", module=COPIED)
    assert tensor_results(out) == ["f32=6"]
    assert "abi:" not in out.stderr, out.stderr


@pytest.mark.parametrize("query, says", [("abi.mapping=maybe", "module `kit`: `abi.mapping` is `on` or `off`, not `maybe`")])
def test_the_mapping_parameter_is_checked(tensor_programs, query, says):
    out = run(tensor_programs, "total", "3xf32=1,2,3", module=f"{LIB}@iree_vm_dynamic_module_create?{query}")
    assert out.returncode != 0
    assert f"INVALID_ARGUMENT; {says}" in out.stderr, out.stderr


@pytest.mark.parametrize(
    "marker, program, function, inputs",
    [
        (
            "iree-run-module --function=scaled_doubled --input=2x3xf32=1,2,3,4,5,6 --input=10",
            "tensors",
            "scaled_doubled",
            ["2x3xf32=1,2,3,4,5,6", "10"],
        ),
        (
            "iree-run-module --function=total_of_matrix --input=2x2xf32=1,2,3,4",
            "tensor_mismatch",
            "total_of_matrix",
            ["2x2xf32=1,2,3,4"],
        ),
    ],
)
def test_the_guide_tensor_excerpts_are_real_output(tensor_programs, marker, program, function, inputs):
    out = run(tensor_programs, function, *inputs, program=program)
    real = (out.stdout + out.stderr).splitlines()
    for line in guide_excerpt(marker).splitlines():
        assert line in real, f"guide line {line!r} not in:\n{out.stdout + out.stderr}"


def test_the_guide_tensor_code_is_the_tested_code():
    """The guide's tensor section shows lines of examples/iree-kit and tests/iree/tensors.mlir."""
    root = HERE.parents[1]
    section = (root / "docs/guide/iree.md").read_text().split("## Tensors in IREE programs", 1)[1]
    for fence, source in [("```rust\n", root / "examples/iree-kit/src/lib.rs"), ("```mlir\n", HERE / "tensors.mlir")]:
        block = section.split(fence, 1)[1].split("```", 1)[0]
        tested = source.read_text()
        for line in block.splitlines():
            assert line.strip() in tested, f"guide line not in {source}: {line.strip()}"
