"""Runtime support of a package's ops (functions exported with `#[export_fn(op)]`), written
verbatim by `abi stubs` into the package as `_abi_ops.py`.

Each op is described once, as data: its parameters in the export's order, each an input
tensor ("in"), an output ("out", with the rule its shape follows), an in-place tensor
("inout") or a scalar ("int", "float", "bool", or "str" for a fieldless enum, with the
names it takes); the op's backward; the JAX-order entry
point; the device. From that description an `Op` is called three ways:

- `pkg.op(...)`: on the caller's arrays, numpy, torch or JAX, its outputs allocated by the
  rules in that framework (`Op.call`);
- `pkg.torch.op(...)`: a `torch.library.custom_op` with its fake implementation, its
  out-variant and, with a backward, its autograd formula (`Op.torch`);
- `pkg.jax.op(...)`: a jax-tvm-ffi target called through `jax.ffi.ffi_call`, under a
  `jax.custom_vjp` with a backward (`Op.jax`).

Nothing here imports torch or JAX until its namespace is used, nor numpy until an op
allocates a numpy array.
"""

import array
import enum
import sys

import tvm_ffi

# Scalar kinds, as the package's data names them: "str" is a fieldless enum, which crosses
# as the name of its variant (a torch schema's `str`, a JAX string attribute).
_SCALARS = ("int", "float", "bool", "str")

# The buffer objects a tensor argument may be (as the Python door takes them for a plain
# export): a numpy array over their memory.
_BUFFERS = (memoryview, bytearray, array.array)


class _Unseen:
    """A type no argument has: what `_NDARRAY` is until numpy is seen."""


# numpy's ndarray once numpy is imported: the fast path's one type check.
_NDARRAY = _Unseen
_np = None


def _numpy():
    global _NDARRAY, _np
    if _np is None:
        try:
            import numpy
        except ImportError:
            raise ModuleNotFoundError(
                "an op takes a list, memoryview, bytearray or array.array as a numpy array, and numpy is not "
                "installed (pip install numpy)",
                name="numpy",
            ) from None

        _np, _NDARRAY = numpy, numpy.ndarray
    return _np


def _framework(value):
    """"numpy", "torch", "jax", or None for another array (or no array): read from the
    modules already imported, none imported here."""
    if type(value) is _NDARRAY:
        return "numpy"
    numpy = sys.modules.get("numpy")
    if numpy is not None and isinstance(value, numpy.ndarray):
        _numpy()
        return "numpy"
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(value, torch.Tensor):
        return "torch"
    jax = sys.modules.get("jax")
    if jax is not None and isinstance(value, jax.Array):
        return "jax"
    return None


def _is_jax_array(value):
    """Whether `value` is a JAX array. A torch tensor is ruled out first: jax.Array's
    isinstance runs a custom check that torch.compile cannot trace (a graph break)."""
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(value, torch.Tensor):
        return False
    jax = sys.modules.get("jax")
    return jax is not None and isinstance(value, jax.Array)


def _readable(value):
    """A read-only numpy array as a tensor tvm_ffi takes (numpy refuses it an unversioned
    DLPack capsule, which is what tvm_ffi asks for); anything else as it is."""
    if type(value) is _NDARRAY and not value.flags.writeable:
        return tvm_ffi.from_dlpack(value.__dlpack__(max_version=(1, 0)))
    return value


class _Param:
    __slots__ = ("name", "role", "dtype", "ndim", "rule", "names")

    def __init__(self, name, role, dtype=None, ndim=None, rule=None):
        # An enum scalar ("str") is described by the names it takes, in the dtype's place.
        self.names = tuple(dtype) if role == "str" else ()
        if role == "str":
            dtype = None
        self.name, self.role, self.dtype, self.ndim, self.rule = name, role, dtype, ndim, rule

    @property
    def tensor(self):
        return self.role not in _SCALARS


class Ops:
    """A package's ops by name, and its `torch` and `jax` namespaces."""

    def __init__(self, package):
        self.package = package
        self.ops = {}
        self._namespaces = {}

    def op(self, name, native, params, backward=None, jax=None, jax_params=None, device="cpu", strided=()):
        """Describes op `name` (the export `native`); returns its `Op`. `strided` names the
        input tensors that take any strides (the others need compact data)."""
        op = Op(self, name, native, params, backward, jax, jax_params, device, strided)
        self.ops[name] = op
        return op

    def torch_if_imported(self):
        """Defines the torch ops now when torch is imported (tvm_ffi imports it wherever it
        is installed): a first use inside `torch.compile` would define them while Dynamo
        traces, which `torch.library` cannot do. A failure here is left for the first use
        of `pkg.torch` to report."""
        if "torch" in sys.modules:
            try:
                self.namespace("torch")
            except Exception:
                self._namespaces.pop("torch", None)

    def namespace(self, framework):
        """`pkg.torch` or `pkg.jax`."""
        found = self._namespaces.get(framework)
        if found is None:
            found = self._namespaces[framework] = _Namespace(self, framework)
        return found


