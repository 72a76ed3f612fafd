"""op-kit's ops from PyTorch 2.15 (CPU), through the package `abi stubs` writes: the
functional call on torch tensors, `op_kit.torch.<op>` (custom ops: eager, given outputs,
`torch.compile(fullgraph=True)` with aot_eager and inductor, `torch.library.opcheck`,
autograd from the backward kernel against torch's own gradient), and the errors naming the
function and the parameter. Expected values come from the same computation in torch.
Runs in .venv-frameworks (scripts/test.sh's framework step); skipped where torch or JAX is
absent."""

import numpy as np
import pytest

from conftest import DOOR_FORCED_OFF, framework, needs_door

torch = framework("torch")
# JAX imported too, as where a process uses both: the package's checks for JAX arrays must
# not trip Dynamo (isinstance(tensor, jax.Array) is a graph break under fullgraph=True).
framework("jax")


@pytest.fixture(scope="module")
def op_kit(op_kit_package):
    return op_kit_package


def rand(*shape, dtype=torch.float64, seed=0):
    g = torch.Generator().manual_seed(seed + sum(shape))
    return torch.randn(*shape, generator=g, dtype=torch.float64).to(dtype)


def test_the_torch_namespace_defines_every_op_once(op_kit):
    ops = op_kit.torch
    for name in ["scale_rows", "scale_rows_bwd", "relu_", "axpy_", "matmul", "ramp", "minmax", "activate"]:
        assert hasattr(torch.ops.op_kit, name), name
    # Outputs given under torch are a second op (custom_op defines one overload).
    assert hasattr(torch.ops.op_kit, "scale_rows_out") and not hasattr(torch.ops.op_kit, "relu__out")
    assert op_kit.torch is ops and op_kit.torch.scale_rows is ops.scale_rows
    assert "Tensor(a!) x" in str(torch.ops.op_kit.relu_.default._schema)
    # An enum scalar is a string in the schema.
    assert str(torch.ops.op_kit.activate.default._schema) == "op_kit::activate(Tensor x, str kind) -> Tensor"


# -- Each op eagerly, functional call and custom op ------------------------------------------


@pytest.mark.parametrize("entry", ["functional", "custom_op"])
def test_each_op_eagerly_from_torch(op_kit, entry):
    ops = op_kit if entry == "functional" else op_kit.torch
    x, k = rand(3, 4), rand(4, seed=1)
    y = ops.scale_rows(x, k)
    assert type(y) is torch.Tensor and y.dtype == torch.float64 and y.device == x.device
    torch.testing.assert_close(y, x * k, rtol=0, atol=0)

    a, b = rand(2, 5, dtype=torch.float32), rand(5, 3, dtype=torch.float32, seed=2)
    c = ops.matmul(a, b)
    assert c.shape == (2, 3) and c.dtype == torch.float32
    torch.testing.assert_close(c, a @ b)

    lo, hi = ops.minmax(a)
    torch.testing.assert_close(lo, a.amin(dim=1), rtol=0, atol=0)
    torch.testing.assert_close(hi, a.amax(dim=1), rtol=0, atol=0)

    dy = rand(3, 4, seed=3)
    dx, dk = ops.scale_rows_bwd(x, k, dy)
    torch.testing.assert_close(dx, dy * k)
    torch.testing.assert_close(dk, (dy * x).sum(dim=0))

    r = rand(3, 2, dtype=torch.float32, seed=4)
    want = r.clamp(min=0)
    assert ops.relu_(r) is None
    torch.testing.assert_close(r, want, rtol=0, atol=0)

    xs, acc = rand(5), rand(5, seed=5)
    want = acc + 0.25 * xs
    assert ops.axpy_(xs, 0.25, acc) is None
    torch.testing.assert_close(acc, want)


# What each activation computes, in torch.
ACTIVATIONS = {"relu": torch.relu, "tanh": torch.tanh, "sigmoid": torch.sigmoid}

# The export's refusal of a name that is none of Activation's.
NOT_A_NAME = (
    "activate(x: Tensor[f32, 2], kind: Activation, y: Tensor[f32, 2]) -> None: argument `kind` (#1) "
    '"gelu" is not a name of Activation; it takes "relu", "tanh", "sigmoid"'
)


