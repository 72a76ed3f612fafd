"""A newcomer's own crate, made as the guide says (docs/guide/exporting.md): its Cargo.toml
(the guide's, with the path to this checkout's abi-core) and an export, built outside the
workspace and called from Python; and the `abi` command installed with the guide's `cargo
install` line, run on the library. Catches a guide that forgets a step users need outside
this repository."""

import os
import subprocess

import tvm_ffi

from conftest import ROOT, doc_block, docs_text, target_dir

LIB_RS = '''
/// Area of a rectangle.
#[abi_core::export_fn]
pub fn area(w: f64, h: f64) -> f64 {
    w * h
}
'''


def test_a_crate_outside_the_repository_builds_and_exports(tmp_path):
    manifest = doc_block("own crate: Cargo.toml")
    assert 'abi-core = { path = "../abi/abi-core" }' in manifest
    crate = tmp_path / "geokit"
    (crate / "src").mkdir(parents=True)
    (crate / "Cargo.toml").write_text(manifest.replace("../abi/abi-core", str(ROOT / "abi-core")))
    (crate / "src" / "lib.rs").write_text(LIB_RS)
    # Built into the workspace's target folder, where dependencies built alike by other
    # steps serve (cargo keeps the crate's own artifacts apart).
    env = dict(os.environ, CARGO_TARGET_DIR=str(target_dir()))
    subprocess.run(["cargo", "build", "--quiet"], cwd=crate, env=env, check=True)
    lib = tvm_ffi.load_module(str(target_dir() / "debug" / "libgeokit.so"))
    assert lib.area(3.0, 4.5) == 13.5


def test_the_abi_command_installs_as_the_guide_says(tmp_path):
    assert "cargo install --path abi-cli" in docs_text()
    # The workspace's own target folder: the release builds of abi-core and its
    # dependencies that the bench step makes serve here too.
    env = dict(os.environ, CARGO_TARGET_DIR=str(target_dir()))
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
