"""The caller's environment under the real tvm_ffi package, with a fake array framework
(tests/python/fake_framework/fake_framework.c, built here with gcc against the wheel's
headers): a DLPack exchange API table like the one PyTorch gives tvm_ffi, whose tensor
allocator and current stream are the fake's. Per call, tvm_ffi sets them from a framework
argument; inside, `env::stream` and `Tensor::empty` (examples/tensor-kit) must see them,
results must go back through the framework's converter, and both must be restored after.
No GPU is needed: "CUDA" tensors carry a fake data address nothing dereferences."""

import ctypes
import gc
import sys
import pathlib
import subprocess

import numpy as np
import pytest
import tvm_ffi
from tvm_ffi.core import DLTensorTestWrapper

from conftest import load

HERE = pathlib.Path(__file__).resolve().parent
CUDA1 = tvm_ffi.device("cuda:1")

_capsule = ctypes.pythonapi
_capsule.PyCapsule_GetPointer.restype = ctypes.c_void_p
_capsule.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_capsule.PyCapsule_New.restype = ctypes.py_object
_capsule.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]


@pytest.fixture(scope="module")
def fake(tmp_path_factory):
    """The fake framework: its C library, and `Framework`, the array class carrying its table."""
    so = tmp_path_factory.mktemp("fake") / "libfake_framework.so"
    include = pathlib.Path(tvm_ffi.__file__).parent / "include"
    source = HERE / "fake_framework" / "fake_framework.c"
    subprocess.run(["gcc", "-shared", "-fPIC", "-O1", "-Wall", "-Werror", f"-I{include}", "-o", so, source], check=True)
    lib = ctypes.CDLL(str(so))
    lib.fake_api.restype = ctypes.c_void_p
    lib.fake_api.argtypes = [ctypes.c_void_p]
    lib.fake_device_tensor.restype = ctypes.c_void_p
    lib.fake_device_tensor.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int64]
    base = _capsule.PyCapsule_GetPointer(DLTensorTestWrapper.__dlpack_c_exchange_api__, b"dlpack_exchange_api")

    class Framework(DLTensorTestWrapper):
        """An array of the fake framework (tvm_ffi reads the class attribute)."""

        __dlpack_c_exchange_api__ = lib.fake_api(base)

    lib.Framework = Framework
    return lib


def device_tensor(fake, device, n):
    """A float32 vector of `n` on `device` (a fake address) as a tvm_ffi Tensor."""

    class Exporter:
        def __dlpack__(self, **_):
            managed = fake.fake_device_tensor(device.dlpack_device_type(), device.index, n)
            return _capsule.PyCapsule_New(managed, b"dltensor", None)

        def __dlpack_device__(self):
            return (device.dlpack_device_type(), device.index)

    return tvm_ffi.from_dlpack(Exporter())


@pytest.fixture(scope="module")
def tk():
    return load("libtensor_kit.so")


def test_the_stream_inside_a_call_is_the_frameworks_and_is_restored(tk, fake):
    x = fake.Framework(device_tensor(fake, CUDA1, 4))
    assert tk.launch_stream(x) == 0xC0FFEE + 1
    assert tvm_ffi.get_raw_stream(CUDA1) == 0, "restored after the call"
    with tvm_ffi.use_raw_stream(CUDA1, 0x1111):
        assert tk.launch_stream(x) == 0xC0FFEE + 1, "the framework argument's stream wins for the call"
        assert tk.current_stream(CUDA1) == 0x1111
        assert tk.launch_stream(device_tensor(fake, CUDA1, 4)) == 0x1111, "a plain tensor sets none"
    assert tk.current_stream(CUDA1) == 0


def test_results_come_from_the_frameworks_allocator_and_go_back_through_it(tk, fake):
    before = (fake.fake_allocs(), fake.fake_frees(), fake.fake_results())
    x = fake.Framework(tvm_ffi.from_dlpack(np.arange(4, dtype=np.float32)))
    out = tk.empty_like(x)
    assert (fake.fake_allocs(), fake.fake_results()) == (before[0] + 1, before[2] + 1)
    # The allocator's memory is 0xAB bytes; host memory comes back zeroed.
    np.testing.assert_array_equal(np.from_dlpack(out), np.zeros(4, dtype=np.float32))
    del out
    gc.collect()
    assert fake.fake_frees() == before[1] + 1, "the framework's deleter ran"
    on_device = tk.empty_like(fake.Framework(device_tensor(fake, CUDA1, 3)))
    assert on_device.device == CUDA1 and on_device.shape == (3,)
    assert fake.fake_allocs() == before[0] + 2
    del on_device
    gc.collect()
    assert fake.fake_frees() == before[1] + 2


