"""tests/python/ops_client.py, a client calling op-kit's ops from numpy, torch and JAX:
`mypy --strict` against the package's stubs passes (tests/python/ops_client.ini) (each result typed as the caller's
array type; the lines marked as refused are refused), and the client runs, its results of
the types the stubs give. Runs in .venv-frameworks; skipped where torch or JAX is absent."""

import os
import subprocess
import sys

from conftest import ROOT, framework, target_dir

framework("torch")
framework("jax")

CLIENT = ROOT / "tests/python/ops_client.py"


def test_the_client_type_checks_under_mypy_strict(op_kit_package_dir, tmp_path):
    # --strict, the parts of torch the client does not use skipped (ops_client.ini); mypy
    # still reads JAX and torch's core (a minute): its cache is kept beside cargo's outputs.
    cache = target_dir() / "mypy-ops-client"
    config = ROOT / "tests/python/ops_client.ini"
    out = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(config), "--cache-dir", str(cache), str(CLIENT)],
        capture_output=True,
        text=True,
        env={**os.environ, "MYPYPATH": str(op_kit_package_dir)},
        cwd=tmp_path,
    )
    assert out.returncode == 0 and out.stdout.startswith("Success"), out.stdout + out.stderr


def test_the_client_runs_and_gets_what_the_stubs_say(op_kit_package_dir):
    out = subprocess.run(
        [sys.executable, str(CLIENT)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(op_kit_package_dir), "JAX_ENABLE_X64": "1"},
        check=True,
    )
    assert out.stdout == (
        "[['ndarray', 'ndarray', 'ndarray', 'ndarray', 'NoneType', 'ndarray', 'ndarray', 'ndarray', 'ndarray', 'ndarray'],"
        " ['Tensor', 'Tensor', 'Tensor', 'Tensor', 'Tensor', 'Tensor', 'Tensor', 'Tensor', 'Tensor', 'Tensor', 'Tensor', 'Tensor', 'Tensor'],"
        " [True]]\n"
    ), out.stderr
