"""op-kit's ops from JAX 0.10.2 with jax-tvm-ffi 0.1.3 (CPU), through the package `abi stubs`
writes: the functional call on JAX arrays and `op_kit.jax.<op>` eagerly, under `jax.jit`
(scalars static, a traced one refused), `jax.vmap`, `jax.grad` through the backward kernel
(against JAX's own gradient of the same formula, and a numerical check), in place as a new
array, output buffers refused, and the kernels' errors arriving whole. Expected values come
from the same computation in numpy or jax.numpy. Runs in .venv-frameworks (scripts/test.sh's
framework step); skipped where JAX is absent."""

import subprocess
import sys

import numpy as np
import pytest

from conftest import framework

jax = framework("jax")
framework("jax_tvm_ffi")
jax.config.update("jax_enable_x64", True)  # the backward's kernels are float64
jnp = jax.numpy


@pytest.fixture(scope="module")
def op_kit(op_kit_package):
    return op_kit_package


def rand(*shape, dtype=np.float64, seed=0):
    return np.random.default_rng(seed + sum(shape)).standard_normal(shape).astype(dtype)


def close(got, want, exact=False):
    assert isinstance(got, jax.Array), type(got)
    assert got.dtype == np.asarray(want).dtype and got.shape == np.shape(want)
    if exact:
        np.testing.assert_array_equal(np.asarray(got), want)
    else:
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)


# -- Each op eagerly --------------------------------------------------------------------------


@pytest.mark.parametrize("entry", ["functional", "jax"])
def test_each_op_eagerly_from_jax(op_kit, entry):
    ops = op_kit if entry == "functional" else op_kit.jax
    x, k = rand(3, 4), rand(4, seed=1)
    close(ops.scale_rows(jnp.asarray(x), jnp.asarray(k)), x * k, exact=True)

    a, b = rand(2, 5, dtype=np.float32), rand(5, 3, dtype=np.float32, seed=2)
    close(ops.matmul(jnp.asarray(a), jnp.asarray(b)), a @ b)

    lo, hi = ops.minmax(jnp.asarray(a))
    close(lo, a.min(axis=1), exact=True)
    close(hi, a.max(axis=1), exact=True)

    dy = rand(3, 4, seed=3)
    dx, dk = ops.scale_rows_bwd(jnp.asarray(x), jnp.asarray(k), jnp.asarray(dy))
    close(dx, dy * k)
    close(dk, (dy * x).sum(axis=0))

    # In place: JAX arrays are immutable, the op returns a new one.
    r = jnp.asarray(rand(3, 2, dtype=np.float32, seed=4))
    before = np.asarray(r).copy()
    close(ops.relu_(r), np.maximum(before, 0), exact=True)
    np.testing.assert_array_equal(np.asarray(r), before)

    xs, acc = jnp.asarray(rand(5)), jnp.asarray(rand(5, seed=5))
    close(ops.axpy_(xs, 0.25, acc), np.asarray(acc) + 0.25 * np.asarray(xs))


# What each activation computes, in jax.numpy.
ACTIVATIONS = {"relu": lambda x: jnp.maximum(x, 0), "tanh": jnp.tanh, "sigmoid": jax.nn.sigmoid}

# The export's refusal of a name that is none of Activation's.
NOT_A_NAME = (
    "activate(x: Tensor[f32, 2], kind: Activation, y: Tensor[f32, 2]) -> None: argument `kind` (#1) "
    '"gelu" is not a name of Activation; it takes "relu", "tanh", "sigmoid"'
)


