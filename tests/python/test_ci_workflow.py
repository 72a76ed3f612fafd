"""`abi init-python --ci github`: the GitHub Actions workflow (.github/workflows/wheels.yml)
passes actionlint (which fails a broken copy), builds on the four runners the Python
chapter names, uploads, and publishes on a tag through trusted publishing; its build and
smoke-test steps run the one script it ships (.github/abi_wheels.py), whose Linux path runs
here for real: pip builds the wheel of a new crate in an isolated environment with abi-cli
taken from a find-links folder (the tool wheel `abi tool-wheel` writes), no `abi` on PATH
and no ABI, and the smoke test installs it into a clean venv, runs the crate's
tests/smoke.py and checks the exports. macOS and Windows wheels are proved by the workflow
on its runners, not here."""

import json
import os
import shutil
import subprocess
import sys
import zipfile

import pytest
import yaml

from conftest import ROOT, env_without_abi, target_dir
from test_wheel import abi, make_crate, tool

RUNNERS = {"ubuntu-latest", "ubuntu-24.04-arm", "macos-14", "windows-latest"}
SCRIPT = "python .github/abi_wheels.py"


def init_ci(crate, *extra):
    made = abi("init-python", crate, "--ci", "github", *extra)
    assert made.returncode == 0, made.stderr
    return made


def actionlint(path):
    return subprocess.run([tool("actionlint"), "-no-color", "-oneline", str(path)], capture_output=True, text=True, timeout=120)


def test_the_workflow_passes_actionlint_and_a_broken_copy_does_not(tmp_path):
    crate = make_crate(tmp_path)
    made = init_ci(crate)
    workflow, script = crate / ".github" / "workflows" / "wheels.yml", crate / ".github" / "abi_wheels.py"
    assert made.stdout.splitlines()[:3] == [f"wrote {crate / 'pyproject.toml'}", f"wrote {workflow}", f"wrote {script}"]
    checked = actionlint(workflow)
    assert checked.returncode == 0 and checked.stdout == "", checked.stdout + checked.stderr
    # Negative controls: a job that needs one that does not exist, a matrix key that does not.
    for good, bad, said in [
        ("needs: [wheels, sdist]", "needs: [wheels, sdists]", 'needs job "sdists" which does not exist'),
        ("runs-on: ${{ matrix.runner }}", "runs-on: ${{ matrix.runners }}", 'property "runners" is not defined'),
    ]:
        broken = tmp_path / "broken.yml"
        text = workflow.read_text()
        assert text.count(good) == 1, good
        broken.write_text(text.replace(good, bad))
        failed = actionlint(broken)
        assert failed.returncode == 1 and said in failed.stdout, failed.stdout + failed.stderr


def test_the_jobs_runners_and_publishing_are_the_ones_the_guide_names(tmp_path):
    crate = make_crate(tmp_path)
    init_ci(crate)
    flow = yaml.safe_load((crate / ".github" / "workflows" / "wheels.yml").read_text())
    triggers = flow.get("on", flow.get(True))  # YAML 1.1 reads a bare `on` as true
    assert triggers["push"]["tags"] == ["v*"] and "pull_request" in triggers
    assert flow["permissions"] == {"contents": "read"}
    # abi-cli from the find-links the user sets until it is on PyPI.
    assert flow["env"]["PIP_FIND_LINKS"] == "${{ vars.ABI_CLI_FIND_LINKS }}"
    jobs = flow["jobs"]
    assert set(jobs) == {"wheels", "sdist", "publish"}
    wheels = jobs["wheels"]
    assert wheels["runs-on"] == "${{ matrix.runner }}"
    assert {m["runner"] for m in wheels["strategy"]["matrix"]["include"]} == RUNNERS
    runs = [s["run"] for s in wheels["steps"] if "run" in s]
    assert runs == [f"{SCRIPT} build --crate . --out dist", f"{SCRIPT} smoke --crate . dist"]
    uses = [s["uses"].split("@")[0] for s in wheels["steps"] if "uses" in s]
    assert uses == ["actions/checkout", "actions/setup-python", "dtolnay/rust-toolchain", "actions/upload-artifact"]
    sdist = [s["run"] for s in jobs["sdist"]["steps"] if "run" in s]
    assert sdist == [f"{SCRIPT} sdist --crate . --out dist", f"{SCRIPT} smoke --crate . dist"]
    publish = jobs["publish"]
    assert publish["if"] == "startsWith(github.ref, 'refs/tags/v')" and publish["needs"] == ["wheels", "sdist"]
    assert publish["environment"] == "pypi" and publish["permissions"] == {"id-token": "write"}
    assert [s["uses"].split("@")[0] for s in publish["steps"]] == ["actions/download-artifact", "pypa/gh-action-pypi-publish"]


