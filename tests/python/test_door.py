"""The Python door (issue 51): every plain function of every fixture library's package is
called with the same battery of good and bad arguments with the door and with it forced
off (ABI_PYTHON_DOOR=0); results, exception classes and messages must be the same. Also:
which interpreters the door serves, and what the callables look like to Python."""

import json
import os
import pathlib
import pickle
import subprocess
import sys

import pytest

from conftest import PASSES_BIGINT, target_dir

HERE = pathlib.Path(__file__).resolve().parent

# (package, library file): each package in a process of its own (api_v1 and api_v2, and the
# objects twins, register the same type keys with other layouts).
LIBRARIES = [
    ("api_v1", "libapi_v1.so"),
    ("api_v2", "libapi_v2.so"),
    ("interop_lib", "libabi_interop_lib.so"),
    ("mathlib", "libmathlib.so"),
    ("objects_lib", "libabi_objects_lib.so"),
    ("objects_twin", "libabi_objects_twin.so"),
    ("objects_conflict", "libabi_objects_conflict.so"),
    ("trial_lib", "libabi_trial_lib.so"),
    ("running_stats", "librunning_stats.so"),
    ("signal_kit", "libsignal_kit.so"),
    ("tensor_kit", "libtensor_kit.so"),
    ("op_kit", "libop_kit.so"),
    ("iree_kit", "libiree_kit.so"),
    ("cuda_kit", "libcuda_kit.so"),
]


@pytest.fixture(scope="module")
def packages(tmp_path_factory):
    out = tmp_path_factory.mktemp("door-packages")
    abi = target_dir() / "debug" / "abi"
    for name, lib in LIBRARIES:
        library = target_dir() / "debug" / lib
        made = subprocess.run(
            [str(abi), "stubs", str(library), "--package", name, "-o", str(out)], capture_output=True, text=True
        )
        assert made.returncode == 0, made.stderr
        (out / name / lib).symlink_to(library)
    return out


# What releases of tvm_ffi without BigInt cannot take: a u64 result above i64::MAX is an
# integer object of a type index they do not know, and they abort the process (both routes:
# the door leaves u64 results to tvm_ffi).
SKIP = "" if PASSES_BIGINT else "interop_lib.u64_max"


def report(packages, name, door):
    env = dict(os.environ, ABI_PYTHON_DOOR="1" if door else "0", PYTHONHASHSEED="0", ABI_DOOR_CALLS_SKIP=SKIP)
    ran = subprocess.run(
        [sys.executable, str(HERE / "door_calls.py"), str(packages), name],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert ran.returncode == 0, ran.stderr
    return json.loads(ran.stdout)


@pytest.mark.parametrize("name", [name for name, _ in LIBRARIES])
def test_every_call_is_the_same_with_the_door_and_without(packages, name):
    with_door, without = report(packages, name, True), report(packages, name, False)
    served = with_door.pop(f"{name} door")
    assert without.pop(f"{name} door") == [], "ABI_PYTHON_DOOR=0 leaves every function on the tvm_ffi route"
    if name not in ("running_stats", "objects_conflict", "objects_twin"):
        assert served, f"the door serves some of {name}'s functions"
    assert with_door.keys() == without.keys()
    differ = [
        f"{f} [{case}]: door {with_door[f][case]!r}, tvm_ffi {without[f].get(case)!r}"
        for f in with_door
        for case in with_door[f]
        if with_door[f][case] != without[f].get(case)
    ]
    assert not differ, "\n".join(differ)
    assert sum(len(v) for v in with_door.values()) > 50


def run_python(packages, code, **env):
    ran = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(packages), **env),
        timeout=120,
    )
    assert ran.returncode == 0, ran.stderr
    return ran.stdout


# Interpreters the door does not serve, faked in a process after tvm_ffi and numpy are
# imported (their layouts or C API differ from what the door reads).
UNSERVED = {
    "free-threaded": "import sysconfig\n"
    "real = sysconfig.get_config_var\n"
    "sysconfig.get_config_var = lambda name: 1 if name == 'Py_GIL_DISABLED' else real(name)\n",
    "PyPy": "import sys, types\n"
    "sys.implementation = types.SimpleNamespace(**{**vars(sys.implementation), 'name': 'pypy'})\n",
    "CPython 3.9": "import sys\nsys.version_info = (3, 9, 18, 'final', 0)\n",
    "a debug build": "import sys\nsys.gettotalrefcount = lambda: 0\n",
    "32-bit": "import ctypes\nreal = ctypes.sizeof\nctypes.sizeof = lambda t: 4 if t is ctypes.c_void_p else real(t)\n",
}