@pytest.mark.parametrize("entry", ["functional", "jax"])
def test_an_enum_scalar_as_a_member_or_its_name(op_kit, entry):
    """`activate(x, kind)`: the name is a string attribute of the call (a member of the
    package's class as its plain name), eagerly and under jax.jit, where it is static."""
    ops = op_kit if entry == "functional" else op_kit.jax
    x = jnp.asarray(rand(3, 4, dtype=np.float32))
    jitted = jax.jit(ops.activate, static_argnums=(1,))
    for member in op_kit.Activation:
        want = np.asarray(ACTIVATIONS[member.value](x))
        for kind in (member, member.value):
            close(ops.activate(x, kind), want)
            close(jitted(x, kind), want)
    text = jax.jit(op_kit.jax.activate, static_argnums=(1,)).lower(x, op_kit.Activation.Tanh).as_text()
    assert "op_kit.activate" in text and '"tanh"' in text, text
    xs = jnp.asarray(rand(2, 3, 4, dtype=np.float32))
    close(jax.vmap(lambda a: ops.activate(a, "tanh"))(xs), np.tanh(np.asarray(xs)))


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
def test_an_unknown_name_is_refused_while_tracing_with_the_exports_message(op_kit, jit):
    """Refused before XLA runs (where it would be INTERNAL), with the error numpy's call gets:
    the export's ValueError listing the names, or its TypeError for what is no string."""
    x = jnp.asarray(rand(2, 2, dtype=np.float32))
    fn = jax.jit(op_kit.jax.activate, static_argnums=(1,)) if jit else op_kit.jax.activate
    with pytest.raises(ValueError) as caught:
        fn(x, "gelu")
    assert str(caught.value) == NOT_A_NAME
    with pytest.raises(TypeError) as caught:
        fn(x, 1)
    assert str(caught.value) == numpy_message(op_kit, "activate", np.asarray(x), 1)
    assert "argument `kind` (#1) expected Activation, got int" in str(caught.value)


def test_grad_through_an_enum_scalar_matches_jax(op_kit):
    """The custom_vjp keeps the name as a non-differentiable argument, and activate_bwd gets
    it where its own scalar stands."""
    x = jnp.asarray(rand(3, 4, dtype=np.float32))
    for member in op_kit.Activation:
        want = jax.grad(lambda a: ACTIVATIONS[member.value](a).sum())(x)
        for kind in (member, member.value):
            got = jax.grad(lambda a: op_kit.jax.activate(a, kind).sum())(x)
            np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-6)
    got = jax.jit(jax.grad(lambda a: op_kit.activate(a, op_kit.Activation.Sigmoid).sum()))(x)
    np.testing.assert_allclose(np.asarray(got), np.asarray(jax.grad(lambda a: jax.nn.sigmoid(a).sum())(x)), rtol=1e-5, atol=1e-6)


def test_a_shape_from_scalars_under_jax(op_kit):
    close(op_kit.jax.ramp(5, 0.5), np.arange(5) * 0.5, exact=True)
    close(jax.jit(op_kit.jax.ramp, static_argnums=(0, 1))(3, 2.0), np.arange(3) * 2.0, exact=True)


def test_numpy_arrays_read_only_ones_too_given_to_the_jax_namespace(op_kit):
    x = np.frombuffer(rand(2, 3).tobytes()).reshape(2, 3)
    assert not x.flags.writeable
    k = rand(3, seed=1)
    close(op_kit.jax.scale_rows(x, k), x * k, exact=True)


# -- jit and vmap -----------------------------------------------------------------------------


def test_jit(op_kit):
    x, k = rand(3, 4), rand(4, seed=1)
    a, b = rand(3, 5, dtype=np.float32), rand(5, 2, dtype=np.float32, seed=2)

    @jax.jit
    def f(x, k, a, b):
        y = op_kit.scale_rows(jnp.sin(x), k) + 1  # the functional call on tracers
        c = op_kit.jax.matmul(a, b)
        lo, hi = op_kit.jax.minmax(c)
        return y, op_kit.jax.relu_(c), hi - lo, op_kit.jax.axpy_(k, 2.0, k)

    y, r, spread, z = f(x, k, a, b)
    close(y, np.sin(x) * k + 1)
    c = a @ b
    close(r, np.maximum(c, 0))
    close(spread, c.max(axis=1) - c.min(axis=1))
    close(z, 3 * k)
    text = f.lower(x, k, a, b).as_text()
    assert text.count("custom_call") >= 5 and "op_kit.scale_rows" in text


