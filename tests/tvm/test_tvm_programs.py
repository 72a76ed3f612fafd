"""Apache TVM (apache-tvm 0.27, tests/tvm/requirements.txt) as a caller of a Rust kernel:
programs compiled with `tvm.compile(..., target="llvm")` call the global
`tensor_kit.scale_rows_into` that `#[export_fn(global = ...)]` registers, from Relax
(`R.call_dps_packed`: Tensor objects, the VM allocates the destination) and from TIR
(`T.call_packed`: bare `DLTensor*` with null strides). The Rust function's checks hold
there too: an aliased destination is refused with its message."""

import os
import pathlib
import subprocess
import json

import numpy as np
import pytest
import tvm
import tvm_ffi
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

ROOT = pathlib.Path(__file__).resolve().parents[2]


def target_dir():
    if os.environ.get("ABI_TARGET_DIR"):
        return pathlib.Path(os.environ["ABI_TARGET_DIR"])
    meta = subprocess.run(["cargo", "metadata", "--format-version", "1", "--no-deps"], cwd=ROOT, check=True, capture_output=True)
    return pathlib.Path(json.loads(meta.stdout)["target_directory"])


# Loaded before any VirtualMachine is made: the VM resolves extern functions when created.
KIT = tvm_ffi.load_module(str(target_dir() / "debug" / "libtensor_kit.so"))


@I.ir_module
class Program:
    @T.prim_func
    def scale_tir(X: T.Buffer((2, 3), "float32"), W: T.Buffer((3,), "float32"), Y: T.Buffer((2, 3), "float32")):
        T.evaluate(T.call_packed("tensor_kit.scale_rows_into", X, W, Y))

    @R.function
    def main(x: R.Tensor((2, 3), "float32"), w: R.Tensor((3,), "float32")) -> R.Tensor((2, 3), "float32"):
        y = R.call_dps_packed("tensor_kit.scale_rows_into", (x, w), out_ty=R.Tensor((2, 3), "float32"))
        return R.add(y, y)


@pytest.fixture(scope="module")
def vm():
    return relax.VirtualMachine(tvm.compile(Program, target="llvm"), tvm.cpu())


X = np.arange(6, dtype=np.float32).reshape(2, 3)
W = np.array([1, 10, 100], dtype=np.float32)


def test_the_global_is_in_tvms_registry():
    assert tvm_ffi.get_global_func("tensor_kit.scale_rows_into") is not None


def test_relax_calls_the_kernel_in_destination_passing_style_and_uses_its_result(vm):
    out = vm["main"](tvm.runtime.tensor(X), tvm.runtime.tensor(W)).numpy()
    np.testing.assert_array_equal(out, 2 * (X * W))


def test_tir_passes_bare_dltensors(vm):
    scale = vm.module.get_function("scale_tir", query_imports=True)
    y = tvm.runtime.empty((2, 3), "float32")
    scale(tvm.runtime.tensor(X), tvm.runtime.tensor(W), y)
    np.testing.assert_array_equal(y.numpy(), X * W)


def test_the_kernels_checks_hold_inside_a_program(vm):
    scale = vm.module.get_function("scale_tir", query_imports=True)
    x = tvm.runtime.tensor(X)
    with pytest.raises(ValueError, match=r"argument `out` \(#2\) shares memory with argument `x` \(#0\)"):
        scale(x, tvm.runtime.tensor(W), x)
    np.testing.assert_array_equal(x.numpy(), X, "untouched")
