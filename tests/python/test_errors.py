"""Derived error types (`#[derive(AbiError)]`) in the package `abi stubs` writes: a class per
type (`SamplingError`, a RuntimeError) and per kind (`SamplingError.BadSize`, also a
ValueError, and `BadSize` where the name is free), registered with tvm_ffi for the kind, so
an error of it arrives as its class from any library in the process. Every test of a
package runs on both routes: the Python door and the tvm_ffi route (ABI_PYTHON_DOOR=0), in
two packages over one library."""

import os
import pickle
import subprocess
import sys

import pytest
import tvm_ffi

from conftest import import_on_both_routes, target_dir
from test_stubs import make_package, mypy_strict, run

LIBRARY = "libabi_interop_lib.so"
# The package's name per route.
ROUTES = {"door": "errors_door", "tvm_ffi": "errors_tvm_ffi"}
# SamplingError's kinds: variant -> (kind, builtin base).
KINDS = {
    "BadSize": ("abi_interop_lib.SamplingError.BadSize", ValueError),
    "OutOfRange": ("abi_interop_lib.SamplingError.OutOfRange", IndexError),
    "Internal": ("abi_interop_lib.SamplingError.Internal", RuntimeError),
}
# `sample_at`'s refusals: (arguments, variant, message).
REFUSALS = [
    ((1, 0), "BadSize", "bad size: 0"),
    ((9, 5), "OutOfRange", "9 is outside 0..5"),
    ((-7, 5), "Internal", "internal: index -7 is reserved"),
]


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    """Both packages, written (not imported) into one folder."""
    out = tmp_path_factory.mktemp("error_packages")
    for name in ROUTES.values():
        make_package(out, LIBRARY, name)
    return out


@pytest.fixture(scope="module")
def packages(out):
    """Both packages, imported: the door is decided at import, by ABI_PYTHON_DOOR."""
    yield from import_on_both_routes(out, ROUTES)


@pytest.fixture(params=list(ROUTES))
def pkg(request, packages):
    """A package whose classes tvm_ffi raises: registration is process-wide, the package
    imported last wins, so each test registers its package's classes again."""
    pkg = packages[request.param]
    for variant, (kind, _) in KINDS.items():
        tvm_ffi.register_error(kind, getattr(pkg.SamplingError, variant))
    return pkg


def is_door_callable(f):
    return type(f).__module__ == "abi" and type(f).__name__ == "function"


def run_python(out, code):
    ran = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(out)), timeout=120
    )
    assert ran.returncode == 0, ran.stderr
    return ran.stdout


def test_a_class_per_type_and_per_kind(pkg):
    SamplingError = pkg.SamplingError
    assert SamplingError.__bases__ == (RuntimeError,)
    assert SamplingError.__doc__ == "What the sampling functions refuse."
    assert (SamplingError.__module__, SamplingError.__qualname__) == (pkg.__name__, "SamplingError")
    for variant, (_, base) in KINDS.items():
        cls = getattr(SamplingError, variant)
        assert getattr(pkg, variant) is cls
        assert cls.__bases__ == ((SamplingError,) if base is RuntimeError else (SamplingError, base))
        assert (cls.__module__, cls.__qualname__) == (pkg.__name__, f"SamplingError.{variant}")
    assert SamplingError.BadSize.__doc__ == "A size of zero or less."
    assert {"SamplingError", "BadSize", "OutOfRange", "Internal"} <= set(pkg.__all__)
    assert pkg.sample_at(3, 5) == 6
    assert pkg.sample_at.__doc__.endswith("\n\nRaises: SamplingError.")


def test_sample_at_takes_the_door_in_the_door_package(packages):
    assert is_door_callable(packages["door"].sample_at)
    assert not is_door_callable(packages["tvm_ffi"].sample_at)


@pytest.mark.parametrize("args, variant, message", REFUSALS)
def test_each_kind_is_caught_as_its_class_its_type_and_its_builtin(pkg, args, variant, message):
    kind, base = KINDS[variant]
    cls = getattr(pkg.SamplingError, variant)
    for caught_as in (cls, pkg.SamplingError, base, RuntimeError):
        with pytest.raises(caught_as) as e:
            pkg.sample_at(*args)
        assert type(e.value) is cls
        assert str(e.value) == message and e.value.args == (message,)
        assert e.value.__tvm_ffi_error__.kind == kind
    others = [getattr(pkg.SamplingError, v) for v in KINDS if v != variant]
    assert not isinstance(e.value, tuple(others))


def test_the_classes_pickle_by_their_qualified_names(pkg):
    assert pickle.loads(pickle.dumps(pkg.SamplingError.BadSize)) is pkg.BadSize
    made = pickle.loads(pickle.dumps(pkg.Internal("made in Python")))
    assert type(made) is pkg.Internal and str(made) == "made in Python"
    # A raised error holds tvm_ffi's error, which older releases cannot pickle.
    if "__reduce__" in vars(tvm_ffi.core.Error):
        with pytest.raises(pkg.BadSize) as e:
            pkg.sample_at(1, 0)
        again = pickle.loads(pickle.dumps(e.value))
        assert type(again) is pkg.BadSize and str(again) == "bad size: 0"
        assert again.__tvm_ffi_error__.kind == KINDS["BadSize"][0]


def test_an_argument_error_is_still_a_type_error_naming_the_function(pkg):
    with pytest.raises(TypeError) as e:
        pkg.sample_at("x", 1)
    assert not isinstance(e.value, pkg.SamplingError)
    assert str(e.value) == "sample_at(index: int, len: int) -> int: argument `index` (#0) expected int, got str"


