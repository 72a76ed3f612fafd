"""A newcomer's own crate, made as README.md says: its Cargo.toml (the README's, with the
path to this checkout's abi-core) and an export, built outside the workspace and called
from Python; and the `abi` command installed with the README's `cargo install` line, run
on the library. Catches a README that forgets a step users need outside this repository."""

import os
import re
import subprocess

import tvm_ffi

from conftest import ROOT, target_dir

LIB_RS = '''
/// Area of a rectangle.
#[abi_core::export_fn]
pub fn area(w: f64, h: f64) -> f64 {
    w * h
}
'''


def readme_block(marker):
    text = (ROOT / "README.md").read_text()
    m = re.search(rf"<!-- {re.escape(marker)} -->\n\s*```toml\n(.*?)^\s*```", text, re.S | re.M)
    assert m, f"README.md has no block marked {marker!r}"
    return "\n".join(line.strip() for line in m.group(1).splitlines()) + "\n"


def test_a_crate_outside_the_repository_builds_and_exports(tmp_path):
    manifest = readme_block("own crate: Cargo.toml")
    assert 'abi-core = { path = "../abi/abi-core" }' in manifest
    crate = tmp_path / "geokit"
    (crate / "src").mkdir(parents=True)
    (crate / "Cargo.toml").write_text(manifest.replace("../abi/abi-core", str(ROOT / "abi-core")))
    (crate / "src" / "lib.rs").write_text(LIB_RS)
    env = dict(os.environ, CARGO_TARGET_DIR=str(target_dir() / "own-crate"))
    subprocess.run(["cargo", "build", "--quiet"], cwd=crate, env=env, check=True)
    lib = tvm_ffi.load_module(str(target_dir() / "own-crate" / "debug" / "libgeokit.so"))
    assert lib.area(3.0, 4.5) == 13.5


def test_the_abi_command_installs_as_the_readme_says(tmp_path):
    text = (ROOT / "README.md").read_text()
    assert "cargo install --path abi-cli" in text
    env = dict(os.environ, CARGO_TARGET_DIR=str(target_dir() / "install-abi"))
    subprocess.run(
        ["cargo", "install", "--quiet", "--path", "abi-cli", "--root", str(tmp_path)], cwd=ROOT, env=env, check=True
    )
    run = subprocess.run(
        [str(tmp_path / "bin" / "abi"), "inspect", str(target_dir() / "debug" / "libmathlib.so")],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    assert "add(a: int, b: int) -> int" in run.stdout
