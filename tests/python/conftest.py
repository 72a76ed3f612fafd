"""Shared fixtures: the example libraries, built by scripts/test.sh into cargo's target
directory (ABI_TARGET_DIR, set by scripts/test.sh; otherwise asked of cargo)."""

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest
import tvm_ffi

ROOT = pathlib.Path(__file__).resolve().parents[2]

# The user documentation: the README, the guide's chapters, the examples' walk-through.
DOC_FILES = ["README.md", *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs/guide").glob("*.md")), "examples/README.md"]


def docs_text():
    """Every documentation file's text, one after another (markers are unique across them)."""
    return "\n".join((ROOT / doc).read_text() for doc in DOC_FILES)


def doc_block(marker, fence="toml"):
    """The ```FENCE block right after `<!-- MARKER -->` in the documentation, dedented."""
    m = re.search(rf"<!-- {re.escape(marker)} -->\n\s*```{fence}\n(.*?)^\s*```", docs_text(), re.S | re.M)
    assert m, f"the documentation has no block marked {marker!r}"
    return "\n".join(line.strip() for line in m.group(1).splitlines()) + "\n"


def mypy_command(*files):
    """`mypy --strict` over `files`, its cache (of numpy's and the standard library's
    stubs, read by every run) kept beside cargo's outputs: the package a test writes is
    checked anew, since mypy compares each module's path and contents with its cache."""
    return [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(target_dir() / "mypy-stubs"), *files]


def import_on_both_routes(folder, routes):
    """Imports each package of `routes` (route -> package name) from `folder`, the Python
    door decided at import (on for the route "door", off for any other), then restores
    ABI_PYTHON_DOOR; yields them by route, with `folder` on sys.path meanwhile."""
    sys.path.insert(0, str(folder))
    imported, outside = {}, os.environ.get("ABI_PYTHON_DOOR")
    for route, name in routes.items():
        os.environ["ABI_PYTHON_DOOR"] = "1" if route == "door" else "0"
        imported[route] = __import__(name)
    if outside is None:
        del os.environ["ABI_PYTHON_DOOR"]
    else:
        os.environ["ABI_PYTHON_DOOR"] = outside
    yield imported
    sys.path.remove(str(folder))


def target_dir():
    """Where cargo puts build outputs, inside the checkout or not (CARGO_TARGET_DIR)."""
    if os.environ.get("ABI_TARGET_DIR"):
        return pathlib.Path(os.environ["ABI_TARGET_DIR"])
    meta = subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--no-deps"], cwd=ROOT, check=True, capture_output=True
    )
    return pathlib.Path(json.loads(meta.stdout)["target_directory"])


def tvm_ffi_c_version():
    """What the loaded libtvm_ffi's `TVMFFIGetVersion` reports (not the package version:
    0.1.15.post2 reports (0, 1, 16)); Python loads the library RTLD_GLOBAL."""
    import ctypes

    class Version(ctypes.Structure):
        _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32), ("patch", ctypes.c_uint32)]

    v = Version()
    ctypes.CDLL(None).TVMFFIGetVersion(ctypes.byref(v))
    return (v.major, v.minor, v.patch)


# What differs between the releases the wheels allow (scripts/test.sh runs the interop,
# running-stats, objects and globals suites under the oldest and the newest). Python passes
# ints beyond i64 as BigInt objects from 0.1.14.post1 (C version 0.1.15; older releases'
# headers have no kTVMFFIBigInt, and their Python raises OverflowError itself).
PASSES_BIGINT = tvm_ffi_c_version() >= (0, 1, 15)
# tvm-ffi-stubgen annotates from the `type_schema` metadata from 0.1.15.post2 (C version
# 0.1.16); 0.1.8.post2 to 0.1.14.post1 write `*args: Any` for globals and `__ffi_init__`.
STUBGEN_READS_TYPE_SCHEMA = tvm_ffi_c_version() >= (0, 1, 16)
needs_stubgen_type_schema = pytest.mark.skipif(
    not STUBGEN_READS_TYPE_SCHEMA, reason="this tvm-ffi-stubgen reads no type_schema (`*args: Any`)"
)
# The test command runs the package suites a second time with the door forced off
# (ABI_PYTHON_DOOR=0, as a package reads it); a test that checks the door itself is skipped then.
DOOR_FORCED_OFF = os.environ.get("ABI_PYTHON_DOOR", "").strip().lower() in ("0", "false", "off", "no")
needs_door = pytest.mark.skipif(DOOR_FORCED_OFF, reason="ABI_PYTHON_DOOR forces the tvm_ffi route; this test checks the door")
# tvm_ffi's own text for a Python int beyond i64 in releases without BigInt.
NO_BIGINT_TEXT = "Python int too large to convert to C long"


def load(name):
    path = target_dir() / "debug" / name
    assert path.exists(), f"{path} is missing: run scripts/test.sh (it builds the example libraries)"
    return tvm_ffi.load_module(str(path))


@pytest.fixture(scope="session")
def mathlib():
    return load("libmathlib.so")


@pytest.fixture(scope="session")
def interop():
    return load("libabi_interop_lib.so")


@pytest.fixture(scope="session")
def kit():
    return load("libsignal_kit.so")