def test_the_kind_arrives_as_its_class_from_anywhere_in_the_process(pkg):
    # The library loaded again without the package, ...
    bare = tvm_ffi.load_module(str(target_dir() / "debug" / LIBRARY))
    with pytest.raises(pkg.OutOfRange, match=r"^9 is outside 0\.\.5$"):
        bare["sample_at"](9, 5)
    # ... an error of the kind made by another export, ...
    with pytest.raises(pkg.BadSize, match="^made elsewhere$"):
        pkg.raise_kind("abi_interop_lib.SamplingError.BadSize", "made elsewhere")
    # ... and one a Python callback raises, through the library and back: its kind travels.
    def refuse(x):
        raise pkg.Internal(f"callback refused {x}")

    with pytest.raises(pkg.Internal, match="^callback refused 4$") as e:
        pkg.call_fn(refuse, 4)
    assert e.value.__tvm_ffi_error__.kind == KINDS["Internal"][0]


def test_a_key_error_kind_keeps_its_message_unquoted(pkg):
    """KeyError's str() quotes its argument, as a key; a kind based on it shows the message."""

    class Lookups(RuntimeError):
        pass

    missing = pkg._error_class((Lookups, KeyError), "Missing", "tests.Lookups.Missing", None)
    assert Lookups.Missing is missing and missing.__qualname__.endswith("Lookups.Missing")
    with pytest.raises(KeyError) as e:
        pkg.raise_kind("tests.Lookups.Missing", "no key k")
    assert type(e.value) is missing and str(e.value) == "no key k"


def test_the_package_imported_last_wins_and_importing_again_works(out):
    code = (
        "import importlib, errors_door, errors_tvm_ffi\n"
        "def caught(pkg):\n"
        "    try:\n"
        "        errors_door.sample_at(1, 0)\n"
        "    except pkg.BadSize as e:\n"
        "        return f'{type(e).__module__}.{type(e).__qualname__}'\n"
        "    except ValueError as e:\n"
        "        return f'ValueError {type(e).__module__}'\n"
        "print(caught(errors_tvm_ffi), caught(errors_door))\n"
        "importlib.reload(errors_door)\n"
        "print(caught(errors_door), caught(errors_tvm_ffi))\n"
        "importlib.reload(errors_door)\n"
        "print(caught(errors_door), errors_door.sample_at(2, 3))\n"
    )
    assert run_python(out, code).splitlines() == [
        "errors_tvm_ffi.SamplingError.BadSize ValueError errors_tvm_ffi",
        "errors_door.SamplingError.BadSize ValueError errors_door",
        "errors_door.SamplingError.BadSize 4",
    ]


def test_without_the_package_the_kind_is_a_runtime_error(out):
    code = (
        "import tvm_ffi\n"
        f"lib = tvm_ffi.load_module({str(target_dir() / 'debug' / LIBRARY)!r})\n"
        "try:\n"
        "    lib['sample_at'](1, 0)\n"
        "except RuntimeError as e:\n"
        "    print(type(e).__name__, '|', e, '|', e.__tvm_ffi_error__.kind)\n"
    )
    assert run_python(out, code) == "RuntimeError | bad size: 0 | abi_interop_lib.SamplingError.BadSize\n"


ERRORS_GOOD = """\
import interop_errors
from interop_errors import BadSize, SamplingError, sample_at


def handled(index: int, size: int) -> str:
    try:
        return str(sample_at(index, size))
    except BadSize as e:
        as_value: ValueError = e
        as_type: SamplingError = e
        return f"bad size {as_value} {as_type}"
    except interop_errors.SamplingError.OutOfRange as e:
        as_index: IndexError = e
        return f"out of range {as_index}"
    except SamplingError as e:
        as_runtime: RuntimeError = e
        return f"other {as_runtime}"


def classify(e: interop_errors.Internal) -> SamplingError:
    return e


print(handled(1, 0), handled(9, 5), handled(-7, 5), handled(2, 5), classify(interop_errors.Internal("x")))
"""

ERRORS_BAD = """\
import interop_errors

try:
    interop_errors.sample_at(1, 0)
except interop_errors.BadSize as e:
    wrong: IndexError = e
except interop_errors.SamplingError.NoSuchKind:
    pass
"""


def test_mypy_strict_reads_the_classes_and_their_bases(tmp_path):
    make_package(tmp_path, LIBRARY, "interop_errors")
    stub = (tmp_path / "interop_errors" / "__init__.pyi").read_text()
    assert "class SamplingError(RuntimeError):\n" in stub
    assert "    class BadSize(SamplingError, ValueError):\n" in stub
    assert "    class Internal(SamplingError):\n" in stub
    assert "\nBadSize = SamplingError.BadSize\n" in stub
    out = run([sys.executable, "-c", ERRORS_GOOD], tmp_path)
    assert out.stdout == (
        "bad size bad size: 0 bad size: 0 out of range 9 is outside 0..5 "
        "other internal: index -7 is reserved 4 x\n"
    ), out.stderr
    flagged = mypy_strict(tmp_path, ERRORS_GOOD, ERRORS_BAD)
    for line in [
        'bad.py:6: error: Incompatible types in assignment (expression has type "BadSize", variable has type "IndexError")',
        'bad.py:7: error: "type[SamplingError]" has no attribute "NoSuchKind"',
    ]:
        assert line in flagged, flagged