# Which route `mathlib.add` takes in a new process, and its result.
ROUTE_PROBE = "import mathlib; print(type(mathlib.add).__module__, type(mathlib.add).__name__, mathlib.add(2, 3))"


def test_the_door_is_decided_at_import(packages):
    """The door serves GIL-enabled release builds of CPython 3.10 and newer, 64-bit (this
    one); ABI_PYTHON_DOOR=0 takes the tvm_ffi route for every call."""
    assert run_python(packages, ROUTE_PROBE) == "abi function 5\n"
    assert run_python(packages, ROUTE_PROBE, ABI_PYTHON_DOOR="0") == "builtins function 5\n"


@pytest.mark.parametrize("interpreter", UNSERVED)
def test_an_interpreter_the_door_does_not_serve_takes_the_tvm_ffi_route(packages, interpreter):
    """Another interpreter (faked after tvm_ffi and numpy are imported) takes the tvm_ffi route
    for every call, with the same result."""
    assert run_python(packages, "import tvm_ffi, numpy\n" + UNSERVED[interpreter] + ROUTE_PROBE) == "builtins function 5\n"


def test_a_library_of_another_door_version_keeps_the_tvm_ffi_route(packages):
    """A package asking for a door version the library does not speak is answered with the
    library's own version and binds nothing."""
    out = run_python(
        packages,
        "import mathlib, mathlib._abi_door as door\n"
        "door.VERSION = 3\n"
        "door._OPENED.clear()\n"
        "ns = {'add': lambda a, b: 'tvm_ffi route'}\n"
        "door.bind(ns, mathlib._library_path(), ['add'], False)\n"
        "print(ns['add'](1, 2))\n",
    )
    assert out == "tvm_ffi route\n"


def test_the_callables_look_like_the_functions_they_replace(packages):
    out = run_python(
        packages,
        "import inspect, pickle, pydoc, mathlib\n"
        "f = mathlib.gcd\n"
        "print(f.__name__, f.__qualname__, f.__module__)\n"
        "print(inspect.signature(f))\n"
        "print(f.__doc__.splitlines()[0])\n"
        "print(pickle.loads(pickle.dumps(f)) is f)\n"
        "print(inspect.isroutine(f), callable(f))\n"
        "text = pydoc.render_doc(f, renderer=pydoc.plaintext)\n"
        "print('gcd(a, b)' in text, 'gcd(a: int, b: int) -> int' in text)\n"
        "class Holder:\n"
        "    g = mathlib.gcd\n"
        "print(Holder().g(12, 18), repr(f).startswith('<function gcd at 0x'))\n",
    )
    assert out.splitlines() == [
        "gcd gcd mathlib",
        "(a, b)",
        "gcd(a: int, b: int) -> int",
        "True",
        "True True",
        "True True",
        "6 True",
    ]


def test_string_results_are_exact_strs_on_both_routes(packages):
    # Through the door, a String result over 7 bytes is made a `str` by the shim itself (no
    # Str object between): each is an exact `str` that only the list and the loop hold, on
    # both routes.
    code = (
        "import sys, interop_lib as m\n"
        "rs = [m.greet('wörld, a longer name 🎉'), m.greet('x'), m.count_call('é', 5),\n"
        "      m.salute('Ada Lovelace'), m.salute(''), m.salute(name='Al')]\n"
        "for r in rs:\n"
        "    print(type(r).__name__, repr(r), r is None or sys.getrefcount(r))\n"
    )
    want = [
        "str 'hello, wörld, a longer name 🎉' 3",
        "str 'hello, x' 3",
        "str 'ééééé' 3",
        "str 'greetings, Ada Lovelace' 3",
        "NoneType None True",
        "str 'greetings, Al' 3",
    ]
    assert run_python(packages, code, ABI_PYTHON_DOOR="1").splitlines() == want
    # The tvm_ffi route: the same values as tvm_ffi.String, its subclass of `str`.
    plain = [line.replace("str ", "String ", 1) if line.startswith("str ") else line for line in want]
    assert run_python(packages, code, ABI_PYTHON_DOOR="0").splitlines() == plain


