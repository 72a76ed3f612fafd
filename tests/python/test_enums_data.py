"""Enums with data (`#[derive(AbiEnum)]` on an enum whose variants hold fields): a value
crosses as a tagged tuple, the variant's name and then its fields. Through a bare
`tvm_ffi.load_module` that is a tuple in and a tvm_ffi Array out; the package `abi stubs`
writes gives the enum a base class (`Figure`) and a class per variant beneath it
(`Figure.Circle`), a tuple subclass whose value is that tagged tuple, so an instance is an
argument as it is, and its wrappers make results instances, at any depth. Every test of a
package runs on both routes: the Python door and the tvm_ffi route (ABI_PYTHON_DOOR=0), in
two packages over one library."""

import copy
import inspect
import pickle
import sys

import pytest
import tvm_ffi

from conftest import import_on_both_routes
from test_stubs import make_package, mypy_strict, run

LIBRARY = "libabi_interop_lib.so"
# The package's name per route.
ROUTES = {"door": "figures_door", "tvm_ffi": "figures_tvm_ffi"}
# A triangle of area 8, as the library returns its corners (a list of tuples).
TRIANGLE = [(0.0, 0.0), (4.0, 0.0), (0.0, 4.0)]
UNKNOWN_NAME = (
    'figure_area(s: Figure) -> float: argument `s` (#0) "Hexagon" is not a name of Figure; '
    'it takes "Circle", "Rect", "Polygon", "Empty"'
)


@pytest.fixture(scope="module")
def packages(tmp_path_factory):
    """Both packages, imported: the door is decided at import, by ABI_PYTHON_DOOR."""
    out = tmp_path_factory.mktemp("figure_packages")
    for name in ROUTES.values():
        make_package(out, LIBRARY, name)
    yield from import_on_both_routes(out, ROUTES)


@pytest.fixture(params=list(ROUTES))
def pkg(request, packages):
    return packages[request.param]


def test_a_bare_load_module_takes_tuples_and_returns_arrays(interop):
    """Without the package, a value is the tagged tuple itself: a tuple (or list) of the
    variant's name and its fields going in, a tvm_ffi Array of them coming out."""
    assert interop.figure_area(("Rect", 2.0, 3.0)) == 6.0
    assert interop.figure_area(["Circle", 1.0]) == pytest.approx(3.141592653589793)
    assert interop.figure_area(("Polygon", TRIANGLE, "tri")) == 8.0
    assert interop.figure_area(("Empty",)) == 0.0
    scaled = interop.scale_figure(("Rect", 1.0, 2.0), 3.0)
    assert isinstance(scaled, tvm_ffi.Array) and list(scaled) == ["Rect", 3.0, 6.0]
    polygon = interop.scale_figure(("Polygon", [(1.0, 2.0)], "p"), 2.0)
    assert polygon[0] == "Polygon" and [tuple(c) for c in polygon[1]] == [(2.0, 4.0)] and polygon[2] == "p*2"
    best, by_kind = interop.largest_figure([("Circle", 1.0), ("Rect", 2.0, 3.0), ("Empty",)])
    assert list(best) == ["Rect", 2.0, 3.0]
    assert isinstance(by_kind, tvm_ffi.Map) and sorted(by_kind.keys()) == ["Circle", "Empty", "Rect"]
    assert [list(f) for f in by_kind["Circle"]] == [["Circle", 1.0]]
    with pytest.raises(ValueError) as e:
        interop.figure_area(("Hexagon", 1.0))
    assert str(e.value) == UNKNOWN_NAME


