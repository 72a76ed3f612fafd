"""examples/cuda-kit on a machine without a GPU or a CUDA driver (scripts/test-cuda-kit.sh):
the library loads, `abi inspect` reads it, every kernel call fails with a RuntimeError
naming the missing driver (no crash, nothing allocated first), wrong arguments are refused
before that, and the launch configuration a call would queue is on the caller's stream.
"CUDA" tensors here carry a fake data address nothing dereferences; the framework lending
a stream and an allocator is tests/python/fake_framework (see test_fake_framework.py)."""

import ctypes
import ctypes.util
import json
import pathlib
import subprocess
import sys

import numpy as np
import pytest
import tvm_ffi

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "python"))
from conftest import target_dir  # noqa: E402
from test_fake_framework import _capsule, fake  # noqa: E402,F401  (fake: a fixture)

CUDA0 = tvm_ffi.device("cuda:0")
CUDA1 = tvm_ffi.device("cuda:1")
LIB = target_dir() / "debug" / "libcuda_kit.so"

# The tests that call into the driver: with one, a call would launch on the fake addresses.
no_driver = pytest.mark.skipif(
    ctypes.util.find_library("cuda") is not None, reason="this machine has a CUDA driver: scripts/gpu-check.sh tests there"
)


@pytest.fixture(scope="module")
def ck():
    assert LIB.exists(), f"{LIB} is missing: scripts/test-cuda-kit.sh builds it"
    return tvm_ffi.load_module(str(LIB))


@pytest.fixture(scope="module")
def dev(fake):
    """`dev(device, n)`: a float32 vector of `n` on `device` (no framework) at a fake address
    of its own, 1 MiB past the previous one, so no two share memory."""
    fake.fake_device_tensor_at.restype = ctypes.c_void_p
    fake.fake_device_tensor_at.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int64, ctypes.c_uint64]
    addresses = iter(range(0x100000, 1 << 40, 0x100000))

    def make(device, n):
        class Exporter:
            def __dlpack__(self, **_):
                managed = fake.fake_device_tensor_at(device.dlpack_device_type(), device.index, n, next(addresses))
                return _capsule.PyCapsule_New(managed, b"dltensor", None)

            def __dlpack_device__(self):
                return (device.dlpack_device_type(), device.index)

        return tvm_ffi.from_dlpack(Exporter())

    return make


def test_abi_inspect_reads_the_library_without_running_it():
    out = subprocess.run([str(target_dir() / "debug" / "abi"), "inspect", str(LIB)], check=True, capture_output=True, text=True)
    assert "5 export(s)" in out.stdout and "no library code ran" in out.stdout
    for signature in [
        "add(x: Tensor[f32, 1], y: Tensor[f32, 1]) -> Tensor",
        "add_into(x: Tensor[f32, 1], y: Tensor[f32, 1], out: Tensor[f32, 1]) -> None",
        "sum(x: Tensor[f32, 1]) -> Tensor",
    ]:
        assert signature in out.stdout
    listing = subprocess.run([str(target_dir() / "debug" / "abi"), "inspect", "--json", str(LIB)], check=True, capture_output=True)
    op = json.loads(listing.stdout)["exports"]["add_into"]["metadata"]["abi.op"]
    assert (op["device"], op["inputs"], op["outputs"]) == ("gpu", ["x", "y"], [{"name": "out", "like": "x"}]), op


@no_driver
@pytest.mark.parametrize("call, arity", [("add", 2), ("add_into", 3), ("sum", 1)])
def test_a_call_without_a_driver_is_a_runtime_error_saying_so(ck, dev, call, arity):
    args = [dev(CUDA0, 8) for _ in range(arity)]
    for _ in range(2):  # and the same again on the next call: no crash, no other error
        with pytest.raises(RuntimeError, match=rf"^cuda_kit\.{call}: no CUDA driver: libcuda\.so \(.*\) is not on this machine$"):
            getattr(ck, call)(*args)


@no_driver
def test_without_a_driver_nothing_is_allocated(ck, fake, dev):
    allocs = fake.fake_allocs()
    with pytest.raises(RuntimeError, match="no CUDA driver"):
        ck.add(fake.Framework(dev(CUDA1, 4)), dev(CUDA1, 4))
    assert fake.fake_allocs() == allocs


