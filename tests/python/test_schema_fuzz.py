"""Schema-driven fuzzing through the real tvm_ffi: for every export of the example
libraries, read its published reflection and make seeded calls.

- Well-typed calls (values drawn from `type_schema`, with integer and float widths from the
  `iree.abi` record, since the schema has one `int` and one `float`) must succeed, unless
  the function's published doc names the exception class (as `ValueError`): any other
  exception fails the test. Every function that can succeed must succeed at least once, so
  a converter that rejects everything cannot pass. Tensors use the dtypes and ranks the
  doc names most of the time, and any dtype and rank otherwise.
- One unconvertible argument, or a wrong count, must be a TypeError naming the function.
- Parameters no value can mistype (Any) are listed in UNMISTYPABLE, so one that becomes
  unmistypable is reported rather than skipped.
"""

import builtins
import json
import random
import re

import numpy as np
import pytest
import tvm_ffi
from conftest import target_dir

LIBRARIES = ["libmathlib.so", "libsignal_kit.so", "libabi_interop_lib.so"]
CALLS_PER_FUNCTION = 60

INT_RANGES = {f"i{b}": (-(2 ** (b - 1)), 2 ** (b - 1) - 1) for b in (8, 16, 32, 64)}
INT_RANGES.update({f"u{b}": (0, 2**b - 1) for b in (8, 16, 32, 64)})
FLOAT_LIMITS = {"f16": 65504.0, "bf16": 3.0e38, "f32": 3.0e38, "f64": float("inf")}

# Functions whose every call raises (by design): the others must succeed at least once.
ALWAYS_RAISE = {"panics", "raise_kind"}
# Left out: interop-lib's `rendezvous` waits 10 seconds for partners a single caller never
# brings (tests/python/test_door.py calls it from two threads).
UNFUZZED = {"rendezvous"}
DTYPES = {"float16": np.float16, "float32": np.float32, "float64": np.float64, "uint8": np.uint8, "int64": np.int64}
# (library, function, parameter) whose every value converts (Any): nothing to mistype.
UNMISTYPABLE = {("libabi_interop_lib.so", "echo_any", "x")}


def load(name):
    path = target_dir() / "debug" / name
    assert path.exists(), f"{path} is missing: run scripts/test.sh (it builds the example libraries)"
    mod = tvm_ffi.load_module(str(path))
    names = sorted(set(json.loads(mod["_abi_exports_json"]()).keys()) - UNFUZZED)
    assert names, f"{name} exports nothing"
    return mod, names


def scalar(iree, rng):
    if iree == "i1":
        return rng.choice([True, False])
    if iree in INT_RANGES:
        lo, hi = INT_RANGES[iree]
        return rng.choice([lo, hi, 0, 1, min(hi, 7), max(lo, -1), rng.randint(lo, hi)])
    limit = FLOAT_LIMITS[iree]
    finite = min(limit, 1e10)
    return rng.choice([0.0, -0.0, 1.5, -2.25, finite, -finite, rng.uniform(-100, 100), limit, float("nan")])