@pytest.mark.parametrize("entry", ["functional", "custom_op"])
def test_an_enum_scalar_as_a_member_or_its_name(op_kit, entry):
    """`activate(x, kind)`: the custom op's `str` carries the name, a member of the package's
    class handed on as its plain name; an unknown name is the export's ValueError."""
    ops = op_kit if entry == "functional" else op_kit.torch
    x = rand(3, 4, dtype=torch.float32)
    for member in op_kit.Activation:
        want = ACTIVATIONS[member.value](x)
        for kind in (member, member.value):
            y = ops.activate(x, kind)
            assert type(y) is torch.Tensor and y.dtype == torch.float32
            torch.testing.assert_close(y, want)
    with pytest.raises(ValueError) as caught:
        ops.activate(x, "gelu")
    assert str(caught.value) == NOT_A_NAME
    with pytest.raises(ValueError) as caught:
        ops.activate(x.requires_grad_(), "gelu")  # through the custom op, for autograd
    assert str(caught.value) == NOT_A_NAME


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_an_enum_scalar_under_torch_compile(op_kit, backend):
    """One graph with the op in it, the name a constant of the call; an unknown name is the
    export's ValueError when the compiled function runs."""
    torch._dynamo.reset()
    graphs = []

    def count(gm, example_inputs):
        graphs.append(gm)
        return torch._dynamo.backends.registry.lookup_backend(backend)(gm, example_inputs)

    def f(x):
        return op_kit.torch.activate(x, op_kit.Activation.Tanh) + op_kit.activate(x, "sigmoid")

    x = rand(3, 4, dtype=torch.float32)
    got = torch.compile(f, fullgraph=True, backend=count)(x)
    torch.testing.assert_close(got, torch.tanh(x) + torch.sigmoid(x))
    assert len(graphs) == 1
    called = [str(n.target) for n in graphs[0].graph.nodes if n.op == "call_function"]
    assert called.count("op_kit.activate.default") == 2, called
    with pytest.raises(ValueError) as caught:
        torch.compile(lambda x: op_kit.torch.activate(x, "gelu"), fullgraph=True, backend=backend)(x)
    assert str(caught.value) == NOT_A_NAME


def test_gradients_through_an_enum_scalar_match_torch(op_kit):
    """activate_bwd gets the forward's name (its scalar), eagerly and under torch.compile."""
    torch._dynamo.reset()
    x = rand(3, 4, dtype=torch.float32).requires_grad_()
    w = rand(3, 4, dtype=torch.float32, seed=1)
    for member in op_kit.Activation:
        for kind in (member, member.value):
            want = torch.autograd.grad((ACTIVATIONS[member.value](x) * w).sum(), x)[0]
            got = torch.autograd.grad((op_kit.activate(x, kind) * w).sum(), x)[0]
            torch.testing.assert_close(got, want)
    compiled = torch.compile(lambda x: (op_kit.torch.activate(x, op_kit.Activation.Sigmoid) * w).sum(), fullgraph=True, backend="aot_eager")
    torch.testing.assert_close(torch.autograd.grad(compiled(x), x)[0], torch.autograd.grad((torch.sigmoid(x) * w).sum(), x)[0])


def test_a_shape_from_scalars_under_torch(op_kit):
    y = op_kit.torch.ramp(5, 0.5)
    assert type(y) is torch.Tensor and y.dtype == torch.float64
    torch.testing.assert_close(y, torch.arange(5, dtype=torch.float64) * 0.5)
    with pytest.raises(ValueError, match=r"ramp: output `y` would have -2 elements"):
        op_kit.torch.ramp(-2, 1.0)


def test_an_offset_slice_is_read_where_it_starts(op_kit):
    base = rand(4, 3)
    x = base[1:3]
    torch.testing.assert_close(op_kit.torch.scale_rows(x, base[0]), x * base[0], rtol=0, atol=0)