def test_wrong_operands_are_refused_before_the_driver_is_asked(ck, dev):
    with pytest.raises(ValueError, match=r"^cuda_kit\.sum: `x` is on cpu:0; these kernels take CUDA tensors$"):
        ck.sum(tvm_ffi.from_dlpack(np.ones(4, dtype=np.float32)))
    with pytest.raises(ValueError, match=r"^cuda_kit\.add: `y` is on cuda:1 and `x` on cuda:0$"):
        ck.add(dev(CUDA0, 4), dev(CUDA1, 4))
    with pytest.raises(ValueError, match=r"^cuda_kit\.add_into: `out` has 3 elements and `x` 4$"):
        ck.add_into(dev(CUDA0, 4), dev(CUDA0, 4), dev(CUDA0, 3))


def test_an_output_sharing_memory_with_an_input_is_refused(ck, dev):
    x = dev(CUDA0, 4)
    with pytest.raises(ValueError, match="share"):
        ck.add_into(x, dev(CUDA0, 4), x)


def test_launches_go_on_the_frameworks_stream_for_the_call(ck, fake, dev):
    x = fake.Framework(dev(CUDA1, 1000))
    assert ck.launches("add", x) == ["add_f32<<<4, 256, 0, 0xc0ffef>>>"], "the fake framework's stream for cuda:1"
    assert ck.launches("sum", x) == ["sum_f32<<<4, 256, 0, 0xc0ffef>>>", "sum_f32<<<1, 256, 0, 0xc0ffef>>>"]
    with tvm_ffi.use_raw_stream(CUDA1, 0x1111):
        assert ck.launches("add", x) == ["add_f32<<<4, 256, 0, 0xc0ffef>>>"], "the framework argument's stream wins"
        assert ck.launches("add_into", dev(CUDA1, 1000)) == ["add_f32<<<4, 256, 0, 0x1111>>>"], "use_raw_stream's"
    assert ck.launches("sum", dev(CUDA1, 256)) == ["sum_f32<<<1, 256, 0, 0x0>>>"], "none set: the legacy default stream"
    assert ck.launches("add", dev(CUDA1, 0)) == [], "nothing to launch"
    with pytest.raises(ValueError, match=r'no kernel "mul" \(add, add_into, sum\)'):
        ck.launches("mul", dev(CUDA1, 1))


@no_driver
def test_the_jax_entry_checks_the_stream_it_is_given_before_the_driver(ck, dev):
    x, y, out = (dev(CUDA0, 4) for _ in range(3))
    with tvm_ffi.use_raw_stream(CUDA0, 0x2222):
        with pytest.raises(ValueError, match=r"env::stream\(cuda:0\) is 0x2222, but the call's stream is 0x3333"):
            ck.add_into_on(0x3333, x, y, out)
        with pytest.raises(RuntimeError, match="no CUDA driver"):
            ck.add_into_on(0x2222, x, y, out)


def test_the_package_registers_the_device_op_for_gpus(tmp_path):
    """`abi stubs` describes `add_into` (an op over DeviceTensor/DeviceTensorMut) as a GPU op,
    and its JAX target is registered with jax-tvm-ffi for the GPU platform (jax and
    jax-tvm-ffi stand-ins record the registration; this machine has neither a GPU nor JAX)."""
    abi = target_dir() / "debug" / "abi"
    subprocess.run([str(abi), "stubs", str(LIB), "--package", "cuda_kit", "-o", str(tmp_path)], check=True)
    (tmp_path / "cuda_kit" / LIB.name).symlink_to(LIB)
    code = """
import sys, types
registered = []
sys.modules["jax"] = types.ModuleType("jax")
stand_in = types.ModuleType("jax_tvm_ffi")
stand_in.register_ffi_target = lambda name, fn, **kw: registered.append((name, kw["platform"], kw["arg_spec"]))
sys.modules["jax_tvm_ffi"] = stand_in
import cuda_kit
print(cuda_kit._OPS.ops["add_into"].device)
cuda_kit.jax.add_into
print(registered)
"""
    out = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True, env={"PYTHONPATH": str(tmp_path)}
    )
    assert out.stdout.splitlines() == ["gpu", "[('cuda_kit.add_into', 'gpu', ['args', 'rets'])]"], out.stdout
