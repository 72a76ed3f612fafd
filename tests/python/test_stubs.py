"""`abi stubs`: the generated package imports and calls the library through tvm_ffi, and
mypy in strict mode accepts well-typed client code and flags a wrong argument type."""

import subprocess
import sys
import textwrap

from conftest import target_dir


def make_package(tmp_path):
    lib = target_dir() / "debug" / "libmathlib.so"
    abi = target_dir() / "debug" / "abi"
    assert abi.exists(), f"{abi} is missing: run scripts/test.sh (it builds abi-cli)"
    out = subprocess.run(
        [str(abi), "stubs", str(lib), "--package", "mathlib_py", "-o", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    package = tmp_path / "mathlib_py"
    assert sorted(p.name for p in package.iterdir()) == ["__init__.py", "__init__.pyi", "py.typed"]
    # Packaging is the user's: place the library next to the package's files.
    (package / lib.name).symlink_to(lib)
    return package


def run(args, tmp_path, **kw):
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(tmp_path), "MYPYPATH": str(tmp_path)}
    return subprocess.run(args, capture_output=True, text=True, timeout=300, cwd=tmp_path, env=env, **kw)


GOOD = """\
import mathlib_py

total: int = mathlib_py.add(1, 2)
g: int = mathlib_py.gcd(12, 18)
hello: str = mathlib_py.greet_v2("stubs")
doubled = mathlib_py.map_ints([1, 2], lambda x: x * 2)
print(total, g, hello, list(doubled))
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
    assert out.stdout == "3 6 hello, stubs [2, 4]\n"


def test_mypy_strict_accepts_good_code_and_flags_a_wrong_argument(tmp_path):
    package = make_package(tmp_path)
    stub = (package / "__init__.pyi").read_text()
    assert textwrap.dedent('''\
        def add(a: int, b: int, /) -> int:
            """Adds two integers; a sum outside the i64 range raises `ValueError`."""
            ...
        ''') in stub
    assert "def map_ints(xs: Sequence[int], f: Callable[[int], int], /) -> Sequence[int]:" in stub
    (tmp_path / "good.py").write_text(GOOD)
    (tmp_path / "bad.py").write_text(BAD)
    mypy = [sys.executable, "-m", "mypy", "--strict", "--no-incremental"]
    good = run(mypy + ["good.py"], tmp_path)
    assert good.returncode == 0, good.stdout + good.stderr
    bad = run(mypy + ["bad.py"], tmp_path)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert 'bad.py:3: error: Argument 1 to "add" has incompatible type "str"; expected "int"  [arg-type]' in bad.stdout