def test_multiprocessing_sends_a_door_function_to_a_worker(packages):
    out = run_python(
        packages,
        "import multiprocessing as mp, mathlib\n"
        "if __name__ == '__main__':\n"
        "    with mp.get_context('spawn').Pool(1) as pool:\n"
        "        print(pool.apply(mathlib.add, (20, 22)), pool.starmap(mathlib.gcd, [(12, 18), (30, 45)]))\n",
    )
    assert out == "42 [6, 15]\n"


def test_threads_run_a_kernel_in_parallel_through_the_door(packages):
    """Two threads meet inside `rendezvous` (each waits there until the other arrives), which
    only happens if each releases the GIL while it runs: an export taking an array does."""
    out = run_python(
        packages,
        "import threading, numpy as np, interop_lib\n"
        "assert type(interop_lib.rendezvous).__module__ == 'abi'\n"
        "x = np.arange(4.0)\n"
        "results = []\n"
        "threads = [threading.Thread(target=lambda: results.append(interop_lib.rendezvous(x, 2))) for _ in range(2)]\n"
        "[t.start() for t in threads]\n"
        "[t.join() for t in threads]\n"
        "print(results)\n",
    )
    assert out == "[6.0, 6.0]\n"


def test_no_deadlock_waiting_on_a_lock_held_inside_a_python_callback(packages):
    """A thread holds the library's lock while a Python callback runs; the main thread calls
    `wait_for_lock` (`gil = "release"`), which waits for that lock without the GIL, so the
    callback, which needs the GIL, finishes and lets it go."""
    code = (
        "import threading, time, interop_lib\n"
        "inside = threading.Event()\n"
        "def callback():\n"
        "    inside.set()\n"
        "    time.sleep(0.2)\n"
        "holder = threading.Thread(target=lambda: interop_lib.with_lock_held(callback))\n"
        "holder.start()\n"
        "inside.wait()\n"
        "print(type(interop_lib.wait_for_lock).__module__, interop_lib.wait_for_lock())\n"
        "holder.join()\n"
    )
    for door in ("1", "0"):
        ran = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            env=dict(os.environ, PYTHONPATH=str(packages), ABI_PYTHON_DOOR=door),
            timeout=60,
        )
        assert ran.returncode == 0, ran.stderr
        assert ran.stdout == ("abi 1\n" if door == "1" else "builtins 1\n")


def test_the_gil_choice_is_the_same_on_both_routes(packages):
    """Exports of numbers and strings keep the GIL, others release it, `gil = ...` decides
    where stated: the door and the tvm_ffi route (`release_gil` of its function) agree."""
    out = run_python(
        packages,
        "import interop_lib as p\n"
        "for name in ['add', 'echo_string', 'tensor_sum', 'call_fn', 'wait_for_lock']:\n"
        "    print(name, getattr(p, '_native_' + name).release_gil)\n",
        ABI_PYTHON_DOOR="0",
    )
    assert out.split("\n")[:-1] == [
        "add False",
        "echo_string False",
        "tensor_sum True",
        "call_fn True",
        "wait_for_lock True",
    ]


def test_eight_threads_through_the_door_count_exactly(packages):
    """tests/python/door_threads.py (also run under AddressSanitizer by scripts/test-gil.sh)."""
    out = run_python(packages, (HERE / "door_threads.py").read_text())
    assert out == "16000 [] True\n"