class _Namespace:
    """`pkg.torch` / `pkg.jax`: each op's entry point for that framework. The torch ops are
    all defined when `pkg.torch` is first used (so `torch.ops.pkg.<op>` exists from then
    on); each JAX target is registered on its op's first use."""

    def __init__(self, ops, framework):
        self._ops = ops
        self._framework = framework
        if framework == "torch":
            for name, op in ops.ops.items():
                setattr(self, name, op.torch_function())

    def __getattr__(self, name):
        op = self._ops.ops.get(name)
        if op is None or name.startswith("_"):
            raise AttributeError(f"{self._ops.package}.{self._framework} has no op {name!r}")
        fn = op.torch_function() if self._framework == "torch" else op.jax_function()
        setattr(self, name, fn)
        return fn

    def __dir__(self):
        return sorted(self._ops.ops)


class Op:
    """One op: its description, and its calls from numpy, torch and JAX."""

    def __init__(self, ops, name, native, params, backward, jax, jax_params, device, strided=()):
        self.ops = ops
        self.name = name
        self.native = native
        self.params = [_Param(*p) for p in params]
        # What a caller passes positionally (every parameter but the outputs), in order.
        self.args = [p for p in self.params if p.role != "out"]
        self.outs = [p for p in self.params if p.role == "out"]
        self.inout = [i for i, p in enumerate(self.args) if p.role == "inout"]
        # JAX's results: the outputs and the in-place tensors, in the export's order.
        self.results = [p for p in self.params if p.role in ("out", "inout")]
        self.backward = backward
        # The entry point in JAX's order (`<name>__jax`, for ops with in-place tensors), and
        # its parameters as `(name, role)`, a scalar's role its kind.
        self.jax_native = jax
        self.jax_params = jax_params
        self.device = device
        position = {p.name: i for i, p in enumerate(self.args)}
        tensors = [i for i, p in enumerate(self.args) if p.tensor]
        self._tensors = tensors
        # Input tensors needing compact data: a torch view of another layout is copied.
        self._compact = [i for i in tensors if self.args[i].role == "in" and self.args[i].name not in strided]
        self._first = tensors[0] if tensors else None
        # The enum scalars, whose members are handed to torch and JAX as their names.
        self._names = [i for i, p in enumerate(self.args) if p.role == "str"]
        # The tensors after the first, which the numpy paths check are numpy arrays too.
        self._others = tuple(tensors[1:])
        self._shapes = [self._shape_rule(p, position) for p in self.outs]
        # Where each native argument comes from: ("a", i) the caller's i-th, ("o", i) the
        # i-th output; None when it is the caller's arguments, then the outputs.
        order, a, o = [], 0, 0
        for p in self.params:
            if p.role == "out":
                order.append(("o", o))
                o += 1
            else:
                order.append(("a", a))
                a += 1
        tail = [("a", i) for i in range(len(self.args))] + [("o", i) for i in range(len(self.outs))]
        self._order = None if order == tail else order
        # The compact inputs' positions among the export's arguments.
        self._compact_native = [k for k, (kind, i) in enumerate(order) if kind == "a" and i in self._compact]
        # What each tensor argument's sequences become: the numpy dtype (None: numpy's
        # choice, for a dtype numpy lacks or one not published), made on first use.
        self._seq_dtypes = None
        self._torch = None
        self._jax = None
        self._np_dtypes = None
        # Whether `call` was specialised for numpy (None: not tried yet).
        self._fast = None
        self._single = len(self.outs) == 1

    def _shape_rule(self, p, position):
        """A function of the caller's arguments giving output `p`'s shape."""
        rule = p.rule
        if isinstance(rule, str):
            i = position[rule]

            def like(args):
                return args[i].shape

            return like
        dims = []
        for d in rule:
            if isinstance(d, int):
                dims.append((None, d))
            elif "." in d:
                source, axis = d.rsplit(".", 1)
                dims.append((position[source], int(axis)))
            else:
                dims.append((position[d], None))
        name, out = self.name, p.name

        def shape(args):
            found = []
            for i, axis in dims:
                if i is None:
                    found.append(axis)
                elif axis is None:
                    value = args[i]
                    if _is_traced(value):
                        raise TypeError(self._traced_message(self.args[i].name))
                    n = int(value)
                    if n < 0:
                        raise ValueError(
                            f"{name}: output `{out}` would have {n} elements along an axis (`{self.args[i].name}` = {n})"
                        )
                    found.append(n)
                else:
                    dims_of = args[i].shape
                    # A tensor of another rank gets no error here: the export refuses it
                    # with its own message, naming the parameter.
                    found.append(dims_of[axis] if axis < len(dims_of) else 0)
            return tuple(found)

        return shape

    # -- The functional call --------------------------------------------------------------

    def call(self, args, given):
        """`pkg.op(*args, **outputs)`: `given` holds each output's buffer, or None."""
        first = args[self._first] if self._first is not None else next((g for g in given if g is not None), None)
        if type(first) is _NDARRAY:
            if self._fast is None:
                self._fast = self._numpy_fast_path()
            for i in self._others:
                if type(args[i]) is not _NDARRAY:
                    args = self._arrays(args)
                    break
            return self._call_numpy(args, given)
        args = self._arrays(args)
        if self._first is not None:
            first = args[self._first]
        framework = _framework(first)
        if framework == "jax":
            return self.jax_call(args, given)
        if framework == "torch":
            torch = sys.modules["torch"]
            if self._needs_custom_op(torch, args, given):
                return self.torch_function()(*args, **self._given_keywords(given))
            return self._call_torch(torch, first, args, given)
        if self.device != "cpu":
            raise TypeError(f"{self.name}: takes torch or JAX arrays on the GPU, got {type(first).__name__}")
        _numpy()
        return self._call_numpy(args, given)

    def _plain_names(self, args):
        """`args` with each enum scalar given as a member of an enum class (the package's
        `class Activation(str, enum.Enum)`) as its name, a plain `str`, which torch's schema
        and JAX's attribute carry as they are (`str(member)` would be `Activation.Relu`). A
        plain name is passed as it is."""
        fixed = None
        for i in self._names:
            if isinstance(args[i], enum.Enum):
                if fixed is None:
                    fixed = list(args)
                fixed[i] = args[i].value
        return args if fixed is None else fixed

    def _arrays(self, args):
        """`args` with each input tensor given as a list or tuple made a numpy array of the
        parameter's dtype (as rust-numpy's `PyArrayLike` takes sequences), and a memoryview,
        bytearray or array.array a numpy array over its memory (its own dtype, as a numpy
        array given is); anything else that is no array (a scalar, a string) refused with a TypeError naming the function
        and the parameter, as a plain export's is."""
        fixed = None
        for i in self._tensors:
            value = args[i]
            if type(value) is _NDARRAY or hasattr(value, "__dlpack__") or _framework(value) is not None:
                continue
            if fixed is None:
                fixed = list(args)
            fixed[i] = self._array_of(i, value)
        return args if fixed is None else fixed

    def _array_of(self, i, value):
        """A sequence given for tensor argument `i`, as a numpy array of its dtype: data that
        converts to it without changing kind (ints for floats, not floats for ints), numpy's
        `same_kind` rule; a buffer object as a numpy array over its memory, uncast; anything
        else refused."""
        p = self.args[i]
        what = _tensor_text(p)
        buffer = type(value) in _BUFFERS
        if not buffer and (p.role != "in" or not isinstance(value, (list, tuple))):
            kind = "a sequence of numbers" if p.role == "in" else "which the op writes in place"
            raise TypeError(
                f"{self.name}: argument `{p.name}` (#{i}) expected {what}: an array (numpy, torch or JAX), "
                f"{'or ' if p.role == 'in' else ''}{kind}; got {type(value).__name__}"
            )
        np = _numpy()
        if buffer:
            # A memoryview, bytearray or array.array: a numpy array over its memory, taken as
            # a numpy array is (its dtype the buffer's, never cast; written in place by an
            # op that writes it; a read-only one refused as a read-only array is). Through
            # memoryview: a released one says so (numpy would make an object array of it).
            return np.asarray(memoryview(value))
        try:
            found = np.asarray(value)
        except ValueError as e:  # ragged
            raise TypeError(f"{self.name}: argument `{p.name}` (#{i}) expected {what}, got a {type(value).__name__} numpy cannot make an array of ({e})") from None
        if self._seq_dtypes is None:
            self._seq_dtypes = {j: _numpy_dtype(self.args[j].dtype) for j in self._tensors}
        want = self._seq_dtypes[i]
        if found.dtype.kind not in "biufc":
            raise TypeError(f"{self.name}: argument `{p.name}` (#{i}) expected {what}, got a {type(value).__name__} of {found.dtype} data")
        if want is None or found.dtype == want:
            return found
        if found.size and not np.can_cast(found.dtype, want, "same_kind"):
            raise TypeError(
                f"{self.name}: argument `{p.name}` (#{i}) expected {what}, got a {type(value).__name__} of "
                f"{found.dtype} data, which would not convert without changing kind"
            )
        return found.astype(want)

    def _needs_custom_op(self, torch, args, given):
        """Whether a torch call goes through the custom op: under torch.compile, for autograd
        (a tensor requiring grad, grad mode on), and for tensors with no data to hand over
        (on the meta device, or fake ones under FakeTensorMode: any subclass of Tensor), which
        the op's fake implementation serves."""
        if torch.compiler.is_compiling():
            return True
        grad = torch.is_grad_enabled()
        tensor = torch.Tensor
        for t in [args[i] for i in self._tensors] + list(given):
            if grad and getattr(t, "requires_grad", False):
                return True
            if isinstance(t, tensor) and (type(t) is not tensor or t.is_meta):
                return True
        return False

    def _numpy_fast_path(self):
        """For an op with one output, no in-place tensor and its output last, made on the
        first numpy call: `self.call` replaced by a closure doing the numpy call with none of
        the general path's steps (the per-call cost budgeted against `np.empty` plus the
        export's call), handing anything else to the general path."""
        if not self._single or self.inout or self._order is not None or self._first is None:
            return False
        general, native, empty, first, nd = self.call, self.native, _np.empty, self._first, _NDARRAY
        dtype, shape = _np.dtype(self.outs[0].dtype), self._shapes[0]
        # The other tensors must be numpy arrays too (a list goes the general way): the
        # second is checked inline (the first again when there is none), any more in a loop.
        second, rest = (self._others or (first,))[0], self._others[1:]

        def call(args, given):
            if given[0] is not None or type(args[first]) is not nd or type(args[second]) is not nd:
                return general(args, given)
            if rest:
                for i in rest:
                    if type(args[i]) is not nd:
                        return general(args, given)
            out = empty(shape(args), dtype)
            try:
                native(*args, out)
                return out
            except (BufferError, ValueError) as e:
                if not _may_retry(e):
                    raise
                refused = e
            self._native_again((*args, out), refused)
            return out

        self.call = call
        return True

    def _given_keywords(self, given):
        return {p.name: g for p, g in zip(self.outs, given) if g is not None}

    def _call_numpy(self, args, given):
        # The path budgeted against its floor (`np.empty` per output and the export's call).
        dtypes = self._np_dtypes
        if dtypes is None:
            dtypes = self._np_dtypes = [_np.dtype(p.dtype) for p in self.outs]
        empty = _np.empty
        outs = []
        for dtype, shape, buf, p in zip(dtypes, self._shapes, given, self.outs):
            if buf is None:
                outs.append(empty(shape(args), dtype))
            elif type(buf) is _NDARRAY and buf.flags.writeable:
                outs.append(buf)
            else:
                self._check_writable(p, buf)
                outs.append(buf)
        for i in self.inout:
            self._check_writable(self.args[i], args[i])
        if self._order is None:
            try:
                self.native(*args, *outs)
                refused = None
            except (BufferError, ValueError) as e:
                if not _may_retry(e):
                    raise
                refused = e
            if refused is not None:
                self._native_again((*args, *outs), refused)
        else:
            self._native(args, outs)
        if self._single:
            return outs[0]
        return tuple(outs) if outs else None

    def _call_torch(self, torch, first, args, given):
        args = self._contiguous(args)
        outs = []
        for p, shape, buf in zip(self.outs, self._shapes, given):
            if buf is None:
                buf = torch.empty(shape(args), dtype=getattr(torch, p.dtype), device=first.device)
            else:
                self._check_writable(p, buf)
            outs.append(buf)
        for i in self.inout:
            self._check_writable(self.args[i], args[i])
        self._native(args, outs)
        return self._result(outs)

    def _contiguous(self, args):
        """`args` with each torch input tensor that needs compact data and is a view of
        another layout (`t.t()`, `expand`) made contiguous: torch users expect ops to take
        them. A `StridedTensor` input takes any strides and is passed as it is; outputs and
        in-place tensors are never copied (the op would write the copy): the export refuses
        them when they are not compact."""
        fixed = None
        for i in self._compact:
            contiguous = getattr(args[i], "is_contiguous", None)
            if contiguous is not None and not contiguous():
                if fixed is None:
                    fixed = list(args)
                fixed[i] = args[i].contiguous()
        return args if fixed is None else fixed

    def _check_writable(self, p, value):
        """Refuses an array the op would write and must not: a JAX array (immutable, and
        nothing in its DLPack capsule says so) or a read-only numpy array (whose flag the
        versioned capsule carries but the runtime does not see)."""
        if _is_jax_array(value):
            raise ValueError(
                f"{self.name}: `{p.name}` is written by the op and a JAX array cannot be "
                f"(JAX arrays are immutable): call {self.ops.package}.jax.{self.name}, which returns new arrays"
            )
        flags = getattr(value, "flags", None)
        if flags is not None and not getattr(flags, "writeable", True):
            raise ValueError(f"{self.name}: `{p.name}` is written by the op, and the array given is read-only")

    def _native(self, args, outs):
        """Calls the export on the caller's arguments and the outputs, in its order."""
        if self._order is None:
            full = (*args, *outs)
        else:
            full = [args[i] if kind == "a" else outs[i] for kind, i in self._order]
        try:
            self.native(*full)
            return
        except (BufferError, ValueError) as e:
            if not _may_retry(e):
                raise
            refused = e
        self._native_again(full, refused)

    def _native_again(self, full, refused):
        """The call again, after the export or numpy refused (`refused`) a numpy array it
        can take once changed: a view that is not compact (a transpose, a broadcast) given
        for an input needing compact data, copied as torch's are (outputs and in-place
        tensors never: the op would write the copy); a read-only array, which numpy refuses
        an unversioned DLPack capsule, passed as a versioned one. The export ran nothing the
        first time: typed tensors are checked as arguments are converted, before its body.
        Anything else is raised as it came; called outside the `except` block, so the
        export's own errors carry no context of the first refusal."""
        fixed = list(full)
        changed = False
        if _may_retry(refused):
            for k in self._compact_native:
                a = fixed[k]
                if type(a) is _NDARRAY and not a.flags.c_contiguous:
                    fixed[k] = _np.ascontiguousarray(a)
                    changed = True
        if isinstance(refused, BufferError):
            for k, a in enumerate(fixed):
                if type(a) is _NDARRAY and not a.flags.writeable:
                    fixed[k] = _readable(a)
                    changed = True
        if not changed:
            raise refused
        self.native(*fixed)

    def _result(self, outs):
        if len(outs) == 1:
            return outs[0]
        if not outs:
            return None
        return tuple(outs)

    # -- torch ------------------------------------------------------------------------------

    def torch_function(self):
        """`pkg.torch.op`: the custom op (defined on first use), or with output buffers
        given, its out-variant."""
        if self._torch is None:
            self._torch = self._define_torch()
        return self._torch

    def _define_torch(self):
        torch = _require(self.ops.package, "torch", "torch", "PyTorch")

        package, name = self.ops.package, self.name
        device = self._torch_device
        mutated = [self.args[i].name for i in self.inout]

        def impl(*args):
            args = self._contiguous(args)
            outs = [
                torch.empty(shape(args), dtype=getattr(torch, p.dtype), device=device(args))
                for p, shape in zip(self.outs, self._shapes)
            ]
            self._native(args, outs)
            return self._result(outs)

        def fake(*args):
            outs = [
                torch.empty(shape(args), dtype=getattr(torch, p.dtype), device=device(args))
                for p, shape in zip(self.outs, self._shapes)
            ]
            return self._result(outs)

        op = torch.library.custom_op(
            f"{package}::{name}", impl, mutates_args=mutated, schema=self._torch_schema(out_variant=False)
        )
        op.register_fake(fake)

        def impl_out(*args):
            n = len(self.args)
            self._native(self._contiguous(args[:n]), args[n:])

        out_mutated = mutated + [p.name for p in self.outs]
        out_op = None
        if self.outs:
            out_op = torch.library.custom_op(
                f"{package}::{name}_out", impl_out, mutates_args=out_mutated, schema=self._torch_schema(out_variant=True)
            )
            out_op.register_fake(lambda *args: None)

        if self.backward is not None:
            self._register_autograd(torch, op)

        outs, named = self.outs, self._names

        def call(*args, **given):
            if named:
                args = self._plain_names(args)
            unknown = set(given) - {p.name for p in outs}
            if unknown:
                raise TypeError(f"{name}() got an unexpected keyword argument {sorted(unknown)[0]!r}")
            if (given or mutated) and torch.is_grad_enabled():
                self._refuse_grad(args, given)
            if not given:
                return op(*args)
            buffers = []
            for p, shape in zip(outs, self._shapes):
                buf = given.get(p.name)
                if buf is None:
                    buf = torch.empty(shape(args), dtype=getattr(torch, p.dtype), device=device(args))
                else:
                    self._check_writable(p, buf)
                buffers.append(buf)
            out_op(*args, *buffers)
            return self._result(buffers)

        call.__name__ = call.__qualname__ = name
        call.__doc__ = f"{package}.{name} as the torch custom op torch.ops.{package}.{name}."
        call.op = op
        call.out_op = out_op
        return call

    def _refuse_grad(self, args, given):
        """Refuses a tensor that requires grad (grad mode on) in a call that writes in place
        or into given outputs: neither has a backward (torch's register_autograd refuses ops
        that mutate their inputs), so autograd would differentiate as if the op never ran,
        or a leaf be changed behind it. (A functional op without a backward is left to
        torch, which refuses to differentiate through it when asked to.)"""
        named = [(self.args[i].name, args[i]) for i in self._tensors]
        named += [(p.name, given.get(p.name)) for p in self.outs]
        for pname, t in named:
            if getattr(t, "requires_grad", False):
                if self.inout:
                    why = f"{self.name} has no backward: an in-place op cannot have one (torch's register_autograd refuses ops that mutate their inputs)"
                else:
                    written = ", ".join(f"`{p}=`" for p, g in given.items() if g is not None)
                    why = f"writing into given outputs ({written}) has no backward (the out-variant op mutates them): leave the outputs to the op"
                raise RuntimeError(
                    f"{self.name}: `{pname}` requires grad, but {why}; call it under torch.no_grad(), "
                    f"or on tensors that do not require grad"
                )

    def _torch_device(self, args):
        for i in self._tensors:
            return args[i].device
        return "cpu" if self.device == "cpu" else "cuda"

    def _torch_schema(self, out_variant):
        """The op's schema: `(Tensor x, int n, Tensor(a!) z) -> Tensor`."""
        names = iter("abcdefghijklmnopqrstuvwxyz")
        items = []
        kinds = {"in": "Tensor", "int": "int", "float": "float", "bool": "bool", "str": "str"}
        for p in self.args:
            items.append(f"Tensor({next(names)}!) {p.name}" if p.role == "inout" else f"{kinds[p.role]} {p.name}")
        if out_variant:
            items += [f"Tensor({next(names)}!) {p.name}" for p in self.outs]
            ret = "()"
        elif len(self.outs) == 1:
            ret = "Tensor"
        else:
            ret = "(" + ", ".join(["Tensor"] * len(self.outs)) + ")"
        return f"({', '.join(items)}) -> {ret}"

    def _register_autograd(self, torch, op):
        backward = self.ops.ops[self.backward]
        # Defined now, not while autograd (or torch.compile) runs the backward.
        backward_op = backward.torch_function()
        tensors = self._tensors
        order = self._backward_order(backward)

        def setup_context(ctx, inputs, output):
            ctx.args = [None if i in tensors else a for i, a in enumerate(inputs)]
            ctx.save_for_backward(*(inputs[i] for i in tensors))

        def grad(ctx, *grads):
            args = list(ctx.args)
            for i, t in zip(tensors, ctx.saved_tensors):
                args[i] = t
            # torch hands gradients with any strides; the kernels take compact tensors.
            grads = [g.contiguous() for g in grads]
            found = backward_op(*order(args, grads))
            found = found if isinstance(found, tuple) else (found,)
            result = [None] * len(args)
            for i, g in zip(tensors, found):
                result[i] = g
            return tuple(result)

        op.register_autograd(grad, setup_context=setup_context)

    def _backward_order(self, backward):
        """A function of the forward's arguments and the gradients of its outputs giving the
        backward's arguments in the backward's own order: its parameters named as the
        forward's input tensors and scalars take those, its other input tensors are the
        gradients, in order (the scalars may stand anywhere the order rule lets them, in the
        forward and in the backward alike)."""
        position = {p.name: i for i, p in enumerate(self.args)}
        plan, grad = [], 0
        for p in backward.args:
            if p.name in position:
                plan.append((True, position[p.name]))
            else:
                plan.append((False, grad))
                grad += 1

        def order(args, grads):
            return [args[i] if forward else grads[i] for forward, i in plan]

        return order

    # -- JAX ------------------------------------------------------------------------------

    def jax_function(self):
        """`pkg.jax.op`: the op through jax-tvm-ffi (registered on first use); with a
        backward, a `jax.custom_vjp`."""
        if self._jax is None:
            self._jax = self._jax_entry(self._define_jax())
        return self._jax

    def _jax_entry(self, inner):
        """`pkg.jax.op` around the traced function `inner`: sequences given for tensors made
        arrays (as the functional call makes them), output keywords refused as the
        functional call refuses them."""
        outs = {p.name for p in self.outs}
        named = self._names

        def call(*args, **given):
            for key in given:
                if key not in outs:
                    raise TypeError(f"{self.name}() got an unexpected keyword argument {key!r}")
            self._refuse_buffers([key for key, g in given.items() if g is not None])
            return inner(*self._arrays(self._plain_names(args) if named else args))

        call.__name__ = call.__qualname__ = self.name
        call.__doc__ = f"{self.ops.package}.{self.name} through jax-tvm-ffi (XLA's FFI target {self.ops.package}.{self.name})."
        return call

    def _refuse_buffers(self, names):
        if names:
            raise ValueError(
                f"{self.name}: JAX arrays are immutable, so no output buffer can be given "
                f"(`{names[0]}=`): the outputs are returned"
            )

    def jax_call(self, args, given):
        self._refuse_buffers([p.name for p, g in zip(self.outs, given) if g is not None])
        return self.jax_function()(*args)

    def _define_jax(self):
        jax = _require(self.ops.package, "jax", "jax", "JAX")
        jax_tvm_ffi = _require(self.ops.package, "jax", "jax_tvm_ffi", "jax-tvm-ffi")
        import numpy

        target = f"{self.ops.package}.{self.name}"
        native = self.native if self.jax_native is None else self.jax_native
        jax_tvm_ffi.register_ffi_target(
            target, native, arg_spec=self._arg_spec(), platform="cpu" if self.device == "cpu" else "gpu"
        )
        tensors = self._tensors
        scalars = [(i, p) for i, p in enumerate(self.args) if not p.tensor]
        # A Python str becomes a string attribute, which jax-tvm-ffi hands the export as a String.
        attr_type = {"int": numpy.int64, "float": numpy.float64, "bool": numpy.bool_, "str": _name}
        # Operands: the input tensors, then the in-place ones (aliased to their results).
        operands = [i for i in tensors if self.args[i].role == "in"] + list(self.inout)
        aliases = {}
        for k, i in enumerate(self.inout):
            result = next(j for j, p in enumerate(self.results) if p is self.args[i])
            aliases[len(operands) - len(self.inout) + k] = result
        name = self.name

        def static(args):
            """Refuses a traced scalar (under jax.jit or jax.vmap): its value is an attribute."""
            for i, p in scalars:
                if _is_traced(args[i]):
                    raise TypeError(self._traced_message(p.name))

        def primal(*args):
            static(args)
            arrays = [jax.numpy.asarray(args[i]) for i in operands]
            self._check_operands({i: a for i, a in zip(operands, arrays)}, args)
            attrs = {}
            for i, p in scalars:
                attrs[p.name] = attr_type[p.role](args[i])
            shapes = []
            out = iter(self._shapes)
            for p in self.results:
                if p.role == "out":
                    shapes.append(jax.ShapeDtypeStruct(next(out)(args), p.dtype))
                else:
                    x = arrays[operands.index(self.args.index(p))]
                    shapes.append(jax.ShapeDtypeStruct(x.shape, x.dtype))
            call = jax.ffi.ffi_call(target, shapes, vmap_method="sequential", input_output_aliases=aliases or None)
            found = call(*arrays, **attrs)
            return found[0] if len(found) == 1 else tuple(found)

        if self.backward is None:
            primal.__name__ = name
            return primal
        backward = self.ops.ops[self.backward]
        order = self._backward_order(backward)
        nondiff = tuple(i for i, _ in scalars)
        f = jax.custom_vjp(primal, nondiff_argnums=nondiff)

        def fwd(*args):
            return primal(*args), tuple(args[i] for i in tensors)

        def bwd(*rest):
            k = len(nondiff)
            fixed, saved, cotangent = rest[:k], rest[k], rest[k + 1]
            args = [None] * len(self.args)
            for i, v in zip(nondiff, fixed):
                args[i] = v
            for i, t in zip(tensors, saved):
                args[i] = t
            cotangents = cotangent if len(self.results) > 1 else (cotangent,)
            grads = backward.jax_function()(*order(args, cotangents))
            return grads if isinstance(grads, tuple) else (grads,)

        f.defvjp(fwd, bwd)

        def differentiable(*args):
            # Before the custom_vjp, whose nondiff_argnums refuse a tracer with JAX's own
            # UnexpectedTracerError, which says nothing of static arguments.
            static(args)
            return f(*args)

        differentiable.__name__ = differentiable.__qualname__ = name
        return differentiable

    def _traced_message(self, param):
        """What a traced scalar gets. Every scalar of the op sets an attribute of the call (or
        an output's shape), so the message names all of their positions among the op's
        arguments, which `pkg.jax.<op>(*args)` takes positionally (so `static_argnums`, not
        `static_argnames`): one retry, not one per scalar."""
        positions = tuple(i for i, p in enumerate(self.args) if not p.tensor)
        return (
            f"{self.name}: `{param}` is a traced value (under jax.jit or jax.vmap), and the op's scalars "
            f"({', '.join(f'`{self.args[i].name}`' for i in positions)}) each set an attribute of the call "
            f"(or an output's shape): pass them as static arguments (jax.jit(f, static_argnums={positions!r})), "
            f"and leave them unmapped under jax.vmap (in_axes None)"
        )

    def _check_operands(self, arrays, args):
        """The export's dtype and rank checks, and its scalars' kinds, run at trace time.
        Under JAX they would come too late: XLA reports a kernel's error as INTERNAL, and
        never calls a kernel whose results are all empty, so its error would not come at
        all; and a scalar becomes an attribute of the scalar's kind, which would truncate a
        float given for an int. An argument that does not match gets the export's own
        message and kind: the export is called on placeholders and no data: empty where a
        tensor matches, and where it does not, its shape with zero strides; each scalar as
        given (a 0-d array's of the wrong kind as its Python value). The export refuses the
        first that does not match before its body runs."""

        def matches(i, a):
            return str(a.dtype) == self.args[i].dtype and a.ndim == self.args[i].ndim

        scalars = [i for i, p in enumerate(self.args) if not p.tensor]
        if all(matches(i, a) for i, a in arrays.items()) and all(_scalar_fits(self.args[i], args[i]) for i in scalars):
            self._check_x64_outputs()
            return
        np = _numpy()

        def placeholder(i, a):
            if matches(i, a):
                return np.empty((0,) * a.ndim, a.dtype)
            return np.lib.stride_tricks.as_strided(np.empty(1, a.dtype), a.shape, (0,) * a.ndim)

        def scalar(i, v):
            if not _scalar_fits(self.args[i], v) and getattr(v, "ndim", None) == 0:
                return v.item()
            return v

        given = [placeholder(i, arrays[i]) if i in arrays else scalar(i, a) if i in scalars else a for i, a in enumerate(args)]
        outs = [np.empty((0,) * p.ndim, p.dtype) for p in self.outs]
        try:
            self._native(given, outs)
        except TypeError as e:
            hint = _x64_hint(self, arrays)
            if hint is None:
                raise
            refused = e
        else:
            # The export took them all: its checks and these disagree.
            raise AssertionError(
                f"{self.name}: an argument's dtype, rank or kind differs from the description, yet the export took it"
            )
        raise TypeError(f"{refused}\n{hint}") from None

    def _check_x64_outputs(self):
        """Refuses, before XLA runs the kernel, a 64-bit output while JAX's x64 mode is off:
        JAX would make its buffer 32-bit, which the export refuses from inside XLA (an
        INTERNAL error, or none for an empty result)."""
        if not _x64_off():
            return
        for p in self.outs:
            if p.dtype in _JAX_32:
                raise TypeError(
                    f"{self.name}: its output `{p.name}` is {p.dtype}, and JAX makes {p.dtype} arrays "
                    f"{_JAX_32[p.dtype]} {_X64_ADVICE}"
                )

    def _arg_spec(self):
        """jax-tvm-ffi's `arg_spec` for the entry point in JAX's order: `attrs.<name>` for
        each scalar where it stands, `args` for the group of input tensors, `rets` for the
        outputs (in-place tensors included)."""
        spec = []
        params = self.jax_params if self.jax_params is not None else [(p.name, p.role) for p in self.params]
        inputs = sum(1 for p in self.args if p.tensor)
        seen = 0
        for pname, role in params:
            if role in _SCALARS:
                spec.append(f"attrs.{pname}")
                continue
            group = "args" if seen < inputs else "rets"
            seen += 1
            if not spec or spec[-1] != group:
                spec.append(group)
        return spec


