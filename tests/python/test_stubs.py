"""`abi stubs`: the generated package imports and calls the library through tvm_ffi, and
mypy in strict mode accepts well-typed client code and flags a wrong argument type; object
classes become registered Python classes with typed fields and methods."""

import json
import pathlib
import subprocess
import sys
import textwrap

import pytest

from conftest import mypy_command, target_dir


def make_package(tmp_path, lib_name="libmathlib.so", name="mathlib_py"):
    lib = target_dir() / "debug" / lib_name
    abi = target_dir() / "debug" / "abi"
    assert abi.exists(), f"{abi} is missing: run scripts/test.sh (it builds abi-cli)"
    out = subprocess.run(
        [str(abi), "stubs", str(lib), "--package", name, "-o", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    package = tmp_path / name
    assert sorted(p.name for p in package.iterdir()) == ["__init__.py", "__init__.pyi", "_abi_door.py", "py.typed"]
    # Packaging is the user's: place the library next to the package's files.
    (package / lib.name).symlink_to(lib)
    return package


def mypy_strict(tmp_path, good, bad):
    """mypy --strict over client code, both files in one run: nothing may be said of `good`
    (nor of the package it imports); returns what is said of `bad`, which must be flagged.
    Skipped where mypy is not installed (the venv of the oldest apache-tvm-ffi has none)."""
    pytest.importorskip("mypy")
    (tmp_path / "good.py").write_text(good)
    (tmp_path / "bad.py").write_text(bad)
    out = run(mypy_command("good.py", "bad.py"), tmp_path)
    assert out.returncode == 1, out.stdout + out.stderr
    # A note points where an error's callee is defined (the package's stubs), and mypy
    # prints some only without a warm cache: the errors themselves must all be bad.py's.
    said = [line for line in out.stdout.splitlines() if not line.startswith("Found ") and ": note: " not in line]
    assert said and all(line.startswith("bad.py:") for line in said), out.stdout
    return out.stdout



def run(args, tmp_path, **kw):
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(tmp_path), "MYPYPATH": str(tmp_path)}
    return subprocess.run(args, capture_output=True, text=True, timeout=300, cwd=tmp_path, env=env, **kw)


GOOD = """\
import mathlib_py

total: int = mathlib_py.add(1, 2)
g: int = mathlib_py.gcd(12, 18)
hello: str = mathlib_py.greet_v2("stubs")
doubled: list[int] = mathlib_py.map_ints([1, 2], lambda x: x * 2)
doubled.append(6)
print(total, g, hello, doubled)
"""

BAD = """\
import mathlib_py

mathlib_py.add("x", 2)
"""


def test_the_package_loads_and_calls_the_library(tmp_path):
    make_package(tmp_path)
    (tmp_path / "good.py").write_text(GOOD)
    out = run([sys.executable, "good.py"], tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout == "3 6 hello, stubs [2, 4, 6]\n"


def test_the_package_finds_the_library_by_the_suffix_of_the_platform_it_runs_on(tmp_path):
    """A package whose named library is absent loads the only `*.so` beside it on Linux,
    `*.dylib` on macOS, `*.dll` on Windows: here the Linux library under those names, with
    `sys.platform` set as it is there (the file name is all the package reads)."""
    package = make_package(tmp_path)
    (package / "libmathlib.so").unlink()
    lib = target_dir() / "debug" / "libmathlib.so"
    code = "import sys, tvm_ffi; sys.platform = {!r}; import mathlib_py; print(mathlib_py.add(1, 2))"
    for platform, file_name in [("darwin", "libmathlib.dylib"), ("win32", "mathlib.dll"), ("linux", "libmath.so")]:
        (package / file_name).symlink_to(lib)
        ran = run([sys.executable, "-c", code.format(platform)], tmp_path)
        assert ran.stdout == "3\n", ran.stderr
        (package / file_name).unlink()
    (package / "libmath.so").symlink_to(lib)
    ran = run([sys.executable, "-c", code.format("darwin")], tmp_path)
    assert "ImportError: mathlib_py: expected libmathlib.so (or exactly one *.dylib) in " in ran.stderr, ran.stderr


def test_help_shows_the_signature_and_docs(tmp_path):
    make_package(tmp_path)
    script = "import pydoc, mathlib_py\nprint(pydoc.render_doc(mathlib_py.gcd, renderer=pydoc.plaintext))\n"
    out = run([sys.executable, "-c", script], tmp_path)
    assert out.returncode == 0, out.stderr
    assert "gcd(a: int, b: int) -> int" in out.stdout, out.stdout
    assert "Callable wrapper around a TVM FFI function" not in out.stdout, "not tvm_ffi's generic help"


def test_mypy_strict_accepts_good_code_and_flags_a_wrong_argument(tmp_path):
    package = make_package(tmp_path)
    stub = (package / "__init__.pyi").read_text()
    assert textwrap.dedent('''\
        def add(a: int, b: int) -> int:
            """Adds two integers; a sum outside the i64 range raises `ValueError`."""
            ...
        ''') in stub
    # A list of numbers comes back as a Python list (both routes), and the stub says so.
    assert "def map_ints(xs: Sequence[int], f: Callable[[int], int]) -> list[int]:" in stub
    assert 'def show(x: float, digits: int = 2, scale: float = 1.0, unit: str = "", plus: bool = False, label: Optional[str] = None) -> str:' in stub
    flagged = mypy_strict(tmp_path, GOOD, BAD)
    assert 'bad.py:3: error: Argument 1 to "add" has incompatible type "str"; expected "int"  [arg-type]' in flagged


OBJECTS_GOOD = """\
import counters

c = counters.Counter("a", 5)
n: int = c.add(2)
name: str = c.name
z: counters.Counter = counters.Counter.zero("z")
made: counters.Counter = counters.make_counter("q")
lc: counters.LimitedCounter = counters.make_limited("l", 10)
lc.label = "renamed"
total: int = lc.add_checked(1) + lc.add(1) + counters.counter_value(lc)
print(type(c).__name__, type(made).__name__, type(lc).__name__, n, name, z.value(), lc.label, total, lc.limit)
"""

OBJECTS_BAD = """\
import counters

c = counters.Counter("a", 5)
c.name = "b"
counters.counter_value("not a counter")
c.add("x")
counters.Counter("a")
"""


def test_object_classes_are_registered_and_typed(tmp_path):
    package = make_package(tmp_path, "libabi_objects_lib.so", "counters")
    stub = (package / "__init__.pyi").read_text()
    assert textwrap.dedent('''\
        class LimitedCounter(Counter):
            """A counter with a label that can be changed and a limit; its parent's fields and methods
            are inherited."""
            @property
            def limit(self) -> int:
                """The largest value `add_checked` allows."""
                ...
        ''') in stub
    assert "    def __init__(self, name: str, start: int) -> None:\n" in stub
    assert "    @staticmethod\n    def zero(name: str) -> Counter:\n" in stub
    assert "def make_limited(name: str, limit: int) -> LimitedCounter:" in stub
    assert "    def __init__(self, name: str, limit: int = 10) -> None:\n" in stub
    assert "    def add_checked(self, by: int = 1) -> int:\n" in stub
    # The classes are what the library's functions return: registered under their keys.
    (tmp_path / "good.py").write_text(OBJECTS_GOOD)
    out = run([sys.executable, "good.py"], tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout == "Counter Counter LimitedCounter 7 a 0 renamed 5 10\n"
    flagged = mypy_strict(tmp_path, OBJECTS_GOOD, OBJECTS_BAD)
    for line in [
        'bad.py:4: error: Property "name" defined in "Counter" is read-only  [misc]',
        'bad.py:5: error: Argument 1 to "counter_value" has incompatible type "str"; expected "Counter"  [arg-type]',
        'bad.py:6: error: Argument 1 to "add" of "Counter" has incompatible type "str"; expected "int"  [arg-type]',
        'bad.py:7: error: Missing positional argument "start" in call to "Counter"  [call-arg]',
    ]:
        assert line in flagged, flagged


TENSORS_GOOD = """\
import array

import numpy as np
import tvm_ffi

import tk

x = np.arange(6, dtype=np.float32).reshape(2, 3)
w = np.ones(3, dtype=np.float32)
out = tk.scale_rows(x, w)
tk.scale_rows_into(x, w, np.zeros((2, 3), dtype=np.float32))
again = tk.scale_rows(tvm_ffi.from_dlpack(out), tvm_ffi.from_dlpack(w))
s: float = tk.half_sum(np.zeros(2, dtype=np.float16))
from_buffer = tk.scale_rows(memoryview(bytearray(x.tobytes())).cast("f", (2, 3)), array.array("f", [1.0, 1.0, 1.0]))
print(float(np.from_dlpack(again).sum()), s, type(out).__name__, type(again).__name__, type(from_buffer).__name__)
"""

TENSORS_BAD = """\
import tk

tk.scale_rows("x", [1.0])
"""


def test_tensor_parameters_take_numpy_arrays_under_mypy_strict(tmp_path):
    package = make_package(tmp_path, "libtensor_kit.so", "tk")
    stub = (package / "__init__.pyi").read_text()
    # A tensor result is the array type of the tensor arguments: numpy in, numpy out.
    # A buffer object (memoryview, bytearray, array.array) is taken as an array too.
    assert "def scale_rows(x: Union[tvm_ffi.Tensor, _DLPackArray, _Buffer], w: Union[tvm_ffi.Tensor, _DLPackArray, _Buffer]) -> Any:" in stub
    assert "_Buffer = Union[memoryview[Any], bytearray, array.array[Any]]" in stub
    # Strided and converting parameters are tensors too; a converting one says so.
    assert "def scale_strided_into(x: Union[tvm_ffi.Tensor, _DLPackArray, _Buffer], factor: float, out: Union[tvm_ffi.Tensor, _DLPackArray, _Buffer]) -> None:" in stub
    assert "Tensors: x is Tensor[f32, 1] (other dtypes cast same_kind)." in stub
    flagged = mypy_strict(tmp_path, TENSORS_GOOD, TENSORS_BAD)
    assert run([sys.executable, "good.py"], tmp_path).stdout == "15.0 0.0 ndarray Tensor ndarray\n"
    assert 'Argument 1 to "scale_rows" has incompatible type "str"; expected "Tensor | _DLPackArray | memoryview[Any] | bytearray | array[Any]"' in flagged


KEYWORDS_GOOD = """\
import counters
import mathlib_py

a: str = mathlib_py.show(2.5)
b: str = mathlib_py.show(2.5, unit="m", plus=True)
c: str = mathlib_py.show(x=1.0, digits=0, label="n")
d = list(mathlib_py.window_sums([1.0, 2.0, 3.0, 4.0]))
e = list(mathlib_py.window_sums(xs=[1.0, 2.0], window=None))
f: int = mathlib_py.add(a=1, b=2) + mathlib_py.add(1, b=2)
lc = counters.LimitedCounter("k")
g: int = lc.add_checked() + lc.add_checked(by=2)
h: int = counters.LimitedCounter(name="z", limit=3).limit + counters.Counter(name="q", start=4).add(by=1)
z: counters.Counter = counters.Counter.zero(name="zz")
print(a, b, c, d, e, f, g, h, z.value())
"""

KEYWORDS_BAD = """\
import mathlib_py

mathlib_py.show(2.5, units="m")
mathlib_py.show(2.5, digits="2")
mathlib_py.add(1)
"""


def test_keywords_and_defaults_from_python(tmp_path):
    make_package(tmp_path)
    make_package(tmp_path, "libabi_objects_lib.so", "counters")
    out = run([sys.executable, "-c", KEYWORDS_GOOD], tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout == "2.50 +2.50m n: 1 [6.0, 9.0] [3.0] 6 4 8 0\n"
    flagged = mypy_strict(tmp_path, KEYWORDS_GOOD, KEYWORDS_BAD)
    assert 'bad.py:3: error: Unexpected keyword argument "units" for "show"' in flagged
    assert 'bad.py:4: error: Argument "digits" to "show" has incompatible type "str"; expected "int"' in flagged
    assert 'bad.py:5: error: Missing positional argument "b" in call to "add"' in flagged
    # A wrong keyword is Python's own TypeError naming it; too few names what is missing.
    for code, says in [
        ("mathlib_py.show(2.5, units='m')", "show() got an unexpected keyword argument 'units'"),
        ("mathlib_py.add(1)", "add() missing 1 required positional argument: 'b'"),
        ("counters.LimitedCounter(nme='k')", "__init__() got an unexpected keyword argument 'nme'"),
        ("mathlib_py.show(2.5, 2, digits=3)", "show() got multiple values for argument 'digits'"),
    ]:
        failed = run([sys.executable, "-c", f"import mathlib_py, counters; {code}"], tmp_path)
        assert says in failed.stderr, failed.stderr
    # The real signature, for help() and inspect.
    sig = run([sys.executable, "-c", "import inspect, mathlib_py; print(inspect.signature(mathlib_py.show))"], tmp_path)
    assert sig.stdout == "(x, digits=2, scale=1.0, unit='', plus=False, label=None)\n"


def test_names_python_cannot_take_stay_positional_only(tmp_path):
    package = make_package(tmp_path)
    # Expanded struct leaves (`p.x`) are no keywords: positional-only, before `/`.
    assert "def norm_flat(p_x: float, p_y: float, /) -> float:" in (package / "__init__.pyi").read_text()
    assert "def norm_flat(p_x, p_y, /):" in (package / "__init__.py").read_text()
    ok = run([sys.executable, "-c", "import mathlib_py; print(mathlib_py.norm_flat(3.0, 4.0))"], tmp_path)
    assert ok.stdout == "5.0\n", ok.stderr
    refused = run([sys.executable, "-c", "import mathlib_py; mathlib_py.norm_flat(p_x=3.0, p_y=4.0)"], tmp_path)
    assert "positional-only arguments passed as keyword arguments: 'p_x, p_y'" in refused.stderr


STRUCTS_GOOD = """\
import mathlib_py
from mathlib_py import Marker, Point

c = mathlib_py.centroid([(0.0, 0.0), Point(2.0, 4.0)])
assert c is not None
x: float = c.x
box = mathlib_py.bounds([Point(1.0, 5.0), Point(3.0, 2.0)])
assert box is not None
lo, hi = box
corners: list[float] = [p.y for p in mathlib_py.corners(lo, hi)]
m: Marker = mathlib_py.move_marker(("pin", Point(1.0, 2.0), 3), 1.0, 1.0, None)
# An argument may be the named tuple, a tuple or a list, nested too, as the library takes it.
norms = [mathlib_py.norm(Point(3.0, 4.0)), mathlib_py.norm((3.0, 4.0)), mathlib_py.norm([3.0, 4.0])]
listed = mathlib_py.move_marker(["pin", [1.0, 2.0], 3], 0.0, 0.0, "moved")
p: mathlib_py.PointLike = [0.0, 1.0]
print(c, x, isinstance(c, tuple), box, corners, m.at.y, m.w, mathlib_py.centroid([]), norms, listed, mathlib_py.norm(p))
"""

STRUCTS_BAD = """\
import mathlib_py

c = mathlib_py.centroid([(0.0, 0.0)])
assert c is not None
c.z
mathlib_py.norm("ab")
mathlib_py.norm((1.0,))
mathlib_py.norm([1.0, "y"])
mathlib_py.move_marker(["pin", [1.0, 2.0], b"3"], 0.0, 0.0, None)
"""


def test_struct_results_are_named_tuples(tmp_path):
    package = make_package(tmp_path)
    stub = (package / "__init__.pyi").read_text()
    assert "class Point(NamedTuple):\n    x: float\n    y: float\n" in stub
    assert "class Marker(NamedTuple):\n    label: str\n    at: Point\n    w: int\n" in stub
    # Results are named tuples, through optionals, tuples and lists; arguments are
    # `PointLike`: the named tuple, a tuple or a list of the fields.
    assert "PointLike = Union[Point, tuple[float, float], list[float]]\n" in stub
    assert "MarkerLike = Union[Marker, tuple[str, PointLike, int], list[Union[str, PointLike, int]]]\n" in stub
    assert "def centroid(points: Sequence[PointLike]) -> Optional[Point]:" in stub
    assert "def bounds(points: Sequence[PointLike]) -> Optional[tuple[Point, Point]]:" in stub
    assert "def corners(lo: PointLike, hi: PointLike) -> Sequence[Point]:" in stub
    assert "def move_marker(m: MarkerLike, dx: float, dy: float, label: Optional[str]) -> Marker:" in stub
    out = run([sys.executable, "-c", STRUCTS_GOOD], tmp_path)
    assert out.stdout == (
        "Point(x=1.0, y=2.0) 1.0 True (Point(x=1.0, y=2.0), Point(x=3.0, y=5.0)) [2.0, 2.0, 5.0, 5.0] 3.0 3 None "
        "[5.0, 5.0, 5.0] Marker(label='moved', at=Point(x=1.0, y=2.0), w=3) 1.0\n"
    ), out.stderr
    flagged = mypy_strict(tmp_path, STRUCTS_GOOD, STRUCTS_BAD)
    for line in [
        'bad.py:5: error: "Point" has no attribute "z"',
        'bad.py:6: error: Argument 1 to "norm" has incompatible type "str"',
        'bad.py:7: error: Argument 1 to "norm" has incompatible type "tuple[float]"',
        'bad.py:8: error: List item 1 has incompatible type "str"',
        'bad.py:9: error: List item 2 has incompatible type "bytes"',
    ]:
        assert line in flagged, flagged
    # The signature names the struct, in help() and in the library's own errors alike.
    script = "import mathlib_py\nhelp(mathlib_py.norm)\ntry:\n    mathlib_py.norm('ab')\nexcept TypeError as e:\n    print(e)\n"
    out = run([sys.executable, "-c", script], tmp_path)
    assert "norm(p: Point) -> float" in out.stdout, out.stdout + out.stderr
    assert out.stdout.count("norm(p: Point) -> float") == 2, out.stdout


PYTHON_313 = pathlib.Path.home() / ".pyenv" / "versions" / "3.13.0" / "bin" / "python3"

DOCS_CHECK = """\
import ast, inspect, json, sys
docs, version = json.loads(sys.argv[1]), sys.argv[2]
for name in ["__init__.py", "__init__.pyi"]:
    with open(f"trial/{name}", encoding="utf-8") as f:
        text = f.read()
    # Compiles, with no warning (an invalid escape warns).
    compile(text, name, "exec", flags=0, dont_inherit=True)
    tree = ast.parse(text)
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef) or node.name not in docs:
            continue
        if name.endswith(".py"):
            # The package sets each function's docs with `@_doc("...")`: the text exactly.
            (decorator,) = node.decorator_list
            sig = docs[node.name]["python"]
            assert ast.literal_eval(decorator.args[0]) == sig + "\\n\\n" + docs[node.name]["doc"], node.name
        else:
            # The stub's docstring reads as the docs (editors clean its indentation).
            assert ast.get_docstring(node) == inspect.cleandoc(docs[node.name]["doc"]), node.name
print(version, "ok")
"""


def test_docs_of_any_text_round_trip_exactly(tmp_path):
    """A doc ending in a quote, or holding backslashes, quotes, non-ASCII and control
    characters, becomes a valid literal whose value is the doc text (issue 38)."""
    make_package(tmp_path, "libabi_trial_lib.so", "trial")
    inspect_json = subprocess.run(
        [str(target_dir() / "debug" / "abi"), "inspect", "--json", str(target_dir() / "debug" / "libabi_trial_lib.so")],
        capture_output=True, text=True, check=True,
    )
    exports = json.loads(inspect_json.stdout)["exports"]
    docs = {name: {"doc": e["doc"], "python": e["python"]} for name, e in exports.items()}
    assert docs["status"]["doc"] == 'Returns "ok"'
    assert '\0' in docs["every_character"]["doc"] and '\r' in docs["every_character"]["doc"]
    # Every Python the project meets reads the files the same way (3.13 cleans docstrings).
    pythons = [sys.executable] + ([str(PYTHON_313)] if PYTHON_313.exists() else [])
    for python in pythons:
        out = run([python, "-W", "error", "-c", DOCS_CHECK, json.dumps(docs), python], tmp_path)
        assert out.returncode == 0 and out.stdout.endswith(" ok\n"), out.stdout + out.stderr
    # Imported, each function's __doc__ is its signature and the doc text, exactly.
    script = "import json, trial; print(json.dumps({n: getattr(trial, n).__doc__ for n in ['status', 'every_character']}))"
    out = run([sys.executable, "-c", script], tmp_path)
    assert out.returncode == 0, out.stderr
    for name, doc in json.loads(out.stdout).items():
        assert doc == docs[name]["python"] + "\n\n" + docs[name]["doc"], name
