"""Calls every module-level function of the packages named on the command line with a
fixed battery of arguments (a typed guess from each function's signature, then the same
value of many kinds in every position, by position and by keyword, too few, too many and
unknown keywords) and prints one JSON object: function -> the outcome of each call (the
result's repr, or the exception's class and message), addresses blanked. Run once with
the Python door and once with ABI_PYTHON_DOOR=0 (tests/python/test_door.py): the two
outputs must be equal.

usage: door_calls.py PACKAGE_DIR PACKAGE...
"""

import array
import enum
import importlib
import inspect
import json
import os
import re
import sys

import numpy as np


class IndexRaises:
    """An object whose `__index__` raises."""

    def __index__(self):
        raise RuntimeError("__index__ refused")


def read_only(a):
    a.setflags(write=False)
    return a


def candidates():
    lone_surrogate = "\ud800"
    return [
        3,
        -1,
        2**63,
        -(2**80),
        True,
        None,
        1.5,
        "abc",
        "a longer text than seven bytes",
        "nul\0inside a long text",
        "ünïcödé, longer than seven bytes 🎉",
        lone_surrogate,
        b"xy",
        b"longer bytes than seven",
        np.arange(4, dtype=np.float32),
        np.arange(6.0).reshape(2, 3),
        np.arange(8.0)[::2],
        np.arange(6.0).reshape(2, 3).T,
        np.broadcast_to(np.ones(1), (3,)),
        read_only(np.arange(4.0)),
        read_only(np.arange(4, dtype=np.float32)),
        np.frombuffer(b"\0\0\x80?" * 4, np.float32),
        np.arange(4, dtype=np.int32),
        np.arange(4, dtype=">f8"),
        np.int64(3),
        IndexRaises(),
        [1, 2],
        (1.0, 2.0),
        memoryview(np.arange(4, dtype=np.float32)),
        memoryview(np.arange(6.0).reshape(2, 3)),
        memoryview(bytearray(32)).cast("d")[::2],
        memoryview(b"\0" * 16).cast("d"),
        bytearray(b"\1\2\3\4"),
        array.array("d", [1.0, 2.0, 3.0]),
        array.array("f", [1.0, 2.0]),
        array.array("q", [1, 2]),
        memoryview(b"longer bytes than seven"),
    ]


def guess(annotation, package=None):
    """A value of the annotated type, or None: for an enum the package defines a class for,
    its first member."""
    text = annotation or ""
    if text.startswith("Optional["):
        text = text[len("Optional[") : -1]
    named = getattr(package, text, None)
    if isinstance(named, type) and issubclass(named, enum.Enum):
        return next(iter(named))
    m = re.match(r"Tensor\[(\w+), (\d+)\]", text)
    if m:
        dtype = {"f32": np.float32, "f64": np.float64, "i32": np.int32, "i64": np.int64, "u8": np.uint8}.get(m[1], np.float64)
        return np.ones((2,) * int(m[2]), dtype=dtype)
    if text.startswith("Tensor"):
        return np.ones(3)
    return {"int": 2, "float": 0.5, "bool": False, "str": "guess", "bytes": b"guess"}.get(text)


def signature_of(doc):
    """The export's parameters `(name, annotation)` from the first line of `doc`."""
    first = (doc or "").split("\n", 1)[0]
    m = re.match(r"\w+\((.*)\)( -> .*)?$", first)
    if not m or not m[1]:
        return []
    params, depth, start = [], 0, 0
    for i, ch in enumerate(m[1] + ","):
        depth += ch in "[(" and 1 or ch in "])" and -1 or 0
        if ch == "," and depth == 0:
            name, _, annotation = m[1][start:i].strip().partition(": ")
            params.append((name.split(" = ")[0], annotation.split(" = ")[0]))
            start = i + 1
    return params


def shown(result):
    """A result as text: its repr, an array's dtype, shape, flag and items, a tuple's or a
    list's items so, else its type."""
    if type(result) is int and 2**40 <= result < 2**48:
        return "an address"  # a user-space address (launch_site's data pointer), not a value
    if isinstance(result, (int, float, str, bytes, type(None))):
        return repr(result)
    if isinstance(result, np.ndarray):
        return f"ndarray {result.dtype} {result.shape} {result.flags.writeable} {result.tolist()}"
    if type(result) in (tuple, list):
        return f"{type(result).__name__} [{', '.join(shown(r) for r in result)}]"
    return type(result).__name__


def outcome(f, args, kwargs):
    try:
        text = shown(f(*args, **kwargs))
    except BaseException as e:  # every outcome is compared
        message = str(e).split("\n")[0]
        text = f"{type(e).__name__}: {message}"
    return re.sub(r"0x[0-9a-f]+", "0x?", text)