@pytest.mark.parametrize("entry", ["functional", "custom_op", "compiled"])
def test_non_contiguous_inputs_are_made_contiguous_and_strided_ones_passed_as_they_are(op_kit, entry):
    """Views of another layout (`t()`, `expand`) are copied for parameters needing compact
    data; a `StridedTensor` parameter gets the view itself (its strides, not a copy's)."""
    ops = op_kit if entry == "functional" else op_kit.torch
    if entry == "compiled":
        torch._dynamo.reset()
        ops = type("Compiled", (), {n: staticmethod(torch.compile(getattr(op_kit.torch, n), fullgraph=True, backend="aot_eager")) for n in ("scale_rows", "matmul", "strides_of")})
    x = rand(4, 3)
    k = torch.full((1,), 2.0, dtype=torch.float64).expand(4)
    assert not x.t().is_contiguous() and k.stride() == (0,)
    torch.testing.assert_close(ops.scale_rows(x.t(), k), x.t() * 2.0, rtol=0, atol=0)
    a, b = rand(3, 2, dtype=torch.float32), rand(3, 5, dtype=torch.float32, seed=1)
    torch.testing.assert_close(ops.matmul(a.t(), b), a.t() @ b)
    assert ops.strides_of(x.t()).tolist() == [1, 3]
    assert ops.strides_of(x).tolist() == [3, 1]


@pytest.mark.parametrize("entry", ["functional", "custom_op"])
def test_non_contiguous_outputs_and_in_place_tensors_are_still_refused(op_kit, entry):
    """The op would write a copy: a given output or an in-place tensor must be compact."""
    ops = op_kit if entry == "functional" else op_kit.torch
    x, k = rand(2, 3), rand(3, seed=1)
    buf = torch.zeros(3, 2, dtype=torch.float64).t()
    with pytest.raises(Exception, match=r"`y`"):
        ops.scale_rows(x, k, y=buf)
    assert bool((buf == 0).all())
    r = rand(3, 2, dtype=torch.float32)
    before = r.clone()
    with pytest.raises(Exception, match=r"`x`"):
        ops.relu_(r.t())
    torch.testing.assert_close(r, before, rtol=0, atol=0)


# -- Given outputs ------------------------------------------------------------------------


@pytest.mark.parametrize("entry", ["functional", "custom_op"])
def test_given_outputs_are_written_and_returned(op_kit, entry):
    ops = op_kit if entry == "functional" else op_kit.torch
    x, k = rand(2, 3), rand(3, seed=1)
    buf = torch.full((2, 3), float("nan"), dtype=torch.float64)
    assert ops.scale_rows(x, k, y=buf) is buf
    torch.testing.assert_close(buf, x * k, rtol=0, atol=0)

    a = rand(3, 4, dtype=torch.float32)
    lo = torch.zeros(3)
    got_lo, hi = ops.minmax(a, lo=lo)
    assert got_lo is lo
    torch.testing.assert_close(lo, a.amin(dim=1), rtol=0, atol=0)
    torch.testing.assert_close(hi, a.amax(dim=1), rtol=0, atol=0)


def test_an_unknown_output_keyword_is_refused(op_kit):
    x = rand(2, 2)
    with pytest.raises(TypeError, match=r"scale_rows\(\) got an unexpected keyword argument 'z'"):
        op_kit.torch.scale_rows(x, rand(2), z=x)


# -- torch.compile --------------------------------------------------------------------------


def model(op_kit, x, k, a, b, r):
    """Every form of op, through the functional call and the namespace."""
    y = op_kit.scale_rows(x, k)
    c = op_kit.torch.matmul(a, b) * 2
    lo, hi = op_kit.minmax(c)
    r = r + 1
    op_kit.torch.relu_(r)
    z = op_kit.torch.ramp(x.shape[1], 0.5)
    buf = torch.empty_like(y)
    op_kit.torch.scale_rows(y, k, y=buf)
    return y.sum(dim=0) + z, c, lo, hi, r, buf


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_torch_compile_fullgraph(op_kit, backend):
    torch._dynamo.reset()
    args = (rand(3, 4), rand(4, seed=1), rand(3, 5, dtype=torch.float32), rand(5, 2, dtype=torch.float32), rand(3, 3, dtype=torch.float32))
    graphs = []

    def count(gm, example_inputs):
        graphs.append(gm)
        return torch._dynamo.backends.registry.lookup_backend(backend)(gm, example_inputs)

    compiled = torch.compile(lambda *a: model(op_kit, *a), fullgraph=True, backend=count)
    got = compiled(*(t.clone() for t in args))
    want = model(op_kit, *(t.clone() for t in args))
    assert len(graphs) == 1
    called = {str(n.target) for n in graphs[0].graph.nodes if n.op == "call_function"}
    assert {"op_kit.scale_rows.default", "op_kit.matmul.default", "op_kit.relu_.default", "op_kit.scale_rows_out.default"} <= called, called
    for g, w in zip(got, want):
        torch.testing.assert_close(g, w)
    # The reference computed by torch itself.
    x, k, a, b, r = args
    torch.testing.assert_close(got[0], (x * k).sum(dim=0) + torch.arange(4, dtype=torch.float64) * 0.5)
    torch.testing.assert_close(got[4], (r + 1).clamp(min=0))
    torch.testing.assert_close(got[5], x * k * k)