def test_a_variant_is_the_tuple_of_its_name_and_fields(pkg):
    Figure = pkg.Figure
    circle = Figure.Circle(r=2.0)
    assert isinstance(circle, Figure) and isinstance(circle, tuple) and type(circle) is Figure.Circle
    assert tuple(circle) == ("Circle", 2.0) and circle[0] == "Circle" and len(circle) == 2
    assert circle.r == 2.0 and Figure.Circle(2.0).r == 2.0
    assert tuple(Figure.Rect(1.0, h=2.0)) == ("Rect", 1.0, 2.0)
    assert tuple(Figure.Rect(h=2.0, w=1.0)) == ("Rect", 1.0, 2.0)
    polygon = Figure.Polygon(TRIANGLE, "tri")
    assert tuple(polygon) == ("Polygon", TRIANGLE, "tri") and polygon._0 == TRIANGLE and polygon._1 == "tri"
    assert tuple(Figure.Empty()) == ("Empty",)
    assert Figure.Circle.__qualname__ == "Figure.Circle" and Figure.Circle.__module__ == pkg.__name__
    assert Figure.Circle._fields == ("r",) and Figure.Polygon._fields == ("_0", "_1") and Figure.Empty._fields == ()
    assert str(inspect.signature(Figure.Rect)) == "(w, h)" and str(inspect.signature(Figure.Polygon)) == "(_0, _1, /)"
    assert Figure.Circle.__doc__ == 'The variant Figure.Circle: the tuple ("Circle", r).'
    assert "Figure.Circle, Figure.Rect, Figure.Polygon, Figure.Empty" in Figure.__doc__
    assert {"Figure", "FigureLike"} <= set(pkg.__all__)


def test_repr_is_the_constructor_call(pkg):
    Figure = pkg.Figure
    assert repr(Figure.Circle(r=2.0)) == "Figure.Circle(r=2.0)"
    assert repr(Figure.Rect(1.0, 2.5)) == "Figure.Rect(w=1.0, h=2.5)"
    assert repr(Figure.Polygon([(0.0, 0.0)], "tri")) == "Figure.Polygon([(0.0, 0.0)], 'tri')"
    assert repr(Figure.Empty()) == "Figure.Empty()"
    assert str(pkg.scale_figure(Figure.Circle(1.0), 2.0)) == "Figure.Circle(r=2.0)"


def test_equal_only_to_the_same_variant_with_equal_fields(pkg):
    Figure = pkg.Figure
    circle = Figure.Circle(2.0)
    assert circle == Figure.Circle(r=2.0) and not circle != Figure.Circle(2.0)
    assert circle == Figure.Circle(2), "fields compare as Python values"
    assert circle != Figure.Circle(3.0) and circle != Figure.Rect(2.0, 2.0)
    # Not equal to the plain tuple it crosses as, either way round.
    assert circle != ("Circle", 2.0) and ("Circle", 2.0) != circle
    assert not circle == ("Circle", 2.0) and not ("Circle", 2.0) == circle
    assert circle != "Circle" and circle != None  # noqa: E711
    assert Figure.Empty() == Figure.Empty()


def test_hashing_agrees_with_equality(pkg):
    Figure = pkg.Figure
    assert hash(Figure.Circle(2.0)) == hash(Figure.Circle(r=2.0))
    figures = {Figure.Circle(2.0), Figure.Circle(r=2.0), Figure.Rect(1.0, 2.0), Figure.Empty(), Figure.Empty()}
    assert figures == {Figure.Circle(2.0), Figure.Rect(1.0, 2.0), Figure.Empty()}
    names = {Figure.Circle(2.0): "circle", Figure.Polygon(((0.0, 0.0),), "dot"): "polygon"}
    assert names[Figure.Circle(2.0)] == "circle" and names[Figure.Polygon(((0.0, 0.0),), "dot")] == "polygon"
    assert ("Circle", 2.0) not in names
    # A result's polygon holds its corners as a list, which hashes no more than in a tuple.
    with pytest.raises(TypeError, match="unhashable type: 'list'"):
        hash(pkg.scale_figure(Figure.Polygon(TRIANGLE, "tri"), 1.0))


def test_no_attribute_can_be_set(pkg):
    circle = pkg.Figure.Circle(2.0)
    with pytest.raises(AttributeError):
        circle.r = 3.0
    with pytest.raises(AttributeError):
        circle.radius = 3.0
    with pytest.raises(AttributeError):
        del circle.r
    assert not hasattr(circle, "__dict__") and circle.r == 2.0


