"""User object types (fixtures/objects-lib): Rust structs deriving `abi_core::Object` seen
from the real tvm_ffi package, with and without a Python class registered for them."""

import gc
import json
import subprocess
import sys
import threading
import textwrap

import pytest
import tvm_ffi

from conftest import load, needs_stubgen_type_schema, run_stubgen, target_dir


@pytest.fixture(scope="module")
def objects():
    return load("libabi_objects_lib.so")


@pytest.fixture(scope="module")
def twin():
    return load("libabi_objects_twin.so")


def dropped_now(objects):
    """How many counters the library has dropped, once Python has released its garbage."""
    gc.collect()
    return objects.dropped()


def test_returned_object_is_an_instance_of_the_auto_built_class(objects):
    c = objects.make_counter("a")
    assert type(c).__name__ == "Counter"
    assert isinstance(c, tvm_ffi.Object)
    assert c.name == "a"
    assert c.start == 0
    assert c.add(2) == 2
    assert c.value() == 2
    assert objects.counter_value(c) == 2


def test_a_method_called_with_a_wrong_count_says_self_is_counted(objects):
    c = objects.make_counter("a")
    with pytest.raises(TypeError) as e:
        c.add()
    assert str(e.value) == "Counter.add(self: mylib.Counter, by: int) -> int takes 2 arguments (self included), got 1: missing `by` (#1)"
    with pytest.raises(TypeError) as e:
        type(c).zero()  # a static method has no receiver to count
    assert str(e.value) == "Counter.zero(name: str) -> mylib.Counter takes 1 argument, got 0: missing `name` (#0)"


def test_read_only_fields_refuse_assignment(objects):
    c = objects.make_counter("a")
    with pytest.raises(AttributeError):
        c.name = "b"
    with pytest.raises(AttributeError):
        c.start = 3
    assert c.name == "a"


def test_only_marked_fields_are_reflected(objects):
    info = type(objects.make_counter("a")).__tvm_ffi_type_info__
    assert [f.name for f in info.fields] == ["name", "start"]  # `value` stays private to Rust
    assert {m.name for m in info.methods} == {"__ffi_init__", "add", "value", "zero"}


def test_methods_and_fields_carry_their_docs(objects):
    cls = type(objects.make_counter("a"))
    assert cls.add.__doc__.startswith("Adds `by` and returns the new value.")
    assert cls.name.__doc__ == "The counter's name."


def test_static_method_on_the_class(objects):
    cls = type(objects.make_counter("a"))
    z = cls.zero("z")
    assert (z.name, z.start, z.value()) == ("z", 0, 0)
    assert type(z) is cls


def test_owned_reference_round_trip_keeps_identity(objects):
    c = objects.make_counter("a")
    back = objects.keep(c)
    assert back.same_as(c)
    back.add(5)
    assert c.value() == 5


@pytest.mark.parametrize("bad", ["a string", None, 3, 1.5])
def test_wrong_argument_raises_type_error_naming_parameter_and_key(objects, bad):
    with pytest.raises(TypeError) as e:
        objects.counter_value(bad)
    assert "`c`" in str(e.value) and "mylib.Counter" in str(e.value)


def test_another_object_type_is_refused(objects):
    shape = tvm_ffi.Shape((1, 2))
    with pytest.raises(TypeError, match="mylib.Counter"):
        objects.counter_value(shape)
    with pytest.raises(TypeError, match="mylib.Counter"):
        objects.keep(objects.make_counter)  # a Function object


def test_child_type_is_accepted_where_the_parent_is_expected(objects):
    lim = objects.make_limited("L", 3)
    assert type(lim).__name__ == "LimitedCounter"
    assert (lim.name, lim.start, lim.limit) == ("L", 0, 3)  # inherited fields
    assert lim.add(1) == 1  # inherited method
    assert objects.counter_value(lim) == 1
    assert objects.keep(lim).same_as(lim)
    with pytest.raises(ValueError, match="passes the limit 3"):
        lim.add_checked(5)
    assert lim.refusals == 1
    parent = type(objects.make_counter("p"))
    assert issubclass(type(lim), parent)


def test_writable_fields_are_set_through_their_lock_or_atomic(objects):
    lim = objects.make_limited("L", 3)
    assert lim.label == ""
    lim.label = "hello"
    assert lim.label == "hello"
    lim.refusals = 7
    assert lim.refusals == 7
    with pytest.raises(TypeError):
        lim.refusals = "seven"
    assert lim.refusals == 7


def test_errors_of_methods_and_constructors(objects):
    c = objects.make_counter("a")
    with pytest.raises(TypeError, match="add"):
        c.add("x")
    with pytest.raises(ValueError, match="limit must be >= 0"):
        objects.make_limited("y", -1)