def _require(package, extra, module, project):
    """Imports `module`, or says which extra of the package brings it."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise ImportError(
            f"{package}.{extra} needs {project}, which is not installed: pip install {package}[{extra}]"
        ) from e


# What the export's scalar conversions take: Python ints (bools among them) and numpy
# integers for an int or a bool, and floats too for a float; 0-d arrays by their dtype kind.
_SCALAR_TYPES = {"int": "iub", "float": "iufb", "bool": "iub"}


def _scalar_fits(p, value):
    """Whether a scalar argument converts to the kind of scalar parameter `p` as the export
    converts it (a 0-d array, JAX's included, of a dtype of that kind too; for an enum, one
    of its names, or a member of its class, a str equal to its name)."""
    kind = p.role
    if kind == "str":
        return isinstance(value, str) and value in p.names
    if isinstance(value, str):
        return False
    dtype = getattr(value, "dtype", None)
    if dtype is not None:
        return getattr(value, "ndim", None) == 0 and dtype.kind in _SCALAR_TYPES[kind]
    if isinstance(value, bool) or isinstance(value, int):
        return True
    return kind == "float" and isinstance(value, float)


def _name(value):
    """An enum scalar as the plain `str` of its name: a member's value (`str(member)` is
    `Activation.Relu`), a name as it is."""
    if isinstance(value, enum.Enum):
        value = value.value
    return str.__str__(value)


def _is_traced(value):
    """Whether `value` is a JAX tracer (under `jax.jit`), whose value is not known."""
    jax = sys.modules.get("jax")
    if jax is None or not isinstance(value, jax.Array):
        return False
    tracer = getattr(getattr(jax, "core", None), "Tracer", None)
    if tracer is not None:
        return isinstance(value, tracer)
    try:
        value.item()
    except Exception:
        return True
    return False


# The short dtype names of the export's messages (`f32`, `i64`, `bf16`).
_SHORT = (("bfloat", "bf"), ("float", "f"), ("uint", "u"), ("int", "i"), ("complex", "c"))


def _tensor_text(p):
    """`Tensor[f32, 2]`, as the export's messages write tensor parameter `p`."""
    dtype = p.dtype
    for long, short in _SHORT:
        if dtype is not None and dtype.startswith(long) and dtype[len(long):].isdigit():
            dtype = short + dtype[len(long):]
            break
    items = [d for d in (dtype, None if p.ndim is None else str(p.ndim)) if d is not None]
    return f"Tensor[{', '.join(items)}]" if items else "Tensor"