def test_without_a_framework_cpu_results_are_rust_allocations_and_device_ones_fail(tk, fake):
    allocs = fake.fake_allocs()
    np.testing.assert_array_equal(np.from_dlpack(tk.ones(3)), np.ones(3, dtype=np.float32))
    np.testing.assert_array_equal(np.from_dlpack(tk.empty_like(np.ones(2, dtype=np.float32))), np.zeros(2))
    assert fake.fake_allocs() == allocs, "no allocator is lent outside a framework call"
    with pytest.raises(RuntimeError, match="Tensor::empty on cuda:1 needs the caller's tensor allocator"):
        tk.empty_like(device_tensor(fake, CUDA1, 2))


def test_a_host_tensor_parameter_refuses_device_memory_naming_it(tk, fake):
    x = np.ones((2, 3), dtype=np.float32)
    with pytest.raises(ValueError) as e:
        tk.scale_rows(x, device_tensor(fake, CUDA1, 3))
    assert str(e.value).endswith("argument `w` (#1) tensor data on cuda:1 is not host-accessible"), str(e.value)
    assert tk.launch_site(device_tensor(fake, CUDA1, 3)) == ["cuda:1", 0x10000], "a DeviceTensor takes it"


# -- The same through the package: the Python door and the tvm_ffi route ------------------

ROUTES = {
    # The package's callable (the Python door), and the function it replaces (the tvm_ffi
    # route, through tvm_ffi's own handling of the exchange API).
    "door": lambda f: f,
    "tvm_ffi": lambda f: getattr(f, "__wrapped__", f),
}


@pytest.mark.parametrize("route", ROUTES)
def test_through_the_package_the_frameworks_stream_and_allocator_serve_the_call(tensor_kit_package, fake, route):
    pkg = tensor_kit_package
    assert type(pkg.launch_stream).__module__ == "abi", "the door serves tensor_kit's package"
    call = lambda name, *args: ROUTES[route](getattr(pkg, name))(*args)  # noqa: E731
    x = fake.Framework(device_tensor(fake, CUDA1, 4))
    assert call("launch_stream", x) == 0xC0FFEE + 1
    assert tvm_ffi.get_raw_stream(CUDA1) == 0, "restored after the call"
    with tvm_ffi.use_raw_stream(CUDA1, 0x1111):
        assert call("launch_stream", x) == 0xC0FFEE + 1, "the framework argument's stream wins for the call"
        assert call("current_stream", CUDA1) == 0x1111
    before = (fake.fake_allocs(), fake.fake_frees(), fake.fake_results())
    out = call("empty_like", fake.Framework(tvm_ffi.from_dlpack(np.arange(4, dtype=np.float32))))
    assert (fake.fake_allocs(), fake.fake_results()) == (before[0] + 1, before[2] + 1), "allocated by and handed back through the framework"
    np.testing.assert_array_equal(np.from_dlpack(out), np.zeros(4, dtype=np.float32))
    del out
    gc.collect()
    assert fake.fake_frees() == before[1] + 1, "the framework's deleter ran"
    # The framework's converter gives tvm_ffi.Tensor objects: with a numpy array in the call
    # too, the package makes a numpy array of it (numpy in, numpy out).
    framework = fake.Framework(tvm_ffi.from_dlpack(np.ones((2, 3), np.float32)))
    assert type(call("scale_rows", framework, tvm_ffi.from_dlpack(np.ones(3, np.float32)))) is tvm_ffi.Tensor
    assert type(call("scale_rows", framework, np.ones(3, np.float32))) is np.ndarray
    assert call("row_lengths", fake.Framework(tvm_ffi.from_dlpack(np.ones((2, 5), np.int64)))) == [5, 5]
    # The door serves a framework's tensors itself: no Python frame of the package runs.
    frames = []
    sys.setprofile(lambda frame, event, _: event == "call" and frame.f_code.co_filename.endswith("__init__.py") and frames.append(frame.f_code.co_name))
    call("empty_like", fake.Framework(tvm_ffi.from_dlpack(np.ones(3, np.float32))))
    call("launch_stream", x)
    sys.setprofile(None)
    assert (frames == []) == (route == "door"), frames