def test_a_traced_scalar_is_refused_with_a_message(op_kit):
    # Every scalar's position at once (ramp's two), not one per retry.
    with pytest.raises(TypeError, match=r"^ramp: `n` is a traced value.*`n`, `step`.*static_argnums=\(0, 1\)\)"):
        jax.jit(lambda n: op_kit.jax.ramp(n, 0.5))(4)
    x, y = jnp.ones(3), jnp.zeros(3)
    with pytest.raises(TypeError, match=r"^axpy_: `alpha` is a traced value.*static_argnums=\(1,\)\)"):
        jax.jit(op_kit.jax.axpy_)(x, 2.0, y)
    close(jax.jit(op_kit.jax.axpy_, static_argnums=1)(x, 2.0, y), np.full(3, 2.0), exact=True)


def test_a_traced_scalar_of_an_op_with_a_backward_is_refused_and_static_argnums_works(op_kit):
    """Checked before the custom_vjp (whose nondiff_argnums would raise JAX's
    UnexpectedTracerError); the message names the argument's index for static_argnums, which
    `op_kit.jax.<op>(*args)` takes (static_argnames would not)."""
    x = jnp.asarray(rand(4))
    with pytest.raises(TypeError, match=r"^quad: `a` is a traced value.*jax\.jit\(f, static_argnums=\(1,\)\)"):
        jax.jit(op_kit.jax.quad)(x, 1.5)
    with pytest.raises(TypeError, match=r"^power: `n` is a traced value.*static_argnums=\(1, 2\)"):
        jax.jit(lambda n: op_kit.jax.power(x, 0.5, n))(3)
    close(jax.jit(op_kit.jax.quad, static_argnums=(1,))(x, 1.5), 1.5 * np.asarray(x) ** 2)
    close(jax.jit(op_kit.jax.power, static_argnums=(1, 2))(x, 0.5, 3), 0.5 * np.asarray(x) ** 3)
    # vmap over a scalar: the same message, with or without a backward.
    for f, args, axes in ((op_kit.jax.quad, (x, jnp.arange(2.0)), (None, 0)), (op_kit.jax.ramp, (jnp.arange(3), 0.5), (0, None))):
        with pytest.raises(TypeError, match=r"is a traced value.*static_argnums=\((1,|0, 1)\)"):
            jax.vmap(f, in_axes=axes)(*args)


def test_vmap(op_kit):
    xs, k = rand(5, 3, 4), rand(4, seed=1)
    close(jax.vmap(op_kit.jax.scale_rows, in_axes=(0, None))(xs, k), xs * k, exact=True)
    close(jax.jit(jax.vmap(op_kit.scale_rows, in_axes=(0, None)))(xs, k), xs * k, exact=True)
    rs = rand(4, 2, 3, dtype=np.float32, seed=2)
    close(jax.vmap(op_kit.jax.relu_)(rs), np.maximum(rs, 0), exact=True)
    lo, hi = jax.vmap(op_kit.jax.minmax)(rs)
    close(lo, rs.min(axis=2), exact=True)
    close(hi, rs.max(axis=2), exact=True)
    ks = rand(5, 4, seed=3)
    close(jax.vmap(op_kit.jax.scale_rows)(xs, ks), xs * ks[:, None, :], exact=True)


# -- Gradients ---------------------------------------------------------------------------------