def _may_retry(refused):
    """Whether the export's refusal may be of an array that, changed, it takes: numpy's
    refusal of a read-only array (a BufferError), or a layout that is not compact."""
    return isinstance(refused, BufferError) or "is not contiguous" in str(refused)


def _numpy_dtype(dtype):
    """numpy's dtype named `dtype`; None where numpy has none (bfloat16) or none is known."""
    if dtype is None:
        return None
    try:
        return _numpy().dtype(dtype)
    except TypeError:
        return None


# The 32-bit dtype JAX makes of each 64-bit one when x64 is off.
_JAX_32 = {"int64": "int32", "uint64": "uint32", "float64": "float32", "complex128": "complex64"}


# What a 64-bit refusal under JAX without x64 says to do.
_X64_ADVICE = (
    'unless its x64 mode is on: jax.config.update("jax_enable_x64", True) at startup, or JAX_ENABLE_X64=1 '
    "in the environment"
)


def _x64_off():
    """Whether JAX is imported with its x64 mode off."""
    jax = sys.modules.get("jax")
    return jax is not None and not jax.config.jax_enable_x64


def _x64_hint(op, arrays):
    """What to add to the export's refusal of a 32-bit JAX array given for a 64-bit
    parameter while JAX's x64 mode is off (JAX then makes int64 and float64 data, numpy's
    and `.astype(jnp.int64)` included, 32-bit, and only warns); None otherwise."""
    if not _x64_off():
        return None
    for i, a in arrays.items():
        want = op.args[i].dtype
        if _JAX_32.get(want) == str(a.dtype):
            return f"`{op.args[i].name}` takes {want}, and JAX makes {want} arrays {a.dtype} {_X64_ADVICE}"
    return None
