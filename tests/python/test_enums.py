"""Fieldless enums (`#[derive(AbiEnum)]`) in the package `abi stubs` writes: a `str` enum
class per enum (members named by the Rust variants, valued by the names they cross as);
parameters take a member or the name, results are members (through lists, maps, tuples and
optionals), an unknown name is the library's ValueError. Every test runs on both routes:
the Python door and the tvm_ffi route (ABI_PYTHON_DOOR=0), in two packages over one
library."""

import enum
import pickle
import sys

import pytest

from conftest import import_on_both_routes
from test_stubs import make_package, mypy_strict, run

LIBRARY = "libabi_interop_lib.so"
# The package's name per route.
ROUTES = {"door": "enums_door", "tvm_ffi": "enums_tvm_ffi"}


@pytest.fixture(scope="module")
def packages(tmp_path_factory):
    """Both packages, imported: the door is decided at import, by ABI_PYTHON_DOOR."""
    out = tmp_path_factory.mktemp("enum_packages")
    for name in ROUTES.values():
        make_package(out, LIBRARY, name)
    yield from import_on_both_routes(out, ROUTES)


@pytest.fixture(params=list(ROUTES))
def pkg(request, packages):
    return packages[request.param]


def is_door_callable(f):
    return type(f).__module__ == "abi" and type(f).__name__ == "function"


def test_the_class_is_a_str_enum_of_the_names(pkg):
    Interp = pkg.Interp
    assert issubclass(Interp, str) and issubclass(Interp, enum.Enum)
    assert [(m.name, m.value) for m in Interp] == [("Nearest", "nearest"), ("Bilinear", "bilinear"), ("Bicubic", "cubic")]
    assert [m.value for m in pkg.Border] == ["clamp-to-edge", "mirrored-repeat"]
    assert Interp.Bicubic == "cubic" and Interp("cubic") is Interp.Bicubic
    assert repr(Interp.Nearest) == "<Interp.Nearest: 'nearest'>"
    assert Interp.__module__ == pkg.__name__
    assert {"Interp", "InterpLike", "Border", "BorderLike"} <= set(pkg.__all__)


def test_parameters_take_members_and_names(pkg):
    Interp, Border = pkg.Interp, pkg.Border
    assert pkg.describe_sampling("cubic") == "cubic at clamp-to-edge"
    assert pkg.describe_sampling(Interp.Bicubic) == "cubic at clamp-to-edge"
    assert pkg.describe_sampling(Interp.Bilinear, "mirrored-repeat", "nearest") == "bilinear at mirrored-repeat, else nearest"
    assert pkg.describe_sampling(mode="nearest", border=Border.MirroredRepeat, fallback=Interp.Bicubic) == (
        "nearest at mirrored-repeat, else cubic"
    )
    assert pkg.count_interps([Interp.Nearest, "nearest", "cubic"])[0] == {Interp.Nearest: 2, Interp.Bicubic: 1}


def test_defaults_are_members(pkg):
    import inspect

    params = inspect.signature(pkg.describe_sampling).parameters
    assert params["border"].default is pkg.Border.ClampToEdge
    assert params["fallback"].default is None
    assert inspect.signature(pkg.next_interp).parameters["mode"].default is pkg.Interp.Nearest
    assert pkg.next_interp() is pkg.Interp.Bilinear
    assert pkg.describe_sampling("nearest", fallback=None) == "nearest at clamp-to-edge"


def test_results_are_members(pkg):
    Interp, Border = pkg.Interp, pkg.Border
    assert pkg.next_interp("nearest") is Interp.Bilinear
    assert pkg.next_interp(Interp.Bicubic) is Interp.Nearest
    counts, borders = pkg.count_interps(["cubic", Interp.Nearest, "cubic"])
    # A tuple of a map (members as keys) and a list (members as items).
    assert type(counts) is dict and type(borders) is list
    assert counts == {Interp.Bicubic: 2, Interp.Nearest: 1}
    assert all(type(k) is Interp for k in counts)
    assert borders == [Border.MirroredRepeat, Border.ClampToEdge, Border.MirroredRepeat]
    assert all(type(b) is Border for b in borders)
    # A member hashes as its name: the names find the counts too.
    assert counts["cubic"] == 2
    assert pkg.count_interps([]) == ({}, [])


def test_an_unknown_name_is_the_librarys_value_error(pkg):
    with pytest.raises(ValueError) as e:
        pkg.describe_sampling("bicubic")
    assert str(e.value) == (
        'describe_sampling(mode: Interp, border: Border = "clamp-to-edge", fallback: Optional[Interp] = None) -> str: '
        'argument `mode` (#0) "bicubic" is not a name of Interp; it takes "nearest", "bilinear", "cubic"'
    )
    with pytest.raises(ValueError, match=r'argument `border` \(#1\) "clamp" is not a name of Border; it takes "clamp-to-edge", "mirrored-repeat"'):
        pkg.describe_sampling("nearest", "clamp")
    with pytest.raises(ValueError, match=r'next_interp\(.*argument `mode` \(#0\) "Nearest" is not a name of Interp'):
        pkg.next_interp("Nearest")