def test_grad_matches_jax_on_the_same_formula(op_kit):
    x, k, w = jnp.asarray(rand(3, 4)), jnp.asarray(rand(4, seed=1)), jnp.asarray(rand(3, 4, seed=2))

    def loss(scale):
        return lambda x, k: jnp.sum(jnp.tanh(scale(x, k)) * w)

    want = jax.grad(loss(lambda x, k: x * k), argnums=(0, 1))(x, k)
    for scale in (op_kit.jax.scale_rows, op_kit.scale_rows):
        for transform in (lambda f: f, jax.jit):
            got = transform(jax.grad(loss(scale), argnums=(0, 1)))(x, k)
            for g, r in zip(got, want):
                close(g, np.asarray(r))


def test_grad_of_ops_whose_scalars_stand_between_or_after_the_tensors(op_kit):
    """The backward is called in its own parameter order: `quad_bwd(x, dy, a, dx)` (its
    scalar between inputs and outputs), `power_bwd(x, dy, dx, a, n)` (after the outputs)."""
    from jax.test_util import check_grads

    x = jnp.asarray(rand(5))
    for transform in (lambda f: f, jax.jit):
        got = transform(jax.grad(lambda x: op_kit.jax.quad(x, 1.5).sum()))(x)
        close(got, np.asarray(jax.grad(lambda x: (1.5 * x * x).sum())(x)))
        got = transform(jax.grad(lambda x: op_kit.power(x, 0.5, 3).sum()))(x)
        close(got, np.asarray(jax.grad(lambda x: (0.5 * x**3).sum())(x)))
    check_grads(lambda x: op_kit.jax.quad(x, 1.5), (x,), order=1, modes=("rev",))
    check_grads(lambda x: op_kit.jax.power(x, 0.5, 3), (x,), order=1, modes=("rev",))


def test_grad_under_vmap_and_a_numerical_check(op_kit):
    from jax.test_util import check_grads

    x, k = jnp.asarray(rand(3, 4)), jnp.asarray(rand(4, seed=1))
    check_grads(op_kit.jax.scale_rows, (x, k), order=1, modes=("rev",))
    xs = jnp.asarray(rand(2, 3, 4, seed=3))
    got = jax.vmap(jax.grad(lambda x: op_kit.jax.scale_rows(x, k).sum()))(xs)
    close(got, np.broadcast_to(np.asarray(k), xs.shape))


# -- Refusals and errors ---------------------------------------------------------------------


def test_output_buffers_are_refused_under_jax(op_kit):
    x = jnp.ones((2, 2))
    with pytest.raises(ValueError, match=r"^scale_rows: JAX arrays are immutable, so no output buffer can be given \(`y=`\)"):
        op_kit.scale_rows(x, jnp.ones(2), y=jnp.zeros((2, 2)))


def test_a_jax_array_is_never_written_in_place_behind_jax(op_kit):
    buf = jnp.zeros((2, 2))
    with pytest.raises(ValueError, match=r"^scale_rows: `y` is written by the op and a JAX array cannot be .*op_kit\.jax\.scale_rows"):
        op_kit.scale_rows(np.ones((2, 2)), np.ones(2), y=buf)
    y = jnp.zeros(3)
    with pytest.raises(ValueError, match=r"^axpy_: `y` is written by the op and a JAX array cannot be"):
        op_kit.axpy_(np.ones(3), 2.0, y)
    np.testing.assert_array_equal(np.asarray(buf), np.zeros((2, 2)))
    np.testing.assert_array_equal(np.asarray(y), np.zeros(3))


