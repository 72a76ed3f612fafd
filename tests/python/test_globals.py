"""`#[export_fn(global = "...")]` under the real tvm_ffi: the library registers its global
functions, with their metadata, in tvm-ffi's registry while it loads."""

import subprocess
import sys
import types

import tvm_ffi

from conftest import needs_stubgen_type_schema, run_stubgen, target_dir


def test_globals_are_registered_when_the_library_loads(mathlib):
    gcd = tvm_ffi.get_global_func("mathlib.gcd")
    assert gcd(12, -18) == 6
    assert tvm_ffi.get_global_func("mathlib.clamp")(5.0, 0.0, 1.0) == 1.0
    # The same function stays a module export.
    assert mathlib.gcd(21, 14) == 7


def test_a_library_with_object_types_registers_its_globals_while_it_loads():
    """api-v1 has object types and a global export. Registering the object types chooses
    tvm-ffi's runtime while the library loads; its globals join tvm-ffi's registry then
    too, whichever constructor the linker ran first (when the object types' ran first, the
    global was missing until the library's first call). In a new process, where nothing
    else has loaded it."""
    probe = (
        "import sys, tvm_ffi; tvm_ffi.load_module(sys.argv[1]); "
        "f = tvm_ffi.get_global_func('api.version', allow_missing=True); print(None if f is None else f())"
    )
    ran = subprocess.run([sys.executable, "-c", probe, str(target_dir() / "debug" / "libapi_v1.so")], capture_output=True, text=True)
    assert ran.stdout == "1\n", ran.stdout + ran.stderr


def test_global_errors_raise_like_any_export(mathlib):
    clamp = tvm_ffi.get_global_func("mathlib.clamp")
    try:
        clamp(0.5, 1.0, 0.0)
    except ValueError as e:
        assert "empty range [1, 0]" in str(e)
    else:
        raise AssertionError("no error")


def test_global_metadata_is_published(mathlib):
    meta = tvm_ffi.get_global_func_metadata("mathlib.gcd")
    assert meta["type_schema"] == (
        '{"type":"ffi.Function","named_args":{"return":[{"type":"int"}],'
        '"params":[{"type":"int"},{"type":"int"}]}}'
    )
    assert meta["arg_names"] == ["a", "b"]
    # The same text the export's own metadata symbol returns.
    assert mathlib.get_function_metadata("gcd") == meta


def test_init_ffi_api_exposes_the_namespace(mathlib):
    api = types.ModuleType("mathlib_api")
    sys.modules["mathlib_api"] = api
    tvm_ffi.init_ffi_api("mathlib", "mathlib_api")
    assert api.gcd(9, 6) == 3
    assert api.clamp(-1.0, 0.0, 2.0) == 0.0


GLOBAL_TEMPLATE = """\
# tvm-ffi-stubgen(begin): global/mathlib
# tvm-ffi-stubgen(end)
"""


@needs_stubgen_type_schema
def test_stubgen_emits_the_globals(tmp_path):
    source = tmp_path / "mathlib_api.py"
    source.write_text(GLOBAL_TEMPLATE)
    out = run_stubgen("libmathlib.so", source)
    assert out.returncode == 0, out.stdout + out.stderr
    body = source.read_text().split("# tvm-ffi-stubgen(begin): global/mathlib\n", 1)[1].split("# tvm-ffi-stubgen(end)")[0]
    lines = [line.strip() for line in body.splitlines() if line.strip() and not line.strip().startswith("# fmt")]
    # stubgen names positional parameters `_<i>` (it reads no argument names).
    assert lines == [
        '_FFI_INIT_FUNC("mathlib", __name__)',
        "if TYPE_CHECKING:",
        "def clamp(_0: float, _1: float, _2: float, /) -> float: ...",
        "def gcd(_0: int, _1: int, /) -> int: ...",
    ]


def test_a_taken_name_is_not_overridden_and_the_failure_is_printed():
    import subprocess
    import textwrap

    lib = str(target_dir() / "debug" / "libmathlib.so")
    code = f"""
        import tvm_ffi
        tvm_ffi.register_global_func("mathlib.gcd", lambda a, b: -1)
        tvm_ffi.load_module({lib!r})
        print(tvm_ffi.get_global_func("mathlib.gcd")(12, 18), tvm_ffi.get_global_func("mathlib.clamp")(2.0, 0.0, 1.0))
        """
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout == "-1 1.0\n", "the Python function stays; the other global is registered"
    # The Python function's code is tvm_ffi's extension module's.
    assert out.stderr.startswith(
        "abi: global `mathlib.gcd` is already registered; keeping that registration (its code is in /"
    ), out.stderr
    assert out.stderr.endswith(f"); {lib}'s `gcd` stays reachable through its module\n"), out.stderr
    assert out.stderr.count("\n") == 1, out.stderr


def test_loading_the_same_library_twice_keeps_the_first_globals_and_says_so_in_one_line(tmp_path):
    # An installed copy plus a development build, or two builds in one notebook session.
    import shutil
    import subprocess
    import textwrap

    lib = target_dir() / "debug" / "libmathlib.so"
    copy = tmp_path / "libmathlib.so"
    shutil.copy(lib, copy)
    code = f"""
        import tvm_ffi
        first = tvm_ffi.load_module({str(lib)!r})
        second = tvm_ffi.load_module({str(copy)!r})
        gcd = tvm_ffi.get_global_func("mathlib.gcd")
        print(gcd(12, 18), second.gcd(4, 6), first.gcd(9, 6))
        """
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout == "6 2 3\n"
    assert out.stderr.splitlines() == [
        f"abi: global `mathlib.{name}` is already registered; keeping that registration"
        f" (its code is in {lib}); {copy}'s `{name}` stays reachable through its module"
        for name in ["clamp", "gcd"]
    ], out.stderr
