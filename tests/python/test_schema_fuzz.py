"""Schema-driven fuzzing through the real tvm_ffi: for every export of the example
libraries, read its published type_schema, then make seeded well-typed calls (which must
succeed or raise a mapped exception, never crash) and ill-typed calls (one argument of an
unconvertible type, or a wrong count: always TypeError)."""

import json
import random

import numpy as np
import pytest
import tvm_ffi
from conftest import target_dir

LIBRARIES = ["libmathlib.so", "libsignal_kit.so", "libabi_interop_lib.so"]
CALLS_PER_FUNCTION = 60
# Domain errors a well-typed call may legitimately raise.
MAPPED = (ValueError, TypeError, KeyError, IndexError, AttributeError, AssertionError, RuntimeError, MemoryError)


def load(name):
    path = target_dir() / "debug" / name
    assert path.exists(), f"{path} is missing: run scripts/test.sh (it builds the example libraries)"
    mod = tvm_ffi.load_module(str(path))
    names = sorted(json.loads(mod["_abi_exports_json"]()).keys())
    assert names, f"{name} exports nothing"
    return mod, names


def value(schema, rng, depth=0):
    t = schema["type"]
    args = schema.get("args", [])
    if t == "int":
        return rng.choice([0, 1, -1, 7, 255, 2**31 - 1, -(2**31), 2**63 - 1, rng.randint(-1000, 1000)])
    if t == "float":
        return rng.choice([0.0, -0.0, 1.5, -2.25, 1e10, float("inf"), float("nan"), rng.uniform(-100, 100)])
    if t == "bool":
        return rng.choice([True, False])
    if t == "None":
        return None
    if t == "ffi.String":
        return rng.choice(["", "abc", "1234567", "12345678", "héllo wörld", "日本語テキスト", "x" * 300])
    if t == "ffi.Bytes":
        return rng.choice([b"", b"\x00\x01", b"1234567", b"12345678", bytes(range(256))])
    if t == "Optional":
        return None if rng.random() < 0.3 else value(args[0], rng, depth)
    if t == "ffi.Array":
        return [value(args[0], rng, depth + 1) for _ in range(rng.randint(0, 4 if depth < 2 else 1))]
    if t == "Tuple":
        return tuple(value(a, rng, depth + 1) for a in args)
    if t == "ffi.Map":
        return {value(args[0], rng, depth + 1): value(args[1], rng, depth + 1) for _ in range(rng.randint(0, 3))}
    if t == "ffi.Tensor":
        dtype = rng.choice([np.float32, np.float64, np.uint8, np.float16, np.int64])
        shape = rng.choice([(0,), (5,), (2, 3), (4, 4, 3)])
        return (np.arange(int(np.prod(shape))) % 7).astype(dtype).reshape(shape)
    if t == "ffi.Function":
        return rng.choice([lambda *a: a[0] if a else None, lambda *a: 0, lambda *a: "s"])
    return rng.choice([1, 2.5, "any"])  # Any and the rest


def wrong_value(schema, rng):
    """A value no conversion accepts for `schema`, or None when every value is accepted."""
    t = schema["type"]
    if t in ("int", "float", "bool"):
        return rng.choice(["text", b"bytes", [1], (1.0, 2.0)])
    if t in ("ffi.String", "ffi.Bytes"):
        return rng.choice([12345, 2.5, [1, 2]])
    if t in ("ffi.Array", "Tuple", "ffi.Map", "ffi.Tensor", "ffi.Function"):
        return rng.choice([12345, "text"])
    if t == "Optional":
        return wrong_value(schema["args"][0], rng)
    return None


@pytest.mark.parametrize("lib", LIBRARIES)
def test_schema_driven_calls(lib):
    mod, names = load(lib)
    rng = random.Random(f"seed-{lib}")
    total = 0
    for name in names:
        meta = mod.get_function_metadata(name)
        params = json.loads(meta["type_schema"])["named_args"]["params"]
        fn = mod[name]
        for _ in range(CALLS_PER_FUNCTION):
            args = [value(p, rng) for p in params]
            try:
                fn(*args)
            except MAPPED:
                pass
            total += 1
            # One unconvertible argument.
            if params:
                i = rng.randrange(len(params))
                bad = wrong_value(params[i], rng)
                if bad is not None:
                    args[i] = bad
                    with pytest.raises(TypeError, match=rf"^{name}\("):
                        fn(*args)
            # A wrong count.
            with pytest.raises(TypeError, match=rf"takes {len(params)} argument"):
                fn(*(args + [1]))
    assert total == CALLS_PER_FUNCTION * len(names)