def test_a_variant_pickles_and_copies(pkg):
    Figure = pkg.Figure
    for figure in [Figure.Circle(2.0), Figure.Polygon(TRIANGLE, "tri"), Figure.Empty()]:
        for again in [pickle.loads(pickle.dumps(figure)), copy.copy(figure), copy.deepcopy(figure)]:
            assert again == figure and type(again) is type(figure)


def test_a_wrong_construction_is_a_type_error_naming_the_variant(pkg):
    Figure = pkg.Figure
    for make, message in [
        (lambda: Figure.Circle(), "Figure.Circle() missing 1 required argument: 'r'"),
        (lambda: Figure.Rect(), "Figure.Rect() missing 2 required arguments: 'w', 'h'"),
        (lambda: Figure.Circle(1.0, 2.0), "Figure.Circle() takes 1 positional argument but 2 were given"),
        (lambda: Figure.Empty(1.0), "Figure.Empty() takes 0 positional arguments but 1 was given"),
        (lambda: Figure.Circle(radius=1.0), "Figure.Circle() got an unexpected keyword argument 'radius'"),
        (lambda: Figure.Rect(1.0, w=2.0), "Figure.Rect() got multiple values for argument 'w'"),
        (
            lambda: Figure.Polygon(_0=TRIANGLE, _1="tri"),
            "Figure.Polygon() takes its fields by position only, got the keyword argument '_0'",
        ),
    ]:
        with pytest.raises(TypeError) as e:
            make()
        assert str(e.value) == message
    # The base class makes no instances: its variants do.
    with pytest.raises(TypeError) as e:
        Figure(("Circle", 1.0))
    assert str(e.value) == (
        "Figure is an enum with data: construct one of its variants "
        "(Figure.Circle, Figure.Rect, Figure.Polygon, Figure.Empty)"
    )


def describe(Figure, figure):
    """`figure` matched by keyword and by position."""
    match figure:
        case Figure.Circle(r=r):
            return f"circle {r}"
        case Figure.Rect(w, h):
            return f"rect {w}x{h}"
        case Figure.Polygon(corners, label):
            return f"{label}: {len(corners)} corners"
        case Figure.Empty():
            return "empty"
    return "not a figure"


def test_match_takes_keyword_and_positional_patterns(pkg):
    Figure = pkg.Figure
    assert describe(Figure, Figure.Circle(2.0)) == "circle 2.0"
    assert describe(Figure, pkg.scale_figure(Figure.Rect(1.0, 2.0), 2.0)) == "rect 2.0x4.0"
    assert describe(Figure, pkg.scale_figure(("Polygon", TRIANGLE, "tri"), 1.0)) == "tri*1: 3 corners"
    assert describe(Figure, pkg.scale_figure(("Empty",), 1.0)) == "empty"
    # A plain tuple is no instance of a variant's class.
    assert describe(Figure, ("Circle", 2.0)) == "not a figure"
    match Figure.Circle(1.5):
        case Figure.Circle(radius):
            assert radius == 1.5
        case _:
            pytest.fail("a positional pattern did not match")
    with pytest.raises(TypeError, match="accepts 0 positional sub-patterns"):
        match Figure.Empty():
            case Figure.Empty(x):
                pass


def test_every_export_takes_instances_and_returns_them(pkg):
    Figure = pkg.Figure
    assert pkg.figure_area(Figure.Circle(r=1.0)) == pytest.approx(3.141592653589793)
    assert pkg.figure_area(Figure.Rect(2.0, 3.0)) == 6.0
    assert pkg.figure_area(Figure.Polygon(TRIANGLE, "tri")) == 8.0
    assert pkg.figure_area(Figure.Empty()) == 0.0
    for figure, scaled in [
        (Figure.Circle(1.0), Figure.Circle(3.0)),
        (Figure.Rect(1.0, 2.0), Figure.Rect(3.0, 6.0)),
        (Figure.Polygon([(1.0, 2.0)], "p"), Figure.Polygon([(3.0, 6.0)], "p*3")),
        (Figure.Empty(), Figure.Empty()),
    ]:
        result = pkg.scale_figure(figure, 3.0)
        assert result == scaled and type(result) is type(scaled)
        assert type(result[0]) is str
    corners = pkg.scale_figure(Figure.Polygon(TRIANGLE, "tri"), 1.0)._0
    assert type(corners) is list and all(type(c) is tuple for c in corners) and corners == TRIANGLE