def test_backward_under_torch_compile(op_kit):
    torch._dynamo.reset()
    x, k = rand(3, 4).requires_grad_(), rand(4, seed=1).requires_grad_()
    w = rand(4, 3, seed=2)

    def loss(x, k):
        return (op_kit.scale_rows(x, k) * w.t()).sum()

    gx, gk = torch.autograd.grad(torch.compile(loss, fullgraph=True, backend="aot_eager")(x, k), (x, k))
    rx, rk = torch.autograd.grad((x * k * w.t()).sum(), (x, k))
    torch.testing.assert_close(gx, rx)
    torch.testing.assert_close(gk, rk)


# -- opcheck ---------------------------------------------------------------------------------


def opcheck_cases():
    x, k = rand(3, 4), rand(4, seed=1)
    a, b = rand(2, 3, dtype=torch.float32), rand(3, 4, dtype=torch.float32)
    return [
        ("scale_rows", (x.clone().requires_grad_(), k.clone().requires_grad_())),
        ("scale_rows", (x, k)),
        ("scale_rows_out", (x, k, torch.empty(3, 4, dtype=torch.float64))),
        ("scale_rows_bwd", (x, k, rand(3, 4, seed=2))),
        ("matmul", (a, b)),
        ("minmax", (a,)),
        ("minmax_out", (a, torch.empty(2), torch.empty(2))),
        ("ramp", (6, 0.25)),
        ("relu_", (rand(3, 3, dtype=torch.float32),)),
        ("axpy_", (rand(4), -1.5, rand(4, seed=3))),
        ("activate", (rand(3, 4, dtype=torch.float32).requires_grad_(), "tanh")),
        ("activate_out", (a, "sigmoid", torch.empty(2, 3))),
    ]


@pytest.mark.parametrize("name,args", opcheck_cases(), ids=[f"{i}-{c[0]}" for i, c in enumerate(opcheck_cases())])
def test_opcheck(op_kit, name, args):
    op_kit.torch  # defines the ops
    torch.library.opcheck(getattr(torch.ops.op_kit, name).default, args)


# -- Autograd ------------------------------------------------------------------------------


def test_gradcheck(op_kit):
    x, k = rand(3, 4).requires_grad_(), rand(4, seed=1).requires_grad_()
    assert torch.autograd.gradcheck(op_kit.torch.scale_rows, (x, k))
    assert torch.autograd.gradcheck(op_kit.scale_rows, (x, k))


def test_gradients_match_torch_and_strided_gradients_are_made_contiguous(op_kit):
    x, k = rand(4, 3).requires_grad_(), rand(3, seed=1).requires_grad_()
    w = rand(3, 4, seed=2)
    # `.t()` hands the backward a transposed gradient, `.sum()` an expanded one (stride 0).
    for upstream in (lambda y: (y.t() * w).sum(), lambda y: y.sum()):
        got = torch.autograd.grad(upstream(op_kit.scale_rows(x, k)), (x, k))
        want = torch.autograd.grad(upstream(x * k), (x, k))
        for g, r in zip(got, want):
            torch.testing.assert_close(g, r)
    y = op_kit.scale_rows(x, k)
    assert y.grad_fn is not None and y.requires_grad