def test_abi_inspect_lists_no_door_entry():
    """The door's C entries are not exports: `abi inspect` lists the same functions."""
    library = target_dir() / "debug" / "libmathlib.so"
    listed = subprocess.run(
        [str(target_dir() / "debug" / "abi"), "inspect", "--no-load", "--json", str(library)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    symbols = subprocess.run(["nm", "-D", "--defined-only", str(library)], capture_output=True, text=True).stdout
    assert "abi_python_door_open" in symbols, "the library has the door"
    assert "door" not in listed, listed[:500]


def test_a_tensor_result_is_a_numpy_array_for_numpy_callers_on_both_routes(packages):
    """numpy in, numpy out (through the door, or through tvm_ffi with the door off); a call
    given no numpy array gets a tvm_ffi.Tensor as before; the array keeps the tensor's
    memory alive after every other reference is gone."""
    code = (
        "import gc, numpy as np, tvm_ffi, tensor_kit as tk\n"
        "r = tk.as_i32(np.arange(5, dtype=np.int64))\n"
        "t = tk.as_i32(tvm_ffi.from_dlpack(np.arange(3, dtype=np.int64)))\n"
        "gc.collect()\n"
        "r2 = r[1:]\n"
        "del r\n"
        "gc.collect()\n"
        "print(type(tk.as_i32).__module__, type(r2).__name__, r2.dtype, r2.tolist(), type(t).__name__)\n"
    )
    assert run_python(packages, code) == "abi ndarray int32 [1, 2, 3, 4] Tensor\n"
    assert run_python(packages, code, ABI_PYTHON_DOOR="0") == "builtins ndarray int32 [1, 2, 3, 4] Tensor\n"


def test_buffer_objects_are_arrays_on_both_routes_and_are_released(packages):
    """A memoryview, bytearray or array.array given for a tensor parameter is read in place
    by the door and made a numpy array by the tvm_ffi route: the same results (a numpy
    array for a tensor result), and the buffer is released after the call, also when the
    call goes on to the tvm_ffi route after the door took it (the bytearray can grow)."""
    code = (
        "import array, numpy as np, tensor_kit as tk\n"
        "x = bytearray(np.arange(6, dtype=np.float32).tobytes())\n"
        "w = array.array('f', [1.0, 2.0, 3.0])\n"
        "r = tk.scale_rows(memoryview(x).cast('f', (2, 3)), w)\n"
        "lengths = tk.row_lengths(memoryview(np.ones((2, 4), np.int64)))\n"
        "try:\n"
        "    tk.scale_rows(memoryview(x).cast('f', (2, 3)), 'not an array')\n"
        "except TypeError as e:\n"
        "    refused = type(e).__name__\n"
        "x.extend(b'grows')\n"
        "try:\n"
        "    tk.scale_rows_into(np.ones((1, 3), np.float32), w, memoryview(b'\\0' * 12).cast('f', (1, 3)))\n"
        "except BufferError as e:\n"
        "    refused += ' ' + type(e).__name__\n"
        "print(type(tk.scale_rows).__module__, type(r).__name__, r.tolist(), lengths, refused, len(x))\n"
    )
    want = "[[0.0, 2.0, 6.0], [3.0, 8.0, 15.0]] [4, 4] TypeError BufferError 29\n"
    assert run_python(packages, code) == "abi ndarray " + want
    assert run_python(packages, code, ABI_PYTHON_DOOR="0") == "builtins ndarray " + want


def test_read_only_strided_and_released_arrays_are_the_same_on_both_routes(packages):
    """Read-only arrays (np.frombuffer, a read-only memmap) are read in place for a parameter
    the export only reads, and a broadcast one for a strided parameter; a read-only array for
    a parameter the export may write is refused naming it; a non-contiguous array or
    memoryview for a compact parameter is the export's refusal; a released memoryview is
    refused. The same on both routes."""
    code = (HERE / "door_arrays.py").read_text()
    compact = "ValueError: scale_rows(x: Tensor[f32, 2], w: Tensor[f32, 1]) -> Tensor: argument `x` (#0) tensor is not contiguous (row-major compact): shape [2, 3], strides [{}] (a StridedTensor parameter takes any strides)"
    read_only = "BufferError: scale_rows_into: argument `out` (#2) is a read-only array, and scale_rows_into may write the tensor it takes: pass a writable array (numpy.array(out) is a copy)"
    want = [
        "broadcast, compact parameter: " + compact.format("0, 1"),
        "broadcast, strided parameter: ok [3.0, 3.0]",
        "frombuffer: ok [[0.0, 2.0, 6.0], [3.0, 8.0, 15.0]]",
        "read-only memmap: ok [[0.0, 2.0, 6.0], [3.0, 8.0, 15.0]]",
        "read-only for a parameter written: " + read_only,
        "memmap for a parameter written: " + read_only,
        "transposed, compact parameter: " + compact.format("1, 2"),
        "strided memoryview, compact parameter: " + compact.format("6, 2"),
        "released memoryview: ValueError: operation forbidden on released memoryview object",
    ]
    assert run_python(packages, code, ABI_PYTHON_DOOR="1").splitlines() == ["abi"] + want
    assert run_python(packages, code, ABI_PYTHON_DOOR="0").splitlines() == ["builtins"] + want


def test_a_str_that_is_not_utf8_names_the_function_and_argument_on_both_routes(packages):
    """A lone surrogate cannot cross as UTF-8: tvm_ffi's UnicodeEncodeError, naming the
    function and the argument (by keyword too; also a str given for bytes, which crosses as
    its UTF-8), or "an argument" for one inside a struct."""
    code = (
        "import mathlib\n"
        "for call in (lambda: mathlib.greet_v2('\\ud800'), lambda: mathlib.show(1.0, unit='a\\udc00'),\n"
        "             lambda: mathlib.move_marker(('\\ud800', (0.0, 0.0), 1), 1.0, 1.0, None)):\n"
        "    try:\n"
        "        call()\n"
        "    except UnicodeEncodeError as e:\n"
        "        print(e)\n"
        "import interop_lib\n"
        "for call in (lambda: interop_lib.byte_len('\\ud800'),):\n"
        "    try:\n"
        "        call()\n"
        "    except UnicodeEncodeError as e:\n"
        "        print(e)\n"
        "    except TypeError as e:\n"
        "        print('TypeError', str(e).splitlines()[0])\n"
    )
    want = [
        "'utf-8' codec can't encode character '\\ud800' in position 0: surrogates not allowed (greet_v2: argument "
        "`name` (#0) is not valid UTF-8)",
        "'utf-8' codec can't encode character '\\udc00' in position 1: surrogates not allowed (show: argument "
        "`unit` (#3) is not valid UTF-8)",
        "'utf-8' codec can't encode character '\\ud800' in position 0: surrogates not allowed (move_marker: an "
        "argument is not valid UTF-8)",
        "'utf-8' codec can't encode character '\\ud800' in position 0: surrogates not allowed (byte_len: argument "
        "`data` (#0) is not valid UTF-8)",
    ]
    for door in ("1", "0"):
        assert run_python(packages, code, ABI_PYTHON_DOOR=door).splitlines() == want


def test_numbers_are_taken_as_pyo3_takes_them_and_other_values_named_on_both_routes(packages):
    """A number tvm_ffi does not take is taken as PyO3 extracts one: an int through
    `__index__` (a 0-d integer array; an error it raises is raised), a float through
    `__float__` (a Decimal, a 0-d array), a bool from numpy.bool_. Another refused argument
    that tvm_ffi passed as an opaque object, or as a container it made of a list or dict, is
    named by its Python type (the export's message said "OpaquePyObject", "Array", "Map", or
    "float" for a Fraction tvm_ffi made a float),
    at the top level and as an element of a list, and a class given for its instance (an
    enum variant not called); a tvm_ffi value keeps its own name."""
    code = (
        "import decimal, fractions, numpy as np, tvm_ffi, interop_lib, mathlib, tensor_kit\n"
        "class Index:\n"
        "    def __index__(self):\n"
        "        return 7\n"
        "class Raises:\n"
        "    def __index__(self):\n"
        "        raise RuntimeError('from __index__')\n"
        "calls = [(mathlib.add, (Index(), 1)), (mathlib.add, (np.array(3), 1)), (mathlib.describe, (decimal.Decimal('1.5'), 'm')),\n"
        "         (mathlib.describe, (np.array(2.5), 'm')), (lambda **k: mathlib.show(1.0, **k), (), {'plus': np.bool_(True)}),\n"
        "         (mathlib.add, (Raises(), 1)), (mathlib.add, (decimal.Decimal(1), 2)), (mathlib.add, (1, np.bool_(True))),\n"
        "         (mathlib.add, (fractions.Fraction(3, 1), 1)), (mathlib.add, (2.0, 1)),\n"
        "         (mathlib.add, ({1: 2}, 1)), (mathlib.add, (tvm_ffi.convert([1]), 1)),\n"
        "         (mathlib.map_ints, ([1, decimal.Decimal(2)], abs)), (tensor_kit.scale_rows, ([[1.0]], np.ones(1, np.float32))),\n"
        "         (interop_lib.figure_area, (interop_lib.Figure.Empty,))]\n"
        "for f, args, *kw in calls:\n"
        "    try:\n"
        "        print(repr(f(*args, **(kw[0] if kw else {}))))\n"
        "    except Exception as e:\n"
        "        print(type(e).__name__, str(e)[max(str(e).find('argument'), 0):])\n"
    )
    want = [
        "8",
        "4",
        "'1.5 m'",
        "'2.5 m'",
        "'+1.00'",
        "RuntimeError from __index__",
        "TypeError argument `a` (#0) expected int, got decimal.Decimal",
        "TypeError argument `b` (#1) expected int, got numpy.bool",
        "TypeError argument `a` (#0) expected int, got fractions.Fraction",
        "TypeError argument `a` (#0) expected int, got float",
        "TypeError argument `a` (#0) expected int, got dict",
        "TypeError argument `a` (#0) expected int, got Array",
        "TypeError argument `xs` (#0) element 1: expected int, got decimal.Decimal",
        "TypeError argument `x` (#0) expected Tensor[f32, 2], got list",
        "TypeError argument `s` (#0) expected Figure, got the class interop_lib.Figure.Empty (not an instance)",
    ]
    for door in ("1", "0"):
        assert run_python(packages, code, ABI_PYTHON_DOOR=door).splitlines() == want


def test_keywords_that_skip_a_default_take_the_door(packages):
    """A call naming a later parameter by keyword and leaving an earlier one to its default
    (`show(2.5, unit="m")`) takes the door, which fills the gap from the wrapper's
    `__defaults__` (no frame of the package runs); the same results without the door, and a
    missing required parameter is the wrapper's TypeError on both routes."""
    code = (
        "import sys, mathlib as m\n"
        "frames = []\n"
        "sys.setprofile(lambda f, e, _: e == 'call' and 'mathlib' in f.f_code.co_filename and frames.append(f.f_code.co_name))\n"
        "r = [m.show(2.5, unit='m'), m.show(2.5, plus=True), m.show(x=1.0, label='L'), m.show(2.5, 3, unit='s', label=None)]\n"
        "sys.setprofile(None)\n"
        "print(r, len(frames))\n"
        "try:\n"
        "    m.show(unit='m')\n"
        "except TypeError as e:\n"
        "    print(e)\n"
    )
    results = "['2.50m', '+2.50', 'L: 1.00', '2.500s']"
    missing = "show() missing 1 required positional argument: 'x'"
    assert run_python(packages, code, ABI_PYTHON_DOOR="1").splitlines() == [f"{results} 0", missing]
    assert run_python(packages, code, ABI_PYTHON_DOOR="0").splitlines() == [f"{results} 4", missing]


def test_without_numpy_a_buffer_object_says_numpy_is_needed(packages):
    """A memoryview, bytearray or array.array is taken as an array through numpy: without
    numpy (hidden here after tvm_ffi's import), a plain export and an op say so, on both
    routes, instead of failing on numpy's import while handling the refusal."""
    code = (
        "import array, sys, tvm_ffi\n"
        "sys.modules['numpy'] = None\n"
        "import tensor_kit, op_kit\n"
        "for call in (lambda: tensor_kit.strided_row_sums(memoryview(array.array('d', [1.0, 2.0])).cast('B').cast('d', (1, 2))),\n"
        "             lambda: op_kit.scale_rows([[1.0, 2.0]], [1.0, 1.0])):\n"
        "    try:\n"
        "        call()\n"
        "    except ImportError as e:\n"
        "        print(type(e).__name__, e.name, e)\n"
    )
    want = [
        "ModuleNotFoundError numpy a memoryview, bytearray or array.array is passed as an array through numpy, which is "
        "not installed (pip install numpy)",
        "ModuleNotFoundError numpy an op takes a list, memoryview, bytearray or array.array as a numpy array, and numpy "
        "is not installed (pip install numpy)",
    ]
    for door in ("1", "0"):
        assert run_python(packages, code, ABI_PYTHON_DOOR=door).splitlines() == want