def value(schema, iree, rng, depth=0, doc=""):
    """A well-typed value for `schema` (the type_schema node) and `iree` (its iree.abi type);
    tensors favour what `doc` names."""
    t, args = schema["type"], schema.get("args", [])
    if t in ("int", "float", "bool"):
        return scalar(iree, rng)
    if t == "None":
        return None
    if t == "ffi.String" and "abi.names" in schema:
        return rng.choice(schema["abi.names"])  # a fieldless enum: one of its names
    if t == "ffi.String":
        named = re.findall(r'`"([^"`]*)"`', doc)  # values the doc names, as `"pi"`
        if named and rng.random() < 0.5:
            return rng.choice(named)
        return rng.choice(["", "abc", "1234567", "12345678", "héllo wörld", "日本語テキスト", "x" * 300])
    if t == "ffi.Bytes":
        return rng.choice([b"", b"\x00\x01", b"1234567", b"12345678", bytes(range(256))])
    if t == "Optional":
        return None if rng.random() < 0.3 else value(args[0], iree[1], rng, depth, doc)
    if t == "ffi.Array":
        n = rng.randint(0, 4 if depth < 2 else 1)
        return [value(args[0], iree[1], rng, depth + 1, doc) for _ in range(n)]
    if t == "Tuple":
        leaves = [f[1] for f in iree[1:]] if iree[0] == "sdict" else iree[1:]
        return tuple(value(a, i, rng, depth + 1, doc) for a, i in zip(args, leaves))
    if t == "ffi.Map":
        n = rng.randint(0, 3)
        return {value(args[0], iree[1], rng, depth + 1, doc): value(args[1], iree[2], rng, depth + 1, doc) for _ in range(n)}
    if t == "ffi.Tensor":
        return tensor(doc, rng)
    if t == "ffi.Function":
        return callback(schema, rng)
    if t == "ffi.Shape":
        return tvm_ffi.Shape(tuple(rng.randint(0, 9) for _ in range(rng.randint(0, 4))))
    if t == "Device":
        return tvm_ffi.device(rng.choice(["cpu", "cuda"]), rng.randint(0, 3))
    if t == "DataType":
        return tvm_ffi.dtype(rng.choice(["float32", "int8", "bfloat16", "bool"]))
    if t == "Any":
        return rng.choice([1, 2.5, "any", None, [1, "two"], b"b"])
    if t == "Variant" and "abi.enum" in schema:
        # An enum with data: one variant's name, then its fields (iree.abi says nothing of
        # them, so each gets its type's widest record).
        k = rng.randrange(len(args))
        fields = args[k]["args"][1:]
        return (schema["abi.names"][k], *(value(f, widest(f), rng, depth + 1, doc) for f in fields))
    if t == "Variant":
        member = rng.choice(args)
        return value(member, widest(member), rng, depth + 1, doc)
    raise AssertionError(f"the fuzzer has no values for schema type {t!r}: teach it")


def widest(schema):
    """The iree.abi record of the widest values of `schema`, for a type iree.abi does not
    describe (a field of an enum with data, a member of a Variant)."""
    t, args = schema["type"], schema.get("args", [])
    if t in ("int", "float", "bool"):
        return {"int": "i64", "float": "f64", "bool": "i1"}[t]
    if t in ("Optional", "ffi.Array"):
        return ["optional" if t == "Optional" else "py_homogeneous_list", widest(args[0])]
    if t == "ffi.Map":
        return ["py_homogeneous_dict", widest(args[0]), widest(args[1])]
    if t == "Tuple":
        return ["stuple", *(widest(a) for a in args)]
    return "unknown"


def tensor(doc, rng):
    named = [d for name, d in DTYPES.items() if name in doc] or [np.float64]
    dtype = rng.choice(named if rng.random() < 0.75 else list(DTYPES.values()))
    shapes = {"1-D": [(0,), (5,), (9,)], "H x W x 3": [(2, 3, 3), (4, 4, 3)], "H x W": [(2, 3), (5, 4)]}
    documented = [s for phrase, ss in shapes.items() if phrase in doc for s in ss]
    shape = rng.choice(documented if documented and rng.random() < 0.75 else [(0,), (5,), (2, 3), (4, 4, 3)])
    return (np.arange(int(np.prod(shape))) % 7).astype(dtype).reshape(shape)


def callback(schema, rng):
    """A callback returning a well-typed result: typed callbacks publish `[ret, params...]`."""
    if not schema.get("args"):
        return rng.choice([lambda *a: a[0] if a else None, lambda *a: 0, lambda *a: "s"])
    ret = schema["args"][0]
    width = {"int": "i64", "float": "f64", "bool": "i1"}.get(ret["type"], "unknown")
    results = [value(ret, width, rng) for _ in range(3)]
    return lambda *a: results[len(a) % 3]


def wrong_value(schema, rng):
    """A value no conversion accepts for `schema`, or None when every value is accepted."""
    t = schema["type"]
    if t in ("int", "float", "bool"):
        return rng.choice(["text", b"bytes", [1], (1.0, 2.0)])
    if t in ("ffi.String", "ffi.Bytes"):
        return rng.choice([12345, 2.5, [1, 2]])
    if t in ("ffi.Array", "Tuple", "ffi.Map", "ffi.Tensor", "ffi.Function", "ffi.Shape", "Device", "DataType"):
        return rng.choice([12345, "text"]) if t != "DataType" else rng.choice([12345, [1]])
    if t == "Optional":
        return wrong_value(schema["args"][0], rng)
    if t == "Variant" and "abi.enum" in schema:
        return rng.choice([12345, "text", ()])  # an unknown name is a ValueError
    return None