def test_results_nested_in_optionals_maps_and_lists_are_instances(pkg):
    Figure = pkg.Figure
    figures = [Figure.Circle(1.0), Figure.Rect(2.0, 3.0), Figure.Polygon(TRIANGLE, "tri"), Figure.Empty(), Figure.Rect(1.0, 1.0)]
    best, by_kind = pkg.largest_figure(figures)
    assert best == Figure.Polygon(TRIANGLE, "tri") and type(best) is Figure.Polygon
    assert type(by_kind) is dict and all(type(v) is list for v in by_kind.values())
    assert by_kind == {
        "Circle": [Figure.Circle(1.0)],
        "Rect": [Figure.Rect(2.0, 3.0), Figure.Rect(1.0, 1.0)],
        "Polygon": [Figure.Polygon(TRIANGLE, "tri")],
        "Empty": [Figure.Empty()],
    }
    assert all(isinstance(f, Figure) for fs in by_kind.values() for f in fs)
    assert pkg.largest_figure([]) == (None, {})


def test_plain_tuples_are_arguments_too(pkg):
    Figure = pkg.Figure
    assert pkg.figure_area(("Rect", 2.0, 3.0)) == 6.0
    assert pkg.figure_area(["Circle", 0.0]) == 0.0
    assert pkg.scale_figure(("Circle", 1.0), 2.0) == Figure.Circle(2.0)
    best, by_kind = pkg.largest_figure([("Circle", 0.5), Figure.Rect(2.0, 3.0), ("Empty",)])
    assert best == Figure.Rect(2.0, 3.0) and by_kind["Empty"] == [Figure.Empty()]


def test_bad_input_is_the_librarys_error(pkg):
    with pytest.raises(ValueError) as e:
        pkg.figure_area(("Hexagon", 1.0))
    assert str(e.value) == UNKNOWN_NAME
    with pytest.raises(TypeError, match=r"argument `s` \(#0\) Figure\.Circle\.r: expected float, got str"):
        pkg.figure_area(pkg.Figure.Circle("2"))
    with pytest.raises(TypeError, match=r"argument `s` \(#0\) expected Figure\.Rect\b.*\bgot a tuple of 2 items"):
        pkg.figure_area(("Rect", 1.0))
    with pytest.raises(TypeError, match=r"argument `s` \(#0\) expected Figure, got str"):
        pkg.figure_area("Circle")
    with pytest.raises(TypeError, match=r"largest_figure\(.*argument `figures` \(#0\) .*Figure\.Circle\.r: expected float"):
        pkg.largest_figure([pkg.Figure.Circle(1.0), pkg.Figure.Circle(None)])


def is_door_callable(f):
    return type(f).__module__ == "abi" and type(f).__name__ == "function"


def test_functions_taking_or_returning_them_keep_the_packages_def(packages):
    """The Python door does not convert tagged tuples: the library does not serve a
    function taking one (figure_area keeps its wrapper), and the package keeps its wrapper
    for one returning one (it converts the result)."""
    for pkg in packages.values():
        for f in (pkg.figure_area, pkg.scale_figure, pkg.largest_figure):
            assert not is_door_callable(f) and inspect.isfunction(f)
    assert is_door_callable(packages["door"].describe_sampling)


FROM_A_NEWER_LIBRARY = """\
import figures_old
try:
    figures_old.scale_figure(("Empty",), 1.0)
except ValueError as e:
    print(e)
print(figures_old.scale_figure(("Circle", 1.0), 2.0))
"""