def test_bad_input_and_existing_files(tmp_path):
    crate = make_crate(tmp_path)
    unknown = abi("init-python", crate, "--ci", "gitlab")
    assert unknown.returncode == 2 and "invalid value 'gitlab' for '--ci <SYSTEM>'" in unknown.stderr, unknown.stderr
    assert not (crate / "pyproject.toml").exists() and not (crate / ".github").exists()
    # A folder already made pip-installable keeps its pyproject.toml: only the workflow is written.
    assert abi("init-python", crate).returncode == 0
    pyproject = crate / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + "# mine\n")
    workflow = crate / ".github" / "workflows" / "wheels.yml"
    assert init_ci(crate).stdout.splitlines()[:2] == [f"wrote {workflow}", f"wrote {crate / '.github' / 'abi_wheels.py'}"]
    assert pyproject.read_text().endswith("# mine\n")
    workflow.write_text("# mine\n")
    (crate / "pyproject.toml").unlink()
    # The workflow is checked before anything is written: pyproject.toml is not written either.
    kept = abi("init-python", crate, "--ci", "github")
    assert kept.returncode == 2 and kept.stderr == f"abi: error: {workflow} exists; pass --force to replace it\n"
    assert workflow.read_text() == "# mine\n" and not (crate / "pyproject.toml").exists()
    init_ci(crate, "--force")
    assert workflow.read_text().startswith("# Written by `abi init-python --ci github`")
    # A crate below a repository's root: the files go to the root, the steps name the crate.
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    inner = make_crate(repo / "rust")
    init_ci(inner)
    text = (repo / ".github" / "workflows" / "wheels.yml").read_text()
    assert f"{SCRIPT} build --crate rust/geokit --out dist" in text and (repo / ".github" / "abi_wheels.py").exists()
    spaced = make_crate(repo / "my crates")
    refused = abi("init-python", spaced, "--ci", "github")
    assert refused.returncode == 2 and "is not a path the workflow can name plainly" in refused.stderr, refused.stderr


def load_script():
    import importlib.util

    spec = importlib.util.spec_from_file_location("abi_wheels", ROOT / "abi-cli" / "src" / "init_python" / "ci" / "abi_wheels.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_smoke_test_checks_the_exports_abi_stubs_makes_attributes(tmp_path):
    """The script's export list is the package's (`__all__` of what `abi stubs` writes, its
    classes aside), ops' JAX-order entry points left out, for a library with ops."""
    lib = target_dir() / "debug" / "libop_kit.so"
    listing = json.loads(abi("inspect", "--json", "--no-load", lib).stdout)
    assert "relu___jax" in listing["exports"]
    made = abi("stubs", lib, "--package", "op_kit", "-o", tmp_path)
    assert made.returncode == 0, made.stderr
    namespace = {}
    for line in (tmp_path / "op_kit" / "__init__.py").read_text().splitlines():
        if line.startswith("__all__ = "):
            exec(line, namespace)
    assert load_script().exposed(listing) == [n for n in namespace["__all__"] if n in listing["exports"]]


SMOKE_PY = """\
import geokit
print("smoke.py:", geokit.area(3.0, 4.5), geokit.zeros(3).shape)
"""


def test_the_scripts_linux_path_builds_and_smoke_tests_a_manylinux2014_wheel(tmp_path):
    """What the wheels job runs on ubuntu-latest, run here: pip builds the wheel with abi-cli
    from a find-links folder (no `abi` on PATH, no ABI), cargo sharing the suite's target
    folder; the smoke test installs it into a clean venv, runs tests/smoke.py and checks the
    exports with the `abi` of abi-cli, which it installs from the same folder."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    # The guide's recipe: the tool wheels in a folder of the repository, named relative to
    # it (the script makes it absolute for pip's other folders).
    tools = repo / ".github" / "abi-cli-wheels"
    made = abi("tool-wheel", "-o", tools)
    assert made.returncode == 0, made.stderr
    crate = make_crate(repo)
    init_ci(crate)
    (crate / "tests").mkdir()
    (crate / "tests" / "smoke.py").write_text(SMOKE_PY)
    find_links = " ".join(filter(None, [".github/abi-cli-wheels", os.environ.get("PIP_FIND_LINKS")]))
    env = env_without_abi(PIP_FIND_LINKS=find_links, CARGO_TARGET_DIR=str(target_dir()))
    assert shutil.which("abi", path=env["PATH"]) is None

    def step(*args):
        done = subprocess.run([sys.executable, ".github/abi_wheels.py", *args], capture_output=True, text=True, cwd=repo, env=env, timeout=900)
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    built = step("build", "--crate", "geokit", "--out", "dist")
    (wheel,) = (repo / "dist").iterdir()
    assert wheel.name == "geokit-0.1.0-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"
    assert built.endswith(f"abi_wheels: wrote {wheel}\n"), built
    with zipfile.ZipFile(wheel) as z:
        assert "geokit/libgeokit.so" in z.namelist()
    smoked = step("smoke", "--crate", "geokit", "dist")
    assert "smoke.py: 13.5 (3,)\n" in smoked, smoked
    assert "-m pip install --quiet --target" in smoked  # abi-cli for the export list, not an `abi` from here
    last = smoked.splitlines()[-1]
    assert last.startswith("abi_wheels: imported geokit from ") and last.endswith(": 3 exports callable"), smoked
    assert f"{os.sep}venv{os.sep}" in last