def variants(value):
    """Other values for an argument the typed guess gives `value`: for an array, the same
    data read-only, transposed, strided, as a list, of other dtypes, byte-swapped, 0-d; for a
    scalar, values of other kinds and ranges."""
    if isinstance(value, np.ndarray):
        with np.errstate(invalid="ignore"):
            return _array_variants(value)
    return [0, -1, 3, 2**63, 1.5, True, None, "abc", np.int64(2)]


def _array_variants(value):
    return [
        read_only(value.copy()),
        value.T.copy().T if value.ndim > 1 else value,
        np.ascontiguousarray(value.T),
        np.repeat(value, 2, axis=-1)[..., ::2] if value.ndim else value,
        value.tolist(),
        value.astype(np.float64),
        value.astype(np.int32),
        value.astype(value.dtype.newbyteorder()),
        np.ones((), value.dtype),
        np.ones((0,) * max(value.ndim, 1), value.dtype),
        np.ones((3,) * max(value.ndim, 1), value.dtype),
        None,
        memoryview(value.copy()),
        memoryview(read_only(value.copy())),
        bytearray(value.tobytes()),
        array.array("d", value.ravel().astype(np.float64)),
        array.array("q", value.ravel().astype(np.int64)),
    ]


def op_calls(f, exported, names):
    """The calls of an op (`pkg.op(args..., *, outputs=None)`): its arguments guessed from
    the export's annotations (its first docs line after "The export: "), outputs left to
    the op, each argument in turn replaced by its variants; outputs given or None."""
    outs = [n for n in names if inspect.signature(f).parameters[n].kind is inspect.Parameter.KEYWORD_ONLY]
    args = [n for n in names if n not in outs]
    typed = dict((n, guess(a)) for n, a in exported)
    values = [typed.get(n) for n in args]
    out = {}
    if any(v is None for v in values):
        return out
    out["op typed"] = outcome(f, values, {})
    out["op by keyword"] = outcome(f, [], dict(zip(args, values)))
    out["op outputs None"] = outcome(f, values, {n: None for n in outs})
    if outs:
        out["op output given"] = outcome(f, values, {outs[0]: np.zeros(1)})
        out["op unknown keyword"] = outcome(f, values, {"no_such_parameter": 1})
    out["op one too many"] = outcome(f, values + [1], {})
    out["op one too few"] = outcome(f, values[:-1], {})
    for i, name in enumerate(args):
        for k, v in enumerate(variants(values[i])):
            changed = list(values)
            changed[i] = v
            out[f"op {name} #{k}"] = outcome(f, changed, {})
    return out


def calls(f, package):
    try:
        names = list(inspect.signature(f).parameters)
    except (TypeError, ValueError):
        return {}
    op = re.search(r"^The export: (.*)$", f.__doc__ or "", re.M)
    exported = signature_of(op[1] if op else f.__doc__)
    typed = [guess(a, package) for _, a in exported]
    out = op_calls(f, exported, names) if op else {}
    if len(typed) == len(names) and all(v is not None for v in typed):
        out["typed"] = outcome(f, typed, {})
        out["typed by keyword"] = outcome(f, [], dict(zip(names, typed)))
        if names:
            out["typed last by keyword"] = outcome(f, typed[:-1], {names[-1]: typed[-1]})
            out["typed twice"] = outcome(f, typed, {names[0]: typed[0]})
        if any(isinstance(v, enum.Enum) for v in typed):
            out["typed as names"] = outcome(f, [v.value if isinstance(v, enum.Enum) else v for v in typed], {})
    for i, v in enumerate(candidates()):
        out[f"all #{i}"] = outcome(f, [v] * len(names), {})
        if names:
            out[f"keywords #{i}"] = outcome(f, [], {n: v for n in names})
    out["none"] = outcome(f, [], {})
    out["one too many"] = outcome(f, [2] * (len(names) + 1), {})
    out["unknown keyword"] = outcome(f, [2] * len(names), {"no_such_parameter": 1})
    return out


# Functions left out: `rendezvous` waits 10 seconds for a partner that never comes
# (tests/python/test_door.py calls it from two threads); and those the environment variable
# ABI_DOOR_CALLS_SKIP names (comma-separated).
SKIP = {"interop_lib.rendezvous"} | set(filter(None, os.environ.get("ABI_DOOR_CALLS_SKIP", "").split(",")))


def main():
    sys.path.insert(0, sys.argv[1])
    report = {}
    for name in sys.argv[2:]:
        package = importlib.import_module(name)
        for attr in sorted(package.__all__):
            f = getattr(package, attr)
            if callable(f) and not isinstance(f, type) and f"{name}.{attr}" not in SKIP:
                report[f"{name}.{attr}"] = calls(f, package)
        report[f"{name} door"] = sorted(a for a in package.__all__ if type(getattr(package, a)).__name__ == "function" and type(getattr(package, a)).__module__ == "abi")
    print(json.dumps(report, indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