def numpy_message(op_kit, name, *args):
    """What the same call says from numpy: the message JAX must carry whole."""
    with pytest.raises(TypeError) as caught:
        getattr(op_kit, name)(*args)
    return str(caught.value)


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
@pytest.mark.parametrize(
    "name,bad,param",
    [
        ("scale_rows", lambda: (rand(2, 3, dtype=np.float32), rand(3)), "x"),  # dtype
        ("scale_rows", lambda: (rand(2, 3), rand(3, 1)), "k"),  # rank
        ("matmul", lambda: (rand(2, 3, dtype=np.float32), rand(3, dtype=np.float32)), "b"),  # rank
        ("relu_", lambda: (rand(2, 2),), "x"),  # dtype, in place (the JAX-order entry)
        ("minmax", lambda: (rand(2, 2),), "x"),  # dtype, two outputs
    ],
)
def test_dtype_and_rank_errors_arrive_whole(op_kit, jit, name, bad, param):
    """Refused while tracing, with the kind and the whole message numpy's call gets (under
    XLA a kernel's error would be INTERNAL, and a kernel whose results are all empty, as
    matmul's here, is never called). In-place ops name the op, not its JAX-order entry."""
    args = bad()
    message = numpy_message(op_kit, name, *args)
    assert message.startswith(f"{name}(") and f"argument `{param}`" in message, message
    fn = getattr(op_kit.jax, name)
    with pytest.raises(TypeError) as caught:
        out = (jax.jit(fn) if jit else fn)(*(jnp.asarray(a) for a in args))
        jax.block_until_ready(out)
    assert str(caught.value).split("\n")[0] == message, str(caught.value)


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
@pytest.mark.parametrize(
    "name,args,param",
    [
        ("ramp", (2.7, 0.5), "n"),  # a float for an int: not truncated to 2 rows
        ("ramp", (jnp.float64(3.0), 0.5), "n"),  # a JAX float for an int
        ("ramp", ("3", 0.5), "n"),
        ("ramp", (3, "0.5"), "step"),
        ("power", (jnp.ones(3), 0.5, 2.0), "n"),  # an op with a backward (its custom_vjp)
    ],
)
def test_a_scalar_of_the_wrong_kind_gets_the_exports_message(op_kit, jit, name, args, param):
    scalar = [not isinstance(a, jax.Array) or not a.ndim for a in args]
    if jit and any(isinstance(a, jax.Array) and s for a, s in zip(args, scalar)):
        pytest.skip("a JAX array is traced under jit, and refused as such")
    # numpy's call: a JAX array as numpy's, a 0-d one as its Python value.
    message = numpy_message(op_kit, name, *(a.item() if s and isinstance(a, jax.Array) else np.asarray(a) if not s else a for a, s in zip(args, scalar)))
    assert f"argument `{param}`" in message and message.startswith(f"{name}("), message
    fn = getattr(op_kit.jax, name)
    if jit:
        fn = jax.jit(fn, static_argnums=tuple(i for i, s in enumerate(scalar) if s))
    with pytest.raises(TypeError) as caught:
        fn(*args)
    assert str(caught.value) == message


def test_scalars_of_the_kinds_the_export_takes(op_kit):
    close(op_kit.jax.ramp(np.int64(3), 1), np.arange(3.0), exact=True)
    close(op_kit.jax.ramp(jnp.int32(2), np.float32(0.5)), np.arange(2) * 0.5, exact=True)
    close(op_kit.jax.ramp(True, 2.0), np.zeros(1), exact=True)


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
def test_a_kernel_error_arrives_whole_through_xla(op_kit, jit):
    """An error the kernel's body raises (here matmul's inner dimensions) comes back from
    XLA as INTERNAL, carrying the kernel's whole message."""
    a, b = rand(2, 3, dtype=np.float32), rand(4, 5, dtype=np.float32)
    with pytest.raises(ValueError) as numpy_error:
        op_kit.matmul(a, b)
    fn = jax.jit(op_kit.jax.matmul) if jit else op_kit.jax.matmul
    with pytest.raises(jax.errors.JaxRuntimeError) as caught:
        jax.block_until_ready(fn(jnp.asarray(a), jnp.asarray(b)))
    assert str(numpy_error.value) in str(caught.value), str(caught.value)