def test_a_wrong_type_is_a_type_error(pkg):
    with pytest.raises(TypeError, match=r"argument `mode` \(#0\) expected Interp, got int"):
        pkg.next_interp(1)
    with pytest.raises(TypeError, match=r"argument `fallback` \(#2\) expected Interp, got bytes"):
        pkg.describe_sampling("nearest", "clamp-to-edge", b"cubic")
    with pytest.raises(TypeError, match=r"argument `modes` \(#0\) .*expected Interp, got int"):
        pkg.count_interps(["nearest", 3])


def test_members_pickle_and_match(pkg):
    Interp = pkg.Interp
    assert pickle.loads(pickle.dumps(Interp.Bicubic)) is Interp.Bicubic
    match pkg.next_interp("nearest"):
        case Interp.Bilinear:
            matched = "bilinear"
        case _:
            matched = "other"
    assert matched == "bilinear"


def test_enum_parameters_take_the_door_as_names_and_as_members(packages):
    """describe_sampling (enum parameters, a `str` result) is a door callable that converts
    names and members itself: with the tvm_ffi route's function replaced, its calls still
    succeed. next_interp and count_interps, whose results become members, keep the
    package's wrapper."""
    door, plain = packages["door"], packages["tvm_ffi"]
    assert is_door_callable(door.describe_sampling)
    assert not is_door_callable(door.next_interp) and not is_door_callable(door.count_interps)
    assert not is_door_callable(plain.describe_sampling)
    native = door._native_describe_sampling
    door._native_describe_sampling = lambda *args: "tvm_ffi route"
    try:
        assert door.describe_sampling("cubic", door.Border.MirroredRepeat) == "cubic at mirrored-repeat"
        assert door.describe_sampling(door.Interp.Bilinear, door.Border.ClampToEdge, door.Interp.Nearest) == (
            "bilinear at clamp-to-edge, else nearest"
        )
        assert door.describe_sampling(mode=door.Interp.Bicubic) == "cubic at clamp-to-edge"
        with pytest.raises(ValueError, match="is not a name of Interp"):
            door.describe_sampling("bicubic")
        # What the door does not convert (bytes) goes to the tvm_ffi route's function.
        assert door.describe_sampling(b"cubic") == "tvm_ffi route"
    finally:
        door._native_describe_sampling = native


ENUMS_GOOD = """\
from interop_enums import Border, Interp, count_interps, describe_sampling, next_interp, weigh_interps

a: Interp = next_interp()
b: Interp = next_interp(Interp.Bicubic)
c: Interp = next_interp("cubic")
d: str = describe_sampling("nearest", Border.MirroredRepeat, fallback="bilinear")
counts, borders = count_interps([Interp.Nearest, "cubic"])
e: int = counts[Interp.Nearest]
f: Border = borders[0]
g: str = a
h: str = b.value
# A mapping is invariant in its keys: a dict keyed by members, and one keyed by names, each pass.
by_member: dict[Interp, float] = {Interp.Bicubic: 2.0}
by_name: dict[str, float] = {"nearest": 0.5}
w: float = weigh_interps([Interp.Bicubic, "nearest"], by_member) + weigh_interps(["nearest"], by_name)


def short(mode: Interp) -> str:
    match mode:
        case Interp.Nearest:
            return "n"
        case _:
            return "other"


print(a, b, c, d, e, f, g, h, short(c), w)
"""

ENUMS_BAD = """\
from interop_enums import Border, Interp, describe_sampling, next_interp

next_interp("bicubic")
next_interp(3)
describe_sampling(Border.ClampToEdge)
name: str = "nearest"
next_interp(name)
wrong: Border = next_interp()
"""


def test_mypy_strict_types_members_names_and_results(tmp_path):
    make_package(tmp_path, LIBRARY, "interop_enums")
    stub = (tmp_path / "interop_enums" / "__init__.pyi").read_text()
    assert 'InterpLike = Union[Interp, Literal["nearest", "bilinear", "cubic"]]\n' in stub
    assert "def next_interp(mode: InterpLike = Interp.Nearest) -> Interp:" in stub
    assert "def count_interps(modes: Sequence[InterpLike]) -> tuple[Mapping[Interp, int], Sequence[Border]]:" in stub
    out = run([sys.executable, "-c", ENUMS_GOOD], tmp_path)
    assert out.stdout.startswith("Interp.Bilinear Interp.Nearest Interp.Nearest nearest at mirrored-repeat"), out.stderr
    flagged = mypy_strict(tmp_path, ENUMS_GOOD, ENUMS_BAD)
    for line in [
        'bad.py:3: error: Argument 1 to "next_interp" has incompatible type "Literal[\'bicubic\']"',
        'bad.py:4: error: Argument 1 to "next_interp" has incompatible type "Literal[3]"',
        'bad.py:5: error: Argument 1 to "describe_sampling" has incompatible type "Literal[Border.ClampToEdge]"',
        # A str that is no literal: `Interp(name)` checks it (a ValueError for no name).
        'bad.py:7: error: Argument 1 to "next_interp" has incompatible type "str"',
        'bad.py:8: error: Incompatible types in assignment (expression has type "Interp", variable has type "Border")',
    ]:
        assert line in flagged, flagged
