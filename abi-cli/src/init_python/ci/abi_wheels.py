"""Builds and smoke-tests this project's wheels: the steps of .github/workflows/wheels.yml
(both written by `abi init-python --ci github`), which run the same way by hand on Linux,
macOS and Windows (Python 3.11 or newer, or tomli installed):

    python .github/abi_wheels.py build [--crate DIR] [--out DIR]
    python .github/abi_wheels.py sdist [--crate DIR] [--out DIR]
    python .github/abi_wheels.py smoke [--crate DIR] [--with REQUIREMENT]... [DIST]

build: `pip wheel --no-deps` of the crate folder (default: the current folder), as `pip
install .` builds it: pip installs pyproject.toml's [build-system] requires (abi-cli, and
on Linux ziglang and cargo-zigbuild) into an isolated environment and runs the backend,
which builds the library with cargo. The wheel goes into --out (default: dist); its path is
printed.

sdist: `python -m build --sdist` of the crate folder into --out (`build` is installed into
this Python first when missing).

smoke: a new venv in a temporary folder; DIST (a wheel or sdist, or a folder holding
exactly one: default dist) installed into it with its dependencies and the --with
requirements; then, from another folder, the crate's tests/smoke.py run by the venv's
Python when the file exists, and always a check that the package imports and that each
function the library exports, as `abi inspect --json` lists them, is a callable attribute
of it (those the package makes attributes: public names, ops' JAX entry points left out).

Environment: pip reads its own variables (PIP_FIND_LINKS names where abi-cli's wheels are
until abi-cli is on PyPI: URLs, or folders, made absolute here); cargo reads
CARGO_TARGET_DIR. ABI, when set, is the `abi`
command the backend builds with and the smoke test lists exports with; unset, the smoke
test installs abi-cli (the version pyproject.toml requires) into a folder of its own.
Exit status: 0 passed, 1 a step failed (named on stderr), 2 bad arguments.
"""

import argparse
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import venv
from pathlib import Path

WINDOWS = sys.platform == "win32"
LIBRARY_SUFFIX = {"darwin": ".dylib", "win32": ".dll"}.get(sys.platform, ".so")


def fail(message):
    print(f"abi_wheels: {message}", file=sys.stderr)
    sys.exit(1)


def run(command, **kwargs):
    """Runs `command`, shown first; a failure ends this script naming it."""
    print("abi_wheels: $ " + " ".join(str(c) for c in command), flush=True)
    done = subprocess.run([str(c) for c in command], **kwargs)
    if done.returncode != 0:
        fail(f"`{' '.join(str(c) for c in command[:4])} ...` failed (exit {done.returncode})")
    return done


def read_toml(path):
    try:
        import tomllib
    except ModuleNotFoundError:  # Python < 3.11
        try:
            import tomli as tomllib
        except ModuleNotFoundError:
            fail("reading pyproject.toml needs Python 3.11 or newer, or `pip install tomli`")
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except OSError as e:
        fail(f"cannot read {path}: {e}")


def project(crate):
    """The import name and the abi-cli requirement (pyproject.toml's [tool.abi] package,
    else the crate name with `-` as `_`; its [build-system] requires entry for abi-cli)."""
    pyproject = read_toml(crate / "pyproject.toml")
    package = pyproject.get("tool", {}).get("abi", {}).get("package")
    if not package:
        package = read_toml(crate / "Cargo.toml").get("package", {}).get("name", "").replace("-", "_")
    requires = pyproject.get("build-system", {}).get("requires", [])
    tool = next((r for r in requires if re.match(r"abi[-_.]cli\b", r.strip(), re.I)), "abi-cli")
    return package, tool


def crate_folder(crate):
    """`crate` as an absolute path, checked to be a folder pip can build."""
    folder = Path(crate).resolve()
    if not (folder / "pyproject.toml").is_file():
        fail(f"{folder} has no pyproject.toml: pass --crate the folder `abi init-python` made pip-installable")
    return folder


def build(args):
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        # An absolute path: pip reads a bare `geokit` as a name to download from PyPI.
        run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--wheel-dir", tmp, crate_folder(args.crate)])
        made = sorted(Path(tmp).glob("*.whl"))
        if len(made) != 1:
            fail(f"expected one wheel from pip, got {[p.name for p in made]}")
        wheel = out / made[0].name
        shutil.move(str(made[0]), str(wheel))
    print(f"abi_wheels: wrote {wheel}")


def sdist(args):
    if importlib.util.find_spec("build") is None:
        run([sys.executable, "-m", "pip", "install", "--quiet", "build"])
    run([sys.executable, "-m", "build", "--sdist", "--outdir", Path(args.out).resolve(), crate_folder(args.crate)])


def distribution(path):
    """The wheel or sdist to install: `path`, or the one in the folder `path`."""
    path = Path(path)
    if path.is_file():
        return path.resolve()
    found = sorted([*path.glob("*.whl"), *path.glob("*.tar.gz")]) if path.is_dir() else []
    if len(found) != 1:
        fail(f"expected one wheel or sdist in {path}, found {[p.name for p in found]}: name the file")
    return found[0].resolve()