def test_without_x64_a_64_bit_parameter_says_to_enable_it(op_kit_package_dir):
    """JAX makes int64 and float64 data 32-bit unless its x64 mode is on (numpy's, and
    `.astype(jnp.int64)`, included; it only warns): the export's refusal says so, for
    integers as for floats, and a 64-bit output is refused before XLA runs."""
    code = (
        "import warnings; warnings.simplefilter('ignore')\n"
        "import jax, jax.numpy as jnp, numpy as np, op_kit\n"
        "print(op_kit.one_hot(np.array([0, 1]), 2).dtype)\n"  # numpy's own call: no JAX, no x64 needed
        "for call in (lambda: op_kit.one_hot(jnp.asarray(np.array([0, 1])), 2),\n"
        "             lambda: jax.jit(op_kit.jax.one_hot, static_argnums=1)(jnp.arange(2).astype(jnp.int64), 2),\n"
        "             lambda: op_kit.scale_rows(jnp.ones((2, 3)), jnp.ones(3)),\n"
        "             lambda: op_kit.jax.ramp(3, 0.5)):\n"
        "    try:\n"
        "        call()\n"
        "    except TypeError as e:\n"
        "        print(repr(str(e)))\n"
    )
    env = {"PYTHONPATH": str(op_kit_package_dir), "JAX_PLATFORMS": "cpu", "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    first, *rest = out.stdout.splitlines()
    assert first == "float32", out.stdout
    lines = [eval(line) for line in rest]
    assert len(lines) == 4, out.stdout + out.stderr
    hint = 'unless its x64 mode is on: jax.config.update("jax_enable_x64", True) at startup, or JAX_ENABLE_X64=1 in the environment'
    for message, name, param, dtype in zip(lines, ["one_hot", "one_hot", "scale_rows"], ["labels", "labels", "x"], ["int64", "int64", "float64"]):
        first, second = message.split("\n")
        assert first.startswith(f"{name}(") and f"argument `{param}`" in first, message
        assert second == f"`{param}` takes {dtype}, and JAX makes {dtype} arrays {dtype.replace('64', '32')} {hint}", message
    assert lines[3] == f"ramp: its output `y` is float64, and JAX makes float64 arrays float32 {hint}"


@pytest.fixture(scope="module")
def tensor_kit(tensor_kit_package):
    return tensor_kit_package


def test_a_plain_export_under_jit_says_only_ops_run_there(tensor_kit):
    x = jnp.ones((2, 3), jnp.float32)
    assert tensor_kit.half_sum(jnp.ones(4, jnp.float16)) == 4.0  # eager: the array's data crosses
    with pytest.raises(TypeError) as caught:
        jax.jit(tensor_kit.scale_rows)(x, jnp.ones(3, jnp.float32))
    assert str(caught.value) == (
        "scale_rows: only ops run under jax.jit, jax.vmap and jax.grad (a traced array holds no data to hand over), "
        "and scale_rows is a plain export: call it outside them, or its author can make it an op with #[export_fn(op)]"
    )
    assert caught.value.__suppress_context__
    with pytest.raises(TypeError, match=r"^half_sum: only ops run under jax\.jit, jax\.vmap and jax\.grad"):
        jax.vmap(tensor_kit.half_sum)(jnp.ones((2, 4), jnp.float16))


def test_the_jax_namespace_takes_sequences_and_refuses_output_keywords(op_kit):
    close(op_kit.jax.quad([1.0, 2.0], 3.0), np.array([3.0, 12.0]))
    close(op_kit.jax.one_hot((1, 0), 2), np.array([[0, 1], [1, 0]], np.float32))
    with pytest.raises(ValueError, match=r"^quad: JAX arrays are immutable, so no output buffer can be given \(`y=`\)"):
        op_kit.jax.quad(jnp.ones(2), 1.0, y=jnp.ones(2))
    with pytest.raises(TypeError, match=r"^quad\(\) got an unexpected keyword argument 'z'$"):
        op_kit.jax.quad(jnp.ones(2), 1.0, z=1)
    with pytest.raises(TypeError, match=r"^quad: argument `x` \(#0\) expected Tensor\[f64, 1\].*; got str$"):
        op_kit.jax.quad("x", 1.0)