def test_each_value_is_dropped_exactly_once(objects):
    before = dropped_now(objects)
    c = objects.make_counter("a")
    kept = objects.keep(c)
    lim = objects.make_limited("L", 1)
    assert objects.dropped() == before
    del c
    assert dropped_now(objects) == before, "a reference is still held"
    del kept, lim
    assert dropped_now(objects) == before + 2


def test_python_and_rust_holders_release_in_either_order(objects):
    before = dropped_now(objects)
    # Python lets go first: the Rust holder drops the value.
    c = objects.make_counter("rust-last")
    assert objects.hold(c) == 1
    del c
    assert dropped_now(objects) == before
    assert objects.release_held() == 1
    assert objects.dropped() == before + 1
    # Rust lets go first: Python's release drops it.
    c = objects.make_counter("python-last")
    objects.hold(c)
    assert objects.release_held() == 1
    assert objects.dropped() == before + 1
    assert c.name == "python-last"
    del c
    assert dropped_now(objects) == before + 2


def test_a_rust_weak_reference_does_not_keep_the_value(objects):
    before = dropped_now(objects)
    c = objects.make_counter("watched")
    c.add(4)
    objects.watch(c)
    assert objects.watched_value() == 4
    del c
    assert dropped_now(objects) == before + 1
    assert objects.watched_value() is None
    objects.unwatch()
    assert objects.dropped() == before + 1