def test_gradients_of_ops_whose_scalars_stand_between_or_after_the_tensors(op_kit):
    """The backward is called in its own parameter order: `quad_bwd(x, dy, a, dx)` (its
    scalar between inputs and outputs), `power_bwd(x, dy, dx, a, n)` (after the outputs)."""
    x = rand(5).requires_grad_()
    for entry in (op_kit, op_kit.torch):
        assert torch.autograd.gradcheck(lambda x: entry.quad(x, 1.5), (x,))
        assert torch.autograd.gradcheck(lambda x: entry.power(x, 0.5, 3), (x,))
    got = torch.autograd.grad(op_kit.quad(x, 1.5).sum(), x)[0]
    torch.testing.assert_close(got, torch.autograd.grad((1.5 * x * x).sum(), x)[0])
    got = torch.autograd.grad(op_kit.power(x, 0.5, 3).sum(), x)[0]
    torch.testing.assert_close(got, torch.autograd.grad((0.5 * x**3).sum(), x)[0])


def test_no_autograd_without_a_backward(op_kit):
    a = rand(2, 2, dtype=torch.float32).requires_grad_()
    c = op_kit.matmul(a, rand(2, 2, dtype=torch.float32))
    with pytest.raises(RuntimeError, match=r"(?i)autograd"):
        c.sum().backward()


@pytest.mark.parametrize("entry", ["functional", "custom_op"])
def test_writing_in_place_or_into_given_outputs_is_refused_under_autograd(op_kit, entry):
    """Nothing differentiates an in-place op or an out-variant: a tensor requiring grad there
    would get a gradient as if the op never ran (or a leaf be mutated behind autograd)."""
    ops = op_kit if entry == "functional" else op_kit.torch
    x = rand(2, 3, dtype=torch.float32).requires_grad_()
    y = x * 2
    before = y.detach().clone()
    with pytest.raises(RuntimeError, match=r"^relu_: `x` requires grad, but relu_ has no backward: an in-place op cannot have one"):
        ops.relu_(y)
    with pytest.raises(RuntimeError, match=r"^relu_: `x` requires grad"):
        ops.relu_(x)
    torch.testing.assert_close(y.detach(), before, rtol=0, atol=0)
    xs = rand(4).requires_grad_()
    with pytest.raises(RuntimeError, match=r"^axpy_: `x` requires grad, but axpy_ has no backward"):
        ops.axpy_(xs, 2.0, rand(4, seed=1))
    k = rand(3, seed=1).requires_grad_()
    with pytest.raises(RuntimeError, match=r"^scale_rows: `k` requires grad, but writing into given outputs \(`y=`\) has no backward"):
        ops.scale_rows(rand(2, 3), k, y=torch.empty(2, 3, dtype=torch.float64))
    # Without grad mode, or on tensors that need none, they run.
    with torch.no_grad():
        assert ops.relu_(y) is None
        ops.scale_rows(rand(2, 3), k, y=torch.empty(2, 3, dtype=torch.float64))
    torch.testing.assert_close(y.detach(), before.clamp(min=0), rtol=0, atol=0)
    r = y.detach()
    assert ops.relu_(r) is None


def test_in_place_under_autograd_is_refused_inside_torch_compile_too(op_kit):
    torch._dynamo.reset()

    def f(y):
        op_kit.torch.relu_(y)
        return y * 1

    compiled = torch.compile(f, fullgraph=True, backend="aot_eager")
    x = rand(2, 2, dtype=torch.float32).requires_grad_()
    with pytest.raises(RuntimeError, match=r"relu_: `x` requires grad, but relu_ has no backward"):
        compiled(x * 2)
    with torch.no_grad():
        torch.testing.assert_close(compiled(x * 2), (x * 2).clamp(min=0))
    torch.testing.assert_close(compiled(x.detach() - 1), (x.detach() - 1).clamp(min=0))


# -- Errors ------------------------------------------------------------------------------------


def numpy_message(op_kit, name, *args):
    """What the same call says from numpy: the error every framework must keep."""
    with pytest.raises(Exception) as caught:
        getattr(op_kit, name)(*(a.detach().numpy() if isinstance(a, torch.Tensor) else a for a in args))
    return caught.type, str(caught.value)


