"""Shared fixtures: the example libraries, built by scripts/test.sh into target/debug."""

import pathlib

import pytest
import tvm_ffi

ROOT = pathlib.Path(__file__).resolve().parents[2]


def load(name):
    path = ROOT / "target" / "debug" / name
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
