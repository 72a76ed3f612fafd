"""Shared fixtures: the example libraries, built by scripts/test.sh into cargo's target
directory (ABI_TARGET_DIR, set by scripts/test.sh; otherwise asked of cargo)."""

import json
import os
import pathlib
import re
import subprocess

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


def target_dir():
    """Where cargo puts build outputs, inside the checkout or not (CARGO_TARGET_DIR)."""
    if os.environ.get("ABI_TARGET_DIR"):
        return pathlib.Path(os.environ["ABI_TARGET_DIR"])
    meta = subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--no-deps"], cwd=ROOT, check=True, capture_output=True
    )
    return pathlib.Path(json.loads(meta.stdout)["target_directory"])


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