@pytest.mark.parametrize("entry", ["functional", "custom_op"])
@pytest.mark.parametrize(
    "name,bad,param",
    [
        ("scale_rows", lambda: (rand(2, 3, dtype=torch.float32), rand(3)), "x"),  # dtype
        ("scale_rows", lambda: (rand(2, 3), rand(3, 1)), "k"),  # rank
        ("matmul", lambda: (rand(2, 3, dtype=torch.float32), rand(3, dtype=torch.float32)), "b"),  # rank
        ("relu_", lambda: (rand(2, 2),), "x"),  # dtype, in place
    ],
)
def test_dtype_and_rank_errors_name_the_function_and_parameter(op_kit, entry, name, bad, param):
    args = bad()
    kind, message = numpy_message(op_kit, name, *args)
    assert kind is TypeError and message.startswith(f"{name}(") and f"argument `{param}`" in message, message
    ops = op_kit if entry == "functional" else op_kit.torch
    with pytest.raises(TypeError) as caught:
        getattr(ops, name)(*args)
    assert str(caught.value) == message


def test_a_read_only_numpy_input_beside_torch(op_kit):
    # tvm_ffi imports torch here: the numpy path is unchanged by it.
    x = np.frombuffer(np.arange(6.0).tobytes()).reshape(2, 3)
    k = np.array([1.0, -2.0, 0.5])
    assert not x.flags.writeable
    y = op_kit.scale_rows(x, k)
    assert type(y) is np.ndarray
    np.testing.assert_array_equal(y, x * k)


def test_meta_and_fake_tensors_through_the_functional_call(op_kit):
    """Tensors with no data to hand over (on the meta device; fake ones under FakeTensorMode)
    go through the custom op, whose fake implementation gives the outputs' shapes, as
    op_kit.torch.<op> does."""
    from torch._subclasses.fake_tensor import FakeTensorMode

    x, k = torch.empty(2, 3, dtype=torch.float64, device="meta"), torch.empty(3, dtype=torch.float64, device="meta")
    for ops in (op_kit, op_kit.torch):
        y = ops.scale_rows(x, k)
        assert (y.device.type, tuple(y.shape), y.dtype) == ("meta", (2, 3), torch.float64)
    lo, hi = op_kit.minmax(torch.empty(4, 5, device="meta"))
    assert (lo.device.type, tuple(hi.shape)) == ("meta", (4,))
    hot = op_kit.one_hot(torch.empty(7, dtype=torch.int64, device="meta"), 3)
    assert (tuple(hot.shape), hot.dtype) == ((7, 3), torch.float32)
    with FakeTensorMode():
        fake = op_kit.scale_rows(torch.empty(5, 3, dtype=torch.float64), torch.empty(3, dtype=torch.float64))
        assert tuple(fake.shape) == (5, 3)


def test_an_ops_own_result_dtype_and_sequences_beside_tensors(op_kit):
    hot = op_kit.one_hot(torch.tensor([2, 0]), 3)
    assert type(hot) is torch.Tensor and hot.dtype == torch.float32
    assert hot.tolist() == [[0, 0, 1], [1, 0, 0]]
    y = op_kit.scale_rows(torch.ones(2, 3, dtype=torch.float64), [1, 2, 3])
    assert type(y) is torch.Tensor and y.tolist() == [[1, 2, 3], [1, 2, 3]]
    with pytest.raises(TypeError, match=r"^scale_rows: argument `k` \(#1\) expected Tensor\[f64, 1\].*; got str$"):
        op_kit.scale_rows(torch.ones(2, 3, dtype=torch.float64), "k")


def test_a_plain_export_given_meta_or_fake_tensors_says_only_ops_take_them(tensor_kit_package):
    from torch._subclasses.fake_tensor import FakeTensorMode

    message = (
        r"^half_sum: only ops run on meta and fake tensors \(they hold no data to hand over\), which torch\.compile "
        r"and torch\.export trace, and half_sum is a plain export: call it on tensors with data, or its author can "
        r"make it an op with #\[export_fn\(op\)\]$"
    )
    with pytest.raises(TypeError, match=message):
        tensor_kit_package.half_sum(torch.empty(4, dtype=torch.float16, device="meta"))
    with FakeTensorMode(), pytest.raises(TypeError, match=message):
        tensor_kit_package.half_sum(torch.empty(4, dtype=torch.float16))
    assert tensor_kit_package.half_sum(torch.ones(4, dtype=torch.float16)) == 4.0