def run_stubgen(lib_name, source, *flags):
    """Runs tvm-ffi's own stub generator on `source` with the example library loaded."""
    import sys

    stubgen = pathlib.Path(sys.executable).parent / "tvm-ffi-stubgen"
    lib = target_dir() / "debug" / lib_name
    return subprocess.run([str(stubgen), *flags, "--dlls", str(lib), str(source)], capture_output=True, text=True, timeout=120)


def framework(name):
    """Imports `name` (torch, jax, jax_tvm_ffi) for the framework ops' tests: skipped where it
    is not installed (the main venv), an error in .venv-frameworks, whose step in
    scripts/test.sh sets ABI_FRAMEWORK_TESTS=1 so a broken install cannot pass as skips."""
    if os.environ.get("ABI_FRAMEWORK_TESTS") == "1":
        import importlib

        return importlib.import_module(name)
    return pytest.importorskip(name)


@pytest.fixture(scope="session")
def op_kit_package_dir(tmp_path_factory):
    """op-kit's package (`op_kit`) as `abi stubs` writes it, beside a link to the library."""
    lib = target_dir() / "debug" / "libop_kit.so"
    abi = target_dir() / "debug" / "abi"
    assert lib.exists() and abi.exists(), "run scripts/test.sh (it builds op-kit and abi-cli)"
    out = tmp_path_factory.mktemp("op_kit_package")
    subprocess.run([str(abi), "stubs", str(lib), "--package", "op_kit", "-o", str(out)], check=True, capture_output=True)
    (out / "op_kit" / lib.name).symlink_to(lib)
    return out


@pytest.fixture(scope="session")
def tensor_kit_package(tmp_path_factory):
    """tensor-kit's package (`tensor_kit_pkg`), imported: plain exports (no ops) taking tensors."""
    import sys

    lib, abi = target_dir() / "debug" / "libtensor_kit.so", target_dir() / "debug" / "abi"
    out = tmp_path_factory.mktemp("tensor_kit_package")
    subprocess.run([str(abi), "stubs", str(lib), "--package", "tensor_kit_pkg", "-o", str(out)], check=True, capture_output=True)
    (out / "tensor_kit_pkg" / lib.name).symlink_to(lib)
    sys.path.insert(0, str(out))
    import tensor_kit_pkg

    return tensor_kit_pkg


@pytest.fixture(scope="session")
def op_kit_package(op_kit_package_dir):
    """`import op_kit`, once per process: its torch ops are defined once (defining one twice
    raises), so the module imported first is kept (in sys.modules or not)."""
    import sys

    sys.path.insert(0, str(op_kit_package_dir))
    import op_kit

    return op_kit


# The abi-cli distribution's Python sources (its package `abi_cli`, with the build backend
# `abi_cli.build`): on PYTHONPATH, with ABI naming target/debug/abi, they stand in for the
# installed tool where a test builds without isolation.
BACKEND_SOURCE = ROOT / "abi-cli" / "python"


def backend_env(**extra):
    """This environment with the build backend importable from the checkout and ABI set to
    the `abi` the test command built, plus `extra`."""
    path = os.pathsep.join(p for p in [str(BACKEND_SOURCE), os.environ.get("PYTHONPATH", "")] if p)
    return dict(os.environ, ABI=str(target_dir() / "debug" / "abi"), PYTHONPATH=path, **extra)


def env_without_abi(**extra):
    """This environment with no `abi` anywhere a build could find one: no ABI variable, no
    PATH entry holding an `abi` executable, the checkout's backend sources not importable."""
    env = {k: v for k, v in os.environ.items() if k not in ("ABI", "PYTHONPATH")}
    env["PATH"] = os.pathsep.join(
        p for p in env.get("PATH", "").split(os.pathsep) if p and not os.access(os.path.join(p, "abi"), os.X_OK)
    )
    env.update(extra)
    return env


@pytest.fixture(scope="session")
def tool_wheelhouse(tmp_path_factory):
    """A folder `pip install --no-index --find-links` takes everything from: the Linux
    x86_64 abi-cli tool wheel as scripts/tool-wheels.sh builds it (`abi` linked against
    glibc 2.17 by cargo zigbuild; in debug), and the wheels of the venv's pins
    (apache-tvm-ffi and what it requires, ziglang, cargo-zigbuild), linked from the
    wheelhouse scripts/setup-venv.sh fills (downloaded when there is none)."""
    house = tmp_path_factory.mktemp("wheelhouse")
    script = [str(ROOT / "scripts" / "tool-wheels.sh"), "--debug", "-o", str(house), "linux-x86_64"]
    made = subprocess.run(script, capture_output=True, text=True, timeout=900, env=dict(os.environ, ABI_TARGET_DIR=str(target_dir())))
    assert made.returncode == 0, made.stdout + made.stderr
    requirements = ROOT / "tests" / "python" / "requirements.txt"
    cache = subprocess.run([sys.executable, "-m", "pip", "cache", "dir"], capture_output=True, text=True)
    source = pathlib.Path(cache.stdout.strip()) / "abi-wheelhouse" if cache.returncode == 0 else None
    if source is None or not source.is_dir():
        source = tmp_path_factory.mktemp("downloaded")
        got = subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--dest", str(source), "-r", str(requirements)],
            capture_output=True, text=True, timeout=900,
        )
        assert got.returncode == 0, got.stderr
    for wheel in source.glob("*.whl"):
        try:
            os.link(wheel, house / wheel.name)
        except OSError:
            shutil.copyfile(wheel, house / wheel.name)
    return house