def signature(mod, name):
    meta = mod.get_function_metadata(name)
    params = json.loads(meta["type_schema"])["named_args"]["params"]
    iree = [a[2] for a in meta["iree.abi"]["a"]]
    assert len(params) == len(iree) == len(meta["arg_names"]), f"{name}: reflection records disagree"
    return params, iree, list(meta["arg_names"])


def documented_errors(doc):
    """The exception classes a doc names, as `ValueError` (unknown names are error kinds
    Python raises as RuntimeError, which the doc then names too)."""
    names = re.findall(r"`(\w*(?:Error|Exception))`", doc)
    return tuple(getattr(builtins, n) for n in names if isinstance(getattr(builtins, n, None), type))


@pytest.fixture
def square_hook():
    """The global mathlib's sum_of_squares calls (its doc says it must be registered)."""
    tvm_ffi.register_global_func("mathlib_square", lambda x: x * x, override=True)
    yield
    tvm_ffi.remove_global_func("mathlib_square")


@pytest.mark.parametrize("lib", LIBRARIES)
def test_well_typed_calls_succeed_unless_the_error_is_documented(lib, square_hook):
    mod, names = load(lib)
    rng = random.Random(f"seed-{lib}")
    failures, never_succeeded = [], []
    for name in names:
        params, iree, _ = signature(mod, name)
        doc = mod.get_function_doc(name) or ""
        allowed = documented_errors(doc)
        # The kinds of the error type the metadata names (`<crate>.<Type>.<Variant>`).
        error_type = mod.get_function_metadata(name).get("abi.error")
        successes = 0
        for _ in range(CALLS_PER_FUNCTION):
            args = [value(p, i, rng, doc=doc) for p, i in zip(params, iree)]
            try:
                mod[name](*args)
                successes += 1
            except Exception as e:  # noqa: BLE001 - every exception is judged below
                kind = getattr(getattr(e, "__tvm_ffi_error__", None), "kind", "")
                if error_type and f".{error_type}." in kind:
                    continue
                if not isinstance(e, allowed):
                    failures.append(f"{name}{tuple(map(short, args))}: {type(e).__name__}: {e}")
        if (successes == 0) != (name in ALWAYS_RAISE):
            never_succeeded.append(f"{name}: {successes} of {CALLS_PER_FUNCTION} calls succeeded")
    assert not failures, f"{len(failures)} well-typed calls raised undocumented errors:\n" + "\n".join(failures)
    assert not never_succeeded, "\n".join(never_succeeded)


@pytest.mark.parametrize("lib", LIBRARIES)
def test_ill_typed_calls_are_type_errors(lib):
    mod, names = load(lib)
    rng = random.Random(f"bad-{lib}")
    unmistypable = set()
    for name in names:
        params, iree, arg_names = signature(mod, name)
        fn = mod[name]
        for i, p in enumerate(params):
            if wrong_value(p, rng) is None:
                unmistypable.add((lib, name, arg_names[i]))
                continue
            for _ in range(CALLS_PER_FUNCTION // 10):
                args = [value(q, w, rng) for q, w in zip(params, iree)]
                args[i] = wrong_value(p, rng)
                with pytest.raises(TypeError, match=rf"^{name}\(.*`{re.escape(arg_names[i])}`"):
                    fn(*args)
        args = [value(q, w, rng) for q, w in zip(params, iree)]
        with pytest.raises(TypeError, match=rf"takes (\d+ to )?{len(params)} argument"):
            fn(*(args + [1]))
    expected = {u for u in UNMISTYPABLE if u[0] == lib}
    assert unmistypable == expected, f"parameters no value can mistype: {sorted(unmistypable)}"


def short(v):
    text = repr(v)
    return text if len(text) < 40 else text[:37] + "..."