def test_an_object_outlives_the_module_that_made_it():
    lib = target_dir() / "debug" / "libabi_objects_lib.so"
    out = run_python(
        f"""
        import gc
        import tvm_ffi
        m = tvm_ffi.load_module({str(lib)!r})
        c = m.make_counter("survivor")
        del m
        gc.collect()
        assert (c.name, c.add(3), c.value()) == ("survivor", 3, 3)
        del c
        gc.collect()
        print("ok")
        """
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_reference_counts_cross_the_boundary(objects):
    c = objects.make_counter("a")
    # Python's handle, plus the argument the callee owns for the call.
    assert objects.ref_count(c) == 2
    d = objects.keep(c)
    assert objects.ref_count(c) == 3
    del d


def test_threads_share_one_object(objects):
    c = objects.make_counter("shared")
    threads = [threading.Thread(target=objects.bump, args=(c, 1000)) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert c.value() == 8000


def test_two_libraries_linking_the_same_type_share_its_index(objects, twin):
    a = objects.make_counter("a")
    b = twin.twin_make("b", 4)
    assert type(a) is type(b)
    assert objects.counter_value(b) == 4
    assert twin.twin_value(a) == 0
    assert objects.keep(b).same_as(b)


def test_type_schema_and_iree_record_name_the_type_key(objects):
    meta = objects.get_function_metadata("counter_value")
    schema = json.loads(meta["type_schema"])["named_args"]
    assert schema == {"return": [{"type": "int"}], "params": [{"type": "mylib.Counter"}]}
    assert meta["iree.abi"]["a"] == [["named", "c", ["object", "mylib.Counter"]]]


def run_python(code):
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120)


def test_register_object_builds_through_ffi_init():
    lib = target_dir() / "debug" / "libabi_objects_lib.so"
    out = run_python(
        f"""
        import tvm_ffi
        m = tvm_ffi.load_module({str(lib)!r})

        @tvm_ffi.register_object("mylib.Counter")
        class Counter(tvm_ffi.Object):
            pass

        c = Counter("b", 5)
        assert type(c) is Counter
        assert (c.name, c.start, c.value(), c.add(2)) == ("b", 5, 5, 7)
        assert type(m.make_counter("q")) is Counter
        assert Counter.zero("z").name == "z"
        assert m.counter_value(c) == 7
        try:
            Counter("b")
        except TypeError as e:
            assert "Counter.__init__(name: str, start: int)" in str(e), e
        else:
            raise AssertionError("missing argument accepted")
        print("ok")
        """
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_a_field_of_an_instance_made_without_its_constructor_is_a_type_error():
    # Without register_object, calling the class tvm_ffi makes for a returned object builds
    # an instance with a null handle (no __ffi_init__ runs); its field accessors then get
    # `null + offset`. They refuse it instead of reading address 0x18. (Passing such an
    # instance as an argument crashes inside tvm_ffi's own argument setter before any abi
    # code runs: docs/ABI.md section 10 says so and how to avoid it.)
    lib = target_dir() / "debug" / "libabi_objects_lib.so"
    out = run_python(
        f"""
        import tvm_ffi
        m = tvm_ffi.load_module({str(lib)!r})
        for made, field in [(m.make_counter("a"), "name"), (m.make_limited("b", 3), "label")]:
            hollow = type(made)("sq", 5)
            assert repr(hollow).endswith("(chandle=None)"), repr(hollow)
            try:
                getattr(hollow, field)
            except TypeError as e:
                print(e)
        hollow = type(m.make_limited("c", 3))("sq", 5)
        try:
            hollow.label = "x"
        except TypeError as e:
            print(e)
        """
    )
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert len(lines) == 3, out.stdout
    hint = "the object handle is null (an instance made without its constructor; register the class"
    assert lines[0].startswith(f"cannot read field `name` of `mylib.Counter`: {hint}"), lines[0]
    assert lines[1].startswith(f"cannot read field `label` of `mylib.LimitedCounter`: {hint}"), lines[1]
    assert lines[2].startswith(f"cannot write field `label` of `mylib.LimitedCounter`: {hint}"), lines[2]


@pytest.mark.parametrize("order", ["objects first", "conflict first"])
def test_a_different_layout_under_the_same_key_is_refused(order):
    libs = {
        "objects": str(target_dir() / "debug" / "libabi_objects_lib.so"),
        "conflict": str(target_dir() / "debug" / "libabi_objects_conflict.so"),
    }
    first, second = ("objects", "conflict") if order == "objects first" else ("conflict", "objects")
    out = run_python(
        f"""
        import tvm_ffi
        libs = {{}}
        libs[{first!r}] = tvm_ffi.load_module({libs[first]!r})
        libs[{second!r}] = tvm_ffi.load_module({libs[second]!r})
        winner, loser = libs[{first!r}], libs[{second!r}]
        if {first!r} == "objects":
            assert winner.counter_value(winner.make_counter("a")) == 0
            try:
                loser.make_conflicting(1.5)
            except TypeError as e:
                print("refused:", e)
        else:
            assert winner.conflicting_x(winner.make_conflicting(1.5)) == 1.5
            for make in [lambda: loser.make_counter("a"), lambda: loser.make_limited("b", 3)]:
                try:
                    make()
                except TypeError as e:
                    print("refused:", e)
        """
    )
    assert out.returncode == 0, out.stderr
    # One line while the second library loaded (none for a child type refused with its
    # parent, no panic message); every use raises the whole error.
    assert out.stderr.splitlines() == [
        "abi: type `mylib.Counter` is already registered with another layout; refusing to share index "
        + out.stderr.split("refusing to share index ")[1].split(" ")[0]
        + " (every use raises TypeError naming both layouts)"
    ], out.stderr
    assert "refused:" in out.stdout
    assert "abi-layout/1 mylib.Counter" in out.stdout
    assert "fields=x:f64@0+8" in out.stdout and "fields=name:String@0+24" in out.stdout


STUB_TEMPLATE = """\
import tvm_ffi


@tvm_ffi.register_object("mylib.Counter")
class Counter(tvm_ffi.Object):
    # tvm-ffi-stubgen(begin): object/mylib.Counter
    # tvm-ffi-stubgen(end)
    pass


@tvm_ffi.register_object("mylib.LimitedCounter")
class LimitedCounter(Counter):
    # tvm-ffi-stubgen(begin): object/mylib.LimitedCounter
    # tvm-ffi-stubgen(end)
    pass
"""


def block(text, key):
    """The lines stubgen wrote into the `object/<key>` block, stripped."""
    body = text.split(f"# tvm-ffi-stubgen(begin): object/{key}\n", 1)[1].split("# tvm-ffi-stubgen(end)", 1)[0]
    return [line.strip() for line in body.splitlines() if line.strip() and not line.strip().startswith("# fmt")]


@needs_stubgen_type_schema
def test_stubgen_annotates_fields_and_methods_from_their_type_schema(tmp_path):
    source = tmp_path / "counters.py"
    source.write_text(STUB_TEMPLATE)
    out = run_stubgen("libabi_objects_lib.so", source)
    assert out.returncode == 0, out.stdout + out.stderr
    text = source.read_text()
    # Methods are registered sorted by name (the section's link order varies between
    # builds). Fields and methods get their annotations from the `type_schema` metadata; stubgen
    # itself names positional parameters `_<i>` (it reads no argument names) and renders
    # `__init__` from init-eligible fields (ours are InitOff: Python's `__init__` calls
    # `__ffi_init__`, whose parameters it shows).
    assert block(text, "mylib.Counter") == [
        "name: str",
        "start: int",
        "if TYPE_CHECKING:",
        "def __init__(self) -> None: ...",
        "def __ffi_init__(self, _0: str, _1: int, /) -> None: ...",
        "def add(self, _1: int, /) -> int: ...",
        "def value(self, /) -> int: ...",
        "@staticmethod",
        "def zero(_0: str, /) -> Counter: ...",
    ]
    assert block(text, "mylib.LimitedCounter") == [
        "limit: int",
        "label: str",
        "refusals: int",
        "if TYPE_CHECKING:",
        "def __init__(self) -> None: ...",
        "def __ffi_init__(self, _0: str, _1: int, /) -> None: ...",
        "def add_checked(self, _1: int, /) -> int: ...",
    ]
    # The stubs are current: a second run in check mode finds nothing to change.
    check = run_stubgen("libabi_objects_lib.so", source, "--check")
    assert check.returncode == 0, check.stdout + check.stderr

