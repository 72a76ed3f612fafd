"""Ops (`#[export_fn(op)]`) from numpy: op-kit's package as `abi stubs` writes it (outputs
allocated by the shape rules, returned as numpy arrays; given output buffers; read-only
inputs; refused outputs; in place; the kernels' errors; the stubs under mypy --strict), and
the support module `_abi_ops.py` alone, on kernels written in Python and made tvm_ffi
functions (`tvm_ffi.convert`, so arguments cross tvm_ffi's conversion as they do into a
library). torch and JAX are the framework tests' (test_ops_*.py, in .venv-frameworks)."""

import importlib.util
import subprocess
import sys
import types

import numpy as np
import pytest
import tvm_ffi

from conftest import ROOT, mypy_command, target_dir

SUPPORT = ROOT / "abi-cli/src/stubs/abi_ops.py"


def support_module():
    spec = importlib.util.spec_from_file_location("fake_abi_ops", SUPPORT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def arrays(*tensors):
    return [np.from_dlpack(t) for t in tensors]


@tvm_ffi.convert
def scale_rows_kernel(x, k, y):
    x, k, y = arrays(x, k, y)
    y[...] = x * k[:, None]


@tvm_ffi.convert
def relu_kernel(x):
    (x,) = arrays(x)
    np.maximum(x, 0, out=x)


@tvm_ffi.convert
def ramp_kernel(n, step, y):
    (y,) = arrays(y)
    y[...] = np.arange(n) * step


@tvm_ffi.convert
def minmax_kernel(x, lo, hi):
    x, lo, hi = arrays(x, lo, hi)
    lo[...] = x.min(axis=1)
    hi[...] = x.max(axis=1)


@tvm_ffi.convert
def matmul_kernel(a, b, c):
    a, b, c = arrays(a, b, c)
    c[...] = a @ b


@pytest.fixture
def ops():
    """The ops of op-kit as the generated `__init__.py` describes them."""
    module = support_module()
    ops = module.Ops("fake_kit")
    f64_2, f64_1 = ("float64", 2), ("float64", 1)
    return types.SimpleNamespace(
        module=module,
        scale_rows=ops.op(
            "scale_rows",
            scale_rows_kernel,
            [("x", "in", *f64_2), ("k", "in", *f64_1), ("y", "out", *f64_2, "x")],
            backward="scale_rows_bwd",
        ),
        relu_=ops.op("relu_", relu_kernel, [("x", "inout", "float32", 2)], jax=None),
        ramp=ops.op("ramp", ramp_kernel, [("n", "int"), ("step", "float"), ("y", "out", *f64_1, ["n"])]),
        minmax=ops.op(
            "minmax",
            minmax_kernel,
            [("x", "in", *f64_2), ("lo", "out", *f64_1, ["x.0"]), ("hi", "out", *f64_1, ["x.0"])],
        ),
        matmul=ops.op(
            "matmul",
            matmul_kernel,
            [("a", "in", "float32", 2), ("b", "in", "float32", 2), ("c", "out", "float32", 2, ["a.0", "b.1"])],
        ),
    )


def test_numpy_in_numpy_out_allocated_by_the_rule(ops):
    x = np.arange(6.0).reshape(2, 3)
    y = ops.scale_rows.call((x, np.array([2.0, 3.0])), (None,))
    assert type(y) is np.ndarray and y.dtype == np.float64
    np.testing.assert_array_equal(y, x * np.array([[2.0], [3.0]]))
    a, b = np.ones((2, 4), np.float32), np.ones((4, 5), np.float32)
    c = ops.matmul.call((a, b), (None,))
    assert c.shape == (2, 5) and c.dtype == np.float32
    np.testing.assert_array_equal(c, np.full((2, 5), 4.0, np.float32))


def test_two_outputs_come_back_as_a_tuple(ops):
    x = np.array([[1.0, 5.0, 3.0], [-2.0, 0.0, 7.0]])
    lo, hi = ops.minmax.call((x,), (None, None))
    np.testing.assert_array_equal(lo, [1.0, -2.0])
    np.testing.assert_array_equal(hi, [5.0, 7.0])


def test_a_shape_from_a_scalar(ops):
    y = ops.ramp.call((4, 0.5), (None,))
    np.testing.assert_array_equal(y, [0.0, 0.5, 1.0, 1.5])
    with pytest.raises(ValueError, match=r"ramp: output `y` would have -1 elements along an axis \(`n` = -1\)"):
        ops.ramp.call((-1, 0.5), (None,))


def test_given_output_buffers_are_written_and_returned(ops):
    x = np.ones((2, 2))
    ops.scale_rows.call((x, np.ones(2)), (None,))  # (the numpy fast path made: it hands buffers on)
    buf = np.zeros((2, 2))
    assert ops.scale_rows.call((x, np.array([2.0, 4.0])), (buf,)) is buf
    np.testing.assert_array_equal(buf, [[2.0, 2.0], [4.0, 4.0]])
    lo = np.zeros(2)
    got_lo, hi = ops.minmax.call((np.array([[1.0, 2.0], [3.0, 4.0]]),), (lo, None))
    assert got_lo is lo
    np.testing.assert_array_equal(hi, [2.0, 4.0])


def test_read_only_numpy_inputs_are_accepted(ops):
    x = np.broadcast_to(np.array([1.0, 2.0]), (3, 2))
    k = np.frombuffer(np.array([1.0, 2.0, 3.0]).tobytes())
    assert not x.flags.writeable and not k.flags.writeable
    with pytest.raises(BufferError):
        scale_rows_kernel(x, k, np.empty((3, 2)))  # what a direct call says
    # Twice: the first numpy call takes the general path, later ones the numpy fast path.
    for _ in range(2):
        np.testing.assert_array_equal(ops.scale_rows.call((x, k), (None,)), [[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]])


def test_a_read_only_array_is_refused_where_the_op_writes(ops):
    buf = np.zeros((2, 2))
    buf.flags.writeable = False
    for _ in range(2):
        with pytest.raises(ValueError, match=r"^scale_rows: `y` is written by the op, and the array given is read-only$"):
            ops.scale_rows.call((np.ones((2, 2)), np.ones(2)), (buf,))
    x = np.array([[-1.0, 2.0]], np.float32)
    x.flags.writeable = False
    with pytest.raises(ValueError, match=r"^relu_: `x` is written by the op"):
        ops.relu_.call((x,), ())
    np.testing.assert_array_equal(x, [[-1.0, 2.0]])


def test_in_place_returns_none_and_writes_the_array(ops):
    x = np.array([[-1.0, 2.0], [3.0, -4.0]], np.float32)
    assert ops.relu_.call((x,), ()) is None
    np.testing.assert_array_equal(x, [[0.0, 2.0], [3.0, 0.0]])


def test_a_jax_array_is_refused_where_the_op_writes(ops, monkeypatch):
    # A stand-in for JAX (the framework tests use the real one): what the module looks at.
    class Array:
        pass

    fake_jax = types.ModuleType("jax")
    fake_jax.Array = Array
    fake_jax.core = types.SimpleNamespace(Tracer=type("Tracer", (Array,), {}))
    monkeypatch.setitem(sys.modules, "jax", fake_jax)
    with pytest.raises(ValueError, match=r"^scale_rows: `y` is written by the op and a JAX array cannot be .*fake_kit\.jax\.scale_rows"):
        ops.scale_rows.call((np.ones((2, 2)), np.ones(2)), (Array(),))


def test_an_input_of_another_rank_reaches_the_kernel_not_an_index_error(ops):
    seen = []

    @tvm_ffi.convert
    def kernel(x, lo, hi):
        seen.append((x.shape, lo.shape, hi.shape))

    op = ops.module.Ops("k").op("minmax", kernel, [("x", "in", "float64", 2), ("lo", "out", "float64", 1, ["x.1"]), ("hi", "out", "float64", 1, [3])])
    op.call((np.ones(4),), (None, None))
    assert seen == [((4,), (0,), (3,))]


def test_an_enum_scalar_is_a_str_in_the_schema_an_attribute_and_a_plain_name(ops):
    """An enum scalar ("str", with its names): torch's schema says `str`, JAX's arg_spec makes
    it an attribute, a member of an enum class is handed on as its plain name (`str(member)`
    would be `Kind.Tanh`), and only the names fit (the export refuses the rest)."""
    import enum

    class Kind(str, enum.Enum):
        Relu = "relu"
        Tanh = "tanh"

    seen = []

    @tvm_ffi.convert
    def kernel(x, kind, y):
        seen.append(kind)

    params = [("x", "in", "float32", 2), ("kind", "str", ["relu", "tanh"]), ("y", "out", "float32", 2, "x")]
    op = ops.module.Ops("k").op("activate", kernel, params)
    assert op._torch_schema(out_variant=False) == "(Tensor x, str kind) -> Tensor"
    assert op._torch_schema(out_variant=True) == "(Tensor x, str kind, Tensor(a!) y) -> ()"
    assert op._arg_spec() == ["args", "attrs.kind", "rets"]
    assert op._traced_message("kind").endswith("(`kind`) each set an attribute of the call (or an output's shape): pass them as static arguments (jax.jit(f, static_argnums=(1,))), and leave them unmapped under jax.vmap (in_axes None)")
    plain = op._plain_names((np.ones((1, 1), np.float32), Kind.Tanh))
    assert type(plain[1]) is str and plain[1] == "tanh"
    assert op._plain_names(("x", "relu")) == ("x", "relu")
    assert type(ops.module._name(Kind.Relu)) is str and ops.module._name(Kind.Relu) == "relu" and str(Kind.Relu) != "relu"
    kind = op.args[1]
    assert kind.names == ("relu", "tanh") and not kind.tensor and kind.dtype is None
    fits = ops.module._scalar_fits
    assert fits(kind, "tanh") and fits(kind, Kind.Relu)
    assert not fits(kind, "gelu") and not fits(kind, 1) and not fits(kind, b"relu")
    op.call((np.ones((1, 1), np.float32), Kind.Tanh), (None,))
    assert seen == ["tanh"]


def test_the_module_imports_neither_torch_nor_jax():
    # (tvm_ffi imports numpy itself; where torch is not installed, an import would fail.)
    code = (
        "import importlib.util, sys\n"
        f"spec = importlib.util.spec_from_file_location('m', {str(SUPPORT)!r})\n"
        "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n"
        "print(sorted(n for n in ('torch', 'jax') if n in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    assert out.stdout == "[]\n"


# -- op-kit's package ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def op_kit_dir(op_kit_package_dir):
    """op-kit's package (conftest's), which holds what `abi stubs` writes for a library with
    ops, and the link to the library."""
    package = op_kit_package_dir / "op_kit"
    written = ["__init__.py", "__init__.pyi", "_abi_door.py", "_abi_ops.py", "py.typed"]
    assert sorted(p.name for p in package.iterdir() if not p.name.endswith(".so")) == written
    return op_kit_package_dir


@pytest.fixture(scope="module")
def op_kit(op_kit_dir):
    sys.path.insert(0, str(op_kit_dir))
    try:
        import op_kit

        yield op_kit
    finally:
        sys.path.remove(str(op_kit_dir))
        sys.modules.pop("op_kit", None)
        sys.modules.pop("op_kit._abi_ops", None)


def test_op_kit_from_numpy(op_kit):
    x, k = np.arange(6.0).reshape(2, 3), np.array([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(op_kit.scale_rows(x, k), x * k)
    c = op_kit.matmul(np.ones((2, 3), np.float32), np.ones((3, 4), np.float32))
    assert (c.shape, c.dtype) == ((2, 4), np.float32) and (c == 3).all()
    np.testing.assert_array_equal(op_kit.ramp(4, 0.5), [0.0, 0.5, 1.0, 1.5])
    lo, hi = op_kit.minmax(np.array([[1, 5, 3], [-2, 0, 7]], np.float32))
    np.testing.assert_array_equal(lo, [1, -2])
    np.testing.assert_array_equal(hi, [5, 7])
    dx, dk = op_kit.scale_rows_bwd(x, k, np.ones((2, 3)))
    np.testing.assert_array_equal(dx, np.ones((2, 3)) * k)
    np.testing.assert_array_equal(dk, x.sum(axis=0))


def test_op_kit_takes_an_enum_scalar_as_a_member_or_its_name(op_kit):
    """`activate(x, kind)`: `kind` is op-kit's `Activation`, a fieldless enum that crosses as
    its name; a member of the package's class or the name itself, and an unknown name is
    the export's ValueError listing the names."""
    x = np.array([[-1.0, 0.5], [2.0, -3.0]], np.float32)
    assert op_kit.Activation.Tanh == "tanh" and issubclass(op_kit.Activation, str)
    want = {"relu": np.maximum(x, 0), "tanh": np.tanh(x), "sigmoid": 1 / (1 + np.exp(-x))}
    for member in op_kit.Activation:
        for kind in (member, member.value):
            y = op_kit.activate(x, kind)
            assert y.dtype == np.float32
            np.testing.assert_allclose(y, want[member.value], rtol=1e-6)
    np.testing.assert_allclose(op_kit.activate_bwd(x, np.ones_like(x), "tanh"), 1 - np.tanh(x) ** 2, rtol=1e-5)
    message = (
        "activate(x: Tensor[f32, 2], kind: Activation, y: Tensor[f32, 2]) -> None: argument `kind` (#1) "
        '"gelu" is not a name of Activation; it takes "relu", "tanh", "sigmoid"'
    )
    with pytest.raises(ValueError) as caught:
        op_kit.activate(x, "gelu")
    assert str(caught.value) == message
    with pytest.raises(TypeError, match=r"^activate\(.*argument `kind` \(#1\) expected Activation, got int$"):
        op_kit.activate(x, 1)


def test_op_kit_in_place_and_given_outputs(op_kit):
    x = np.array([[-1.0, 2.0]], np.float32)
    assert op_kit.relu_(x) is None
    np.testing.assert_array_equal(x, [[0.0, 2.0]])
    y = np.ones(3)
    assert op_kit.axpy_(np.arange(3.0), 2.0, y) is None
    np.testing.assert_array_equal(y, [1.0, 3.0, 5.0])
    buf = np.empty((1, 2))
    assert op_kit.scale_rows(np.ones((1, 2)), np.array([2.0, 3.0]), y=buf) is buf
    np.testing.assert_array_equal(buf, [[2.0, 3.0]])


def test_op_kit_read_only_inputs_and_outputs(op_kit):
    x = np.frombuffer(np.arange(6.0).tobytes()).reshape(2, 3)
    assert not x.flags.writeable
    np.testing.assert_array_equal(op_kit.scale_rows(x, np.ones(3)), x)
    buf = np.empty((2, 3))
    buf.flags.writeable = False
    with pytest.raises(ValueError, match=r"^scale_rows: `y` is written by the op, and the array given is read-only$"):
        op_kit.scale_rows(x, np.ones(3), y=buf)


def test_op_kit_errors_name_the_function_and_parameter(op_kit):
    x = np.ones((2, 3))
    with pytest.raises(TypeError, match=r"^scale_rows\(.*argument `x` \(#0\) expected a tensor of dtype float64 and rank 2, got dtype float32"):
        op_kit.scale_rows(x.astype(np.float32), np.ones(3))
    # A rank the rule cannot read is the kernel's error too, not an IndexError.
    with pytest.raises(TypeError, match=r"^matmul\(.*argument `b` \(#1\) expected a tensor of dtype float32 and rank 2, got dtype float32 and rank 1"):
        op_kit.matmul(np.ones((2, 3), np.float32), np.ones(3, np.float32))
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'z'"):
        op_kit.scale_rows(x, np.ones(3), z=x)


def test_op_kit_hides_the_jax_entry_points_and_imports_no_framework(op_kit_dir):
    code = (
        "import sys, op_kit\n"
        "print(sorted(op_kit.__all__))\n"
        "print(hasattr(op_kit, 'relu___jax'), type(op_kit.jax).__name__)\n"
        "print(sorted(n for n in ('torch', 'jax') if n in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True, env={"PYTHONPATH": str(op_kit_dir)}
    )
    assert out.stdout == (
        "['Activation', 'ActivationLike', 'activate', 'activate_bwd', 'axpy_', 'matmul', 'minmax', 'one_hot', 'power', 'power_bwd', 'quad', 'quad_bwd', 'ramp', 'relu_', 'scale_rows', 'scale_rows_bwd', 'strides_of']\n"
        "False _Namespace\n"
        "[]\n"
    )


def test_op_kit_names_the_extra_a_missing_framework_needs(op_kit):
    if importlib.util.find_spec("torch") or importlib.util.find_spec("jax"):
        pytest.skip("a framework is installed here (the framework tests cover it)")
    with pytest.raises(ImportError, match=r"^op_kit\.torch needs PyTorch, which is not installed: pip install op_kit\[torch\]$"):
        op_kit.torch.scale_rows
    with pytest.raises(ImportError, match=r"^op_kit\.jax needs JAX, which is not installed: pip install op_kit\[jax\]$"):
        op_kit.jax.scale_rows(np.ones((1, 1)), np.ones(1))


def test_op_kit_stubs_under_mypy_strict(op_kit_dir, tmp_path):
    """With numpy alone installed (torch and JAX are extras): results carry the op's own
    dtype (one_hot's float32 from int64 labels), parameters take what numpy's annotations
    give for data of the right kind (np.linspace's floating[Any]) and sequences; every line
    of bad.py is refused, and nothing in the stubs themselves."""
    (tmp_path / "good.py").write_text(
        "import numpy as np\n"
        "import numpy.typing as npt\n"
        "import op_kit\n\n"
        "x: npt.NDArray[np.float64] = np.ones((2, 3))\n"
        "y: npt.NDArray[np.float64] = op_kit.scale_rows(x, np.ones(3))\n"
        "lo, hi = op_kit.minmax(x.astype(np.float32))\n"
        "pair: tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]] = (lo, hi)\n"
        "z: npt.NDArray[np.float64] = op_kit.scale_rows(x, np.ones(3), y=y)\n"
        "nothing: None = op_kit.relu_(x.astype(np.float32))\n"
        "r: npt.NDArray[np.float64] = op_kit.ramp(3, 1.0)\n"
        "g: npt.NDArray[np.float64] = op_kit.quad(np.linspace(-1, 1, 5), 2.0)\n"
        "h: npt.NDArray[np.float32] = op_kit.one_hot(np.arange(3), 4)\n"
        "s: npt.NDArray[np.int64] = op_kit.strides_of(x.T)\n"
        "listed: npt.NDArray[np.float64] = op_kit.scale_rows([[1.0, 2.0, 3.0]], [1, 2, 3])\n"
        "labels: npt.NDArray[np.float32] = op_kit.one_hot([0, 2], 3)\n"
        "a: npt.NDArray[np.float32] = op_kit.activate(np.ones((2, 2), np.float32), op_kit.Activation.Tanh)\n"
        "b: npt.NDArray[np.float32] = op_kit.activate([[1.0]], 'sigmoid')\n"
    )
    bad = [
        "x: npt.NDArray[np.int64] = op_kit.one_hot(np.arange(3), 4)",  # the result is float32
        "y: npt.NDArray[np.float64] = op_kit.strides_of(np.ones((2, 2)))",  # the result is int64
        "op_kit.scale_rows(np.arange(6).reshape(2, 3), np.ones(3))",  # integers for float64
        "op_kit.one_hot(np.linspace(0, 1, 3), 2)",  # floats for int64
        "op_kit.scale_rows('x', np.ones(3))",
        "op_kit.scale_rows(3.0, np.ones(3))",  # a scalar is no tensor
        "op_kit.one_hot([0.5, 1.5], 2)",  # a sequence of floats for int64
        "op_kit.relu_([[1.0]])",  # in place takes an array
        "op_kit.scale_rows(np.ones((2, 3)), np.ones(3), y=[1.0])",  # an output is an array
        "op_kit.one_hot(np.arange(3), 4.5)",
        "op_kit.torch.scale_rows(np.ones((2, 3)), np.ones(3))",  # the torch namespace takes tensors
        "s: str = op_kit.ramp(3, 1.0)",
        "op_kit.activate(np.ones((2, 2), np.float32), 'gelu')",  # an enum scalar takes its names
        "op_kit.activate(np.ones((2, 2), np.float32), 1)",
    ]
    (tmp_path / "bad.py").write_text("import numpy as np\nimport numpy.typing as npt\nimport op_kit\n\n" + "\n".join(bad) + "\n")
    out = subprocess.run(
        mypy_command("good.py", "bad.py"),
        capture_output=True,
        text=True,
        env={"MYPYPATH": str(op_kit_dir), "PATH": "/usr/bin:/bin"},
        cwd=tmp_path,
    )
    errors = [line for line in out.stdout.splitlines() if ": error:" in line]
    assert all(line.startswith("bad.py:") for line in errors), out.stdout
    refused = {int(line.split(":")[1]) for line in errors}
    assert refused == set(range(5, 5 + len(bad))), out.stdout


def test_buffer_objects_are_numpy_arrays_over_their_memory(op_kit):
    """A memoryview, bytearray or array.array for an op's tensor is a numpy array over its
    memory with the buffer's own dtype, never cast (a bytearray is uint8 data); an in-place
    op writes the caller's buffer."""
    import array

    x = array.array("d", [1.0, 2.0, 3.0])
    y = op_kit.scale_rows(memoryview(x).cast("B").cast("d", (1, 3)), array.array("d", [2.0, 2.0, 2.0]))
    np.testing.assert_array_equal(y, [[2.0, 4.0, 6.0]])
    with pytest.raises(TypeError, match=r"argument `k` \(#1\) expected a tensor of dtype float64 and rank 1, got dtype uint8"):
        op_kit.scale_rows(np.ones((1, 3)), bytearray(np.ones(3).tobytes()))
    with pytest.raises(TypeError, match=r"argument `k` \(#1\) expected a tensor of dtype float64 and rank 1, got dtype int32"):
        op_kit.scale_rows(np.ones((1, 3)), array.array("i", [1, 2, 3]))
    data = bytearray(np.array([[-1.0, 2.0]], np.float32).tobytes())
    assert op_kit.relu_(memoryview(data).cast("f", (1, 2))) is None
    np.testing.assert_array_equal(np.frombuffer(data, np.float32), [0.0, 2.0])


def test_sequences_are_taken_as_arrays_of_the_ops_dtype(op_kit):
    """As rust-numpy's PyArrayLike: a list or tuple for an input tensor is a numpy array of
    the parameter's dtype, converting within numpy's same_kind rule (ints for floats; not
    floats for ints); anything else is a TypeError naming the function and the parameter."""
    y = op_kit.scale_rows([[1, 2, 3], (4, 5, 6)], [1.0, 2.0, 3.0])
    assert y.dtype == np.float64
    np.testing.assert_array_equal(y, [[1, 4, 9], [4, 10, 18]])
    # A list beside an array, in any position, and for an op with two inputs.
    np.testing.assert_array_equal(op_kit.scale_rows(np.ones((1, 3)), [1, 2, 3]), [[1, 2, 3]])
    np.testing.assert_array_equal(op_kit.matmul([[1.0, 2.0]], [[3.0], [4.0]]), [[11.0]])
    hot = op_kit.one_hot([2, 0], 3)
    assert hot.dtype == np.float32
    np.testing.assert_array_equal(hot, [[0, 0, 1], [1, 0, 0]])
    assert op_kit.one_hot([], 2).shape == (0, 2)
    cases = [
        (lambda: op_kit.scale_rows(3.0, [1.0]), r"^scale_rows: argument `x` \(#0\) expected Tensor\[f64, 2\]: an array \(numpy, torch or JAX\), or a sequence of numbers; got float$"),
        (lambda: op_kit.scale_rows(np.ones((1, 1)), "k"), r"^scale_rows: argument `k` \(#1\) expected Tensor\[f64, 1\].*; got str$"),
        (lambda: op_kit.scale_rows([[1.0, 2.0], [3.0]], [1.0, 2.0]), r"^scale_rows: argument `x` \(#0\) expected Tensor\[f64, 2\], got a list numpy cannot make an array of"),
        (lambda: op_kit.one_hot([0.5, 1.0], 2), r"^one_hot: argument `labels` \(#0\) expected Tensor\[i64, 1\], got a list of float64 data, which would not convert without changing kind$"),
        (lambda: op_kit.one_hot(["a"], 2), r"^one_hot: argument `labels` \(#0\) expected Tensor\[i64, 1\], got a list of <U1 data$"),
        (lambda: op_kit.relu_([[1.0]]), r"^relu_: argument `x` \(#0\) expected Tensor\[f32, 2\]: an array \(numpy, torch or JAX\), which the op writes in place; got list$"),
    ]
    for call, message in cases:
        with pytest.raises(TypeError, match=message):
            call()


def test_numpy_views_are_copied_for_compact_inputs_as_torch_views_are(op_kit):
    """A transposed, sliced or broadcast numpy view given for an input needing compact data
    is copied (as a torch view is); a StridedTensor input gets the view as it is; outputs
    and in-place arrays are never copied (the op would write the copy), so the export still
    refuses them."""
    x = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(op_kit.scale_rows(x.T, np.ones(2)), x.T)
    np.testing.assert_array_equal(op_kit.scale_rows(x[:, ::2], [1.0, 2.0]), x[:, ::2] * [1, 2])
    wide = np.broadcast_to(np.arange(3.0), (4, 3))  # read-only and zero-strided
    np.testing.assert_array_equal(op_kit.scale_rows(wide, [1.0, 1.0, 2.0]), wide * [1, 1, 2])
    np.testing.assert_array_equal(op_kit.scale_rows(np.ones((2, 3)), np.ones(6)[::2]), np.ones((2, 3)))
    np.testing.assert_array_equal(op_kit.minmax(np.ones((3, 2), np.float32).T)[0], [1, 1])
    assert op_kit.strides_of(x.T).tolist() == [1, 3]
    assert op_kit.strides_of(np.broadcast_to(np.ones(3), (2, 3))).tolist() == [0, 1]
    with pytest.raises(ValueError, match=r"argument `y` \(#2\) tensor is not contiguous"):
        op_kit.scale_rows(x, np.ones(3), y=np.empty((3, 2)).T)
    transposed = np.ones((3, 2), np.float32).T
    with pytest.raises(ValueError, match=r"^relu_\(.*argument `x` \(#0\) tensor is not contiguous"):
        op_kit.relu_(transposed)
    # The kernel's own ValueErrors pass as they came, with no retry.
    with pytest.raises(ValueError, match=r"`labels\[0\]` = 5 is outside 0\.\.2$"):
        op_kit.one_hot(np.array([5]), 2)


def test_a_description_the_export_disagrees_with_is_an_assertion(ops):
    """JAX's trace-time check relies on the export refusing what the description refuses:
    an export that takes an argument of another dtype than described is a bug in the
    package, named as such, not a silent pass."""
    params = [("x", "in", "float32", 1), ("y", "out", "float32", 1, "x")]
    lenient = ops.module.Ops("fake_kit").op("lenient", lambda *args: None, params)
    x = np.ones(3)  # float64, where the description says float32
    with pytest.raises(AssertionError, match="lenient: an argument's dtype, rank or kind differs from the description"):
        lenient._check_operands({0: x}, [x])


def test_the_guides_typed_example_is_what_the_stubs_say(op_kit_dir):
    """docs/guide/ops.md's `Types` section shows one_hot's overloads: each is in the stub."""
    text = (ROOT / "docs/guide/ops.md").read_text()
    section = text[text.index("### Types\n") :]
    block = section[section.index("```python\n") + len("```python\n") : section.index("```\n", section.index("```python\n") + 10)]
    stub = (op_kit_dir / "op_kit" / "__init__.pyi").read_text()
    shown = [line.split(": ...")[0] + ":" for line in block.splitlines() if line.startswith("def ")]
    assert len(shown) == 3 and block.count("@overload") == 3, block
    for line in shown:
        assert f"@overload\n{line}\n" in stub, line