@pytest.mark.parametrize("route", ["door", "tvm_ffi"])
def test_a_plain_export_takes_torch_tensors_through_the_door_as_through_tvm_ffi(tensor_kit_package, route):
    """Torch tensors reach a plain export through torch's DLPack C exchange API on both routes
    (the door's own, or tvm_ffi's behind the function the door replaces): the same results,
    a torch tensor for a tensor result, from torch's allocator (Tensor::empty inside the
    export), and the same refusals."""
    if route == "door":
        if DOOR_FORCED_OFF:
            pytest.skip("ABI_PYTHON_DOOR forces the tvm_ffi route")
        assert type(tensor_kit_package.scale_rows).__module__ == "abi"
    pkg = tensor_kit_package
    # The tvm_ffi route: the def behind the door, or the package's function itself when the
    # door is forced off.
    call = lambda name: getattr(pkg, name) if route == "door" else getattr(getattr(pkg, name), "__wrapped__", getattr(pkg, name))  # noqa: E731
    x = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    y = call("scale_rows")(x, torch.ones(3))
    assert type(y) is torch.Tensor and y.tolist() == x.tolist()
    assert call("row_lengths")(torch.ones(2, 4, dtype=torch.int64)) == [4, 4]
    assert call("half_sum")(torch.ones(4, dtype=torch.float16)) == 4.0
    empty = call("empty_like")(torch.ones(5))
    assert type(empty) is torch.Tensor and empty.shape == (5,)
    with pytest.raises(TypeError, match=r"argument `x` \(#0\) expected a tensor of dtype float32 and rank 2"):
        call("scale_rows")(torch.ones(3), torch.ones(3))
    # torch's exchange API hands over a tensor requiring grad (the result tracks none).
    tracked = call("scale_rows")(torch.ones(2, 3, requires_grad=True), torch.ones(3))
    assert not tracked.requires_grad and tracked.tolist() == [[1.0] * 3] * 2


@needs_door
def test_an_op_on_torch_cpu_tensors_takes_the_door_and_agrees_with_its_def(op_kit):
    """`pkg.op(x)` on torch CPU tensors that need no grad: the door allocates the outputs with
    torch's allocator and returns torch tensors, with no Python frame of the package; what
    the `def` handles itself (autograd, views to copy, subclasses, numpy beside torch,
    outputs given) still goes to it. Both give the same results."""
    import sys

    x, k = rand(3, 4), rand(4, seed=1)
    frames = []
    sys.setprofile(lambda frame, event, _: event == "call" and "op_kit" in frame.f_code.co_filename and frames.append(frame.f_code.co_name))
    y = op_kit.scale_rows(x, k)
    lo, hi = op_kit.minmax(rand(2, 5, dtype=torch.float32))
    r = rand(2, 2, dtype=torch.float32)
    assert op_kit.relu_(r) is None
    sys.setprofile(None)
    assert frames == [], "served by the door"
    assert type(y) is torch.Tensor and type(lo) is torch.Tensor and lo.dtype == torch.float32
    torch.testing.assert_close(y, x * k)
    torch.testing.assert_close(y, op_kit.scale_rows.__wrapped__(x, k))
    assert (r >= 0).all()
    # The def's cases: a transposed view (copied), a Parameter (a subclass: the custom op),
    # a tensor requiring grad (autograd), numpy beside torch, an output given.
    torch.testing.assert_close(op_kit.scale_rows(x.T.contiguous().T, k), x * k)
    p = torch.nn.Parameter(x.clone())
    g = op_kit.scale_rows(p, k)
    assert g.requires_grad
    g.sum().backward()
    torch.testing.assert_close(p.grad, k.expand(3, 4))
    mixed, by_def = op_kit.scale_rows(x, np.ones(4)), op_kit.scale_rows.__wrapped__(x, np.ones(4))
    assert type(mixed) is type(by_def)
    out = torch.empty(3, 4, dtype=torch.float64)
    assert op_kit.scale_rows(x, k, y=out) is out
    torch.testing.assert_close(out, x * k)