def test_a_variant_the_package_does_not_know_is_a_clear_error(tmp_path):
    """A library newer than its package may return a variant the package has no class
    for (here, the package has lost Figure.Empty)."""
    package = make_package(tmp_path, LIBRARY, "figures_old")
    init = package / "__init__.py"
    text = init.read_text()
    empty = '_variant(Figure, "Empty", "Empty", (), """The variant Figure.Empty: the tuple ("Empty",).""")\n'
    assert empty in text
    init.write_text(text.replace(empty, ""))
    out = run([sys.executable, "-c", FROM_A_NEWER_LIBRARY], tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout == (
        "figures_old.Figure has no variant 'Empty', which the library returned: this package was generated "
        "from another build of the library (run `abi stubs` on this one)\nFigure.Circle(r=2.0)\n"
    )


FIGURES_GOOD = """\
from interop_figures import Figure, FigureLike, figure_area, largest_figure, scale_figure

circle = Figure.Circle(r=2.0)
polygon = Figure.Polygon([(0.0, 0.0), (4.0, 0.0), (0.0, 4.0)], "tri")
figures: list[FigureLike] = [circle, Figure.Rect(1.0, h=2.0), polygon, Figure.Empty(), ("Circle", 1.0)]
area: float = figure_area(circle) + figure_area(("Rect", 1.0, 2.0))
scaled: Figure = scale_figure(polygon, 2.0)
best, by_kind = largest_figure(figures)
rects: list[Figure] = list(by_kind["Rect"])
r: float = circle.r
label: str = polygon._1
corners: float = sum(x for x, _ in polygon._0)
keyed: dict[Figure, int] = {circle: 1}


def describe(f: Figure) -> str:
    match f:
        case Figure.Circle(r=radius):
            return f"circle {radius + 1.0}"
        case Figure.Rect(w, h):
            return f"rect {w * h}"
        case Figure.Polygon(points, name):
            return f"{name}: {len(points)} corners"
        case Figure.Empty():
            return "empty"
        case _:
            return "other"


print(describe(scaled), best is not None and describe(best), area, r, label, corners, rects, keyed)
"""

FIGURES_BAD = """\
from interop_figures import Figure, figure_area, scale_figure

Figure.Circle("2")
Figure.Circle(radius=1.0)
Figure.Polygon(_0=[], _1="tri")
circle = Figure.Circle(1.0)
circle.r = 2.0
n: int = circle.r
figure_area("Circle")
rect: Figure.Rect = scale_figure(circle, 1.0)
"""


def test_mypy_strict_types_constructors_fields_matches_and_results(tmp_path):
    make_package(tmp_path, LIBRARY, "interop_figures")
    stub = (tmp_path / "interop_figures" / "__init__.pyi").read_text()
    for line in [
        "class Figure(tuple[Any, ...]):\n",
        "    class Circle(Figure):\n",
        '        __match_args__ = ("_0", "_1")\n',
        "        def __new__(cls, _0: Sequence[tuple[float, float]], _1: str, /) -> Figure.Polygon: ...\n",
        "        def r(self) -> float: ...\n",
        "FigureLike = Union[Figure, tuple[Any, ...]]\n",
        "def scale_figure(s: FigureLike, k: float) -> Figure:",
        "def largest_figure(figures: Sequence[FigureLike]) -> tuple[Optional[Figure], Mapping[str, Sequence[Figure]]]:",
    ]:
        assert line in stub, line
    out = run([sys.executable, "-c", FIGURES_GOOD], tmp_path)
    assert out.stdout == (
        "tri*2: 3 corners circle 3.0 14.566370614359172 2.0 tri 4.0 [Figure.Rect(w=1.0, h=2.0)] {Figure.Circle(r=2.0): 1}\n"
    ), out.stderr
    flagged = mypy_strict(tmp_path, FIGURES_GOOD, FIGURES_BAD)
    for line in [
        'bad.py:3: error: Argument 1 to "Circle" has incompatible type "str"; expected "float"',
        'bad.py:4: error: Unexpected keyword argument "radius" for "Circle"',
        'bad.py:5: error: Unexpected keyword argument "_0" for "Polygon"',
        'bad.py:7: error: Property "r" defined in "Circle" is read-only',
        'bad.py:8: error: Incompatible types in assignment (expression has type "float", variable has type "int")',
        'bad.py:9: error: Argument 1 to "figure_area" has incompatible type "str"',
        'bad.py:10: error: Incompatible types in assignment (expression has type "Figure", variable has type "Rect")',
    ]:
        assert line in flagged, flagged