def abi_command(tool, work):
    """The `abi` command: $ABI, else abi-cli installed under `work` (run as `python -m abi_cli`)."""
    if os.environ.get("ABI"):
        return [os.environ["ABI"]], None
    target = work / "abi-cli"
    run([sys.executable, "-m", "pip", "install", "--quiet", "--target", target, tool])
    return [sys.executable, "-m", "abi_cli"], dict(os.environ, PYTHONPATH=str(target))


# Run by the smoke venv's Python: the package's folder, found without importing it (the
# import comes after the export list is read).
FIND_PACKAGE = "import importlib.util, sys; print(importlib.util.find_spec(sys.argv[1]).submodule_search_locations[0])"

# Run by the smoke venv's Python: imports the package and checks the names given.
CHECK_EXPORTS = """\
import importlib, json, sys
package = importlib.import_module(sys.argv[1])
names = json.loads(sys.argv[2])
missing = [n for n in names if not callable(getattr(package, n, None))]
if missing:
    sys.exit(f"abi_wheels: {package.__name__} ({package.__file__}) lacks exports the library has: {missing}")
print(f"abi_wheels: imported {package.__name__} from {package.__file__}: {len(names)} exports callable")
"""


def exposed(listing):
    """The exports the package makes attributes (as `abi stubs` writes it): public
    identifiers, not ops' JAX-order entry points nor, in a package with ops, `torch` and
    `jax` (its namespaces)."""
    import keyword

    exports = listing["exports"]
    ops = [e["op"] for e in exports.values() if e.get("op")]
    jax_entries = {op.get("jax") for op in ops}
    namespaces = {"torch", "jax"} if ops else set()
    return [
        name
        for name in exports
        if name.isidentifier() and not keyword.iskeyword(name) and not name.startswith("_")
        and name not in jax_entries and name not in namespaces
    ]


def smoke(args):
    crate = crate_folder(args.crate)
    package, tool = project(crate)
    dist = distribution(args.dist)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        where = work / "venv"
        print(f"abi_wheels: a clean venv in {where}", flush=True)
        venv.create(where, with_pip=True)
        python = where / ("Scripts/python.exe" if WINDOWS else "bin/python")
        run([python, "-m", "pip", "install", "--quiet", dist, *args.requirements])
        # From a folder of its own, so that nothing but the installed package is imported.
        elsewhere = work / "run"
        elsewhere.mkdir()
        test = crate / "tests" / "smoke.py"
        if test.is_file():
            run([python, test], cwd=elsewhere)
        else:
            print(f"abi_wheels: no {test}: the smoke test is the export check alone")
        folder = Path(run([python, "-c", FIND_PACKAGE, package], cwd=elsewhere, capture_output=True, text=True).stdout.strip())
        libraries = sorted(folder.glob("*" + LIBRARY_SUFFIX))
        if len(libraries) != 1:
            fail(f"expected one *{LIBRARY_SUFFIX} library in {folder}, found {[p.name for p in libraries]}")
        abi, env = abi_command(tool, work)
        listing = run([*abi, "inspect", "--json", "--no-load", libraries[0]], capture_output=True, text=True, env=env)
        names = exposed(json.loads(listing.stdout))
        run([python, "-c", CHECK_EXPORTS, package, json.dumps(names)], cwd=elsewhere)


def main():
    parser = argparse.ArgumentParser(prog="abi_wheels.py", description=__doc__.splitlines()[0])
    steps = parser.add_subparsers(dest="step", required=True)
    for name, what in [("build", "build the wheel"), ("sdist", "build the sdist")]:
        step = steps.add_parser(name, help=what)
        step.add_argument("--crate", default=".", help="the crate folder (default: .)")
        step.add_argument("--out", default="dist", help="where the file goes (default: dist)")
    step = steps.add_parser("smoke", help="install a wheel or sdist into a clean venv and smoke-test it")
    step.add_argument("--crate", default=".", help="the crate folder (default: .)")
    step.add_argument("--with", dest="requirements", action="append", default=[], help="a requirement to install too (repeatable)")
    step.add_argument("dist", nargs="?", default="dist", help="a wheel or sdist, or a folder holding one (default: dist)")
    args = parser.parse_args()
    absolute_find_links()
    {"build": build, "sdist": sdist, "smoke": smoke}[args.step](args)


def absolute_find_links():
    """PIP_FIND_LINKS with each folder made absolute: a folder of the repository holding the
    abi-cli wheels (`.github/abi-cli-wheels`, say) serves pip wherever it runs, the smoke
    test's other folder and pip's build environment included. URLs are kept."""
    links = os.environ.get("PIP_FIND_LINKS", "").split()
    os.environ["PIP_FIND_LINKS"] = " ".join(str(Path(l).resolve()) if Path(l).is_dir() else l for l in links)


if __name__ == "__main__":
    main()
