"""Calls every module-level function of the packages named on the command line with a
fixed battery of arguments (a typed guess from each function's signature, then the same
value of many kinds in every position, by position and by keyword, too few, too many and
unknown keywords) and prints one JSON object: function -> the outcome of each call (the
result's repr, or the exception's class and message), addresses blanked. Run once with
the Python door and once with ABI_PYTHON_DOOR=0 (tests/python/test_door.py): the two
outputs must be equal.

usage: door_calls.py PACKAGE_DIR PACKAGE...
"""

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
    ]


def guess(annotation):
    """A value of the annotated type, or None."""
    text = annotation or ""
    if text.startswith("Optional["):
        text = text[len("Optional[") : -1]
    m = re.match(r"Tensor\[(\w+), (\d+)\]", text)
    if m:
        dtype = {"f32": np.float32, "f64": np.float64, "i32": np.int32, "i64": np.int64, "u8": np.uint8}.get(m[1], np.float64)
        return np.ones((2,) * int(m[2]), dtype=dtype)
    if text.startswith("Tensor"):
        return np.ones(3)
    return {"int": 2, "float": 0.5, "bool": False, "str": "guess", "bytes": b"guess"}.get(text)


def signature_of(f):
    """The export's parameters `(name, annotation)` from the first line of its docs."""
    first = (f.__doc__ or "").split("\n", 1)[0]
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


def outcome(f, args, kwargs):
    try:
        result = f(*args, **kwargs)
        if isinstance(result, (int, float, str, bytes, type(None))):
            text = repr(result)
        elif isinstance(result, np.ndarray):
            text = f"ndarray {result.dtype} {result.shape} {result.flags.writeable} {result.tolist()}"
        else:
            text = type(result).__name__
    except BaseException as e:  # every outcome is compared
        message = str(e).split("\n")[0]
        text = f"{type(e).__name__}: {message}"
    return re.sub(r"0x[0-9a-f]+", "0x?", text)


def calls(f):
    try:
        names = list(inspect.signature(f).parameters)
    except (TypeError, ValueError):
        return {}
    exported = signature_of(f)
    typed = [guess(a) for _, a in exported]
    out = {}
    if len(typed) == len(names) and all(v is not None for v in typed):
        out["typed"] = outcome(f, typed, {})
        out["typed by keyword"] = outcome(f, [], dict(zip(names, typed)))
        if names:
            out["typed last by keyword"] = outcome(f, typed[:-1], {names[-1]: typed[-1]})
            out["typed twice"] = outcome(f, typed, {names[0]: typed[0]})
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
                report[f"{name}.{attr}"] = calls(f)
        report[f"{name} door"] = sorted(a for a in package.__all__ if type(getattr(package, a)).__name__ == "function" and type(getattr(package, a)).__module__ == "abi")
    print(json.dumps(report, indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
