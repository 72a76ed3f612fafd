"""A PEP 517 build backend, written by `abi init-python`: `pip install .` (or
`python -m build --wheel`) builds this crate in release mode with cargo and packages its
library with `abi wheel`. Settings are read from pyproject.toml: `[project] name` (the
distribution), `[project] dependencies` (beyond apache-tvm-ffi, which abi adds),
`[tool.abi] package` (the import name) and `[tool.abi] glibc` (the oldest glibc the
library must load on, on Linux x86_64 and aarch64: `cargo zigbuild` links against that
glibc's symbol versions and the wheel is tagged `manylinux_2_<minor>`; "native", or no
key, links against this machine's glibc with `cargo build`); the version is the crate's,
from Cargo.toml. There is no source distribution: a wheel is built from this folder only.

`pip install -e .` (PEP 660, `build_editable`) builds the debug profile with a plain
`cargo build`, as a user types it, and installs the package without the library: the
package loads it from cargo's target folder (its absolute path is written beside
`__init__.py`), so after `cargo build` a new Python process runs the new code. The Python
wrappers are written at install time: a changed signature needs `pip install -e .` again.
"""

import json
import filecmp
import importlib.util
import os
import platform
import re
import shutil
import subprocess
import sys
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11: pyproject.toml requires tomli there
    import tomli as tomllib

HERE = Path(__file__).resolve().parent

# A shared library's suffix on each platform, as cargo names a cdylib: libNAME.so,
# libNAME.dylib, NAME.dll (beside NAME.dll.lib, its import library, which is no library
# to load).
LIBRARY_SUFFIXES = {"darwin": ".dylib", "win32": ".dll"}


def get_requires_for_build_wheel(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _build(wheel_directory, editable=False)


def get_requires_for_build_editable(config_settings=None):
    return []


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    """The wheel of `pip install -e .`: the debug profile's library stays in cargo's target
    folder, where `cargo build` replaces it; the wheel names its path (`abi wheel
    --editable`)."""
    return _build(wheel_directory, editable=True)


def _build(wheel_directory, editable):
    settings = _settings()
    abi = _abi()
    # An editable install loads what a plain `cargo build` writes: no zig, this machine's glibc.
    target = None if editable else _zig_target(settings["glibc"])
    library, version = _build_library(target, release=not editable)
    command = [
        abi,
        "wheel",
        str(library),
        "--package",
        settings["package"],
        "--version",
        version,
        "--dist-name",
        settings["name"],
        "-o",
        str(wheel_directory),
    ]
    for requirement in settings["dependencies"]:
        command += ["--requires", requirement]
    if target:  # the glibc asked for is checked: a library that needs more is refused, naming the symbol
        command += ["--platform-tag", "manylinux_" + settings["glibc"].replace(".", "_")]
    if editable:
        command += ["--editable", str(HERE)]
    run = subprocess.run(command, stdout=subprocess.PIPE, text=True)
    if run.returncode != 0:
        raise SystemExit(f"abi_build: `abi wheel` failed (exit {run.returncode}); its message is above")
    written = Path(run.stdout.strip().removeprefix("wrote ").strip())
    return written.name


class UnsupportedOperation(Exception):
    """What PEP 517 has a backend raise for an operation it does not offer."""


def build_sdist(sdist_directory, config_settings=None):
    raise UnsupportedOperation("abi_build builds wheels only: use `pip install .` or `python -m build --wheel`")


def _settings():
    with open(HERE / "pyproject.toml", "rb") as f:
        pyproject = tomllib.load(f)
    project = pyproject.get("project", {})
    tool = pyproject.get("tool", {}).get("abi", {})
    name = project.get("name")
    package = tool.get("package")
    if not name or not package:
        raise SystemExit("abi_build: pyproject.toml needs [project] name and [tool.abi] package")
    glibc = tool.get("glibc", "native")
    minor = re.fullmatch(r"2\.(0|[1-9]\d*)", glibc) if isinstance(glibc, str) else None
    if minor and int(minor.group(1)) < 17:
        raise SystemExit(
            f'abi_build: [tool.abi] glibc = "{glibc}" is older than the oldest glibc Rust and zig link for (2.17, '
            'manylinux2014): write "2.17" or newer (e.g. "2.28"), or "native"'
        )
    if glibc != "native" and not minor:
        raise SystemExit(
            f"abi_build: [tool.abi] glibc = {json.dumps(glibc, default=str)} is not a glibc version: write a manylinux "
            'policy\'s glibc as a string, "2.17" (manylinux2014) or newer (e.g. "2.28"), or "native"'
        )
    return {"name": name, "package": package, "dependencies": list(project.get("dependencies", [])), "glibc": glibc}


# The machines (platform.machine(), spelled as Rust spells them on Linux) the backend
# builds for with `cargo zigbuild`.
ZIG_MACHINES = ("x86_64", "aarch64")


def _zig_target(glibc):
    """The `cargo zigbuild` target that links against `glibc` on this machine, e.g.
    `x86_64-unknown-linux-gnu.2.17`; None for a plain `cargo build`: with glibc "native",
    and on other systems and machines (their build is unchanged)."""
    if glibc == "native" or not sys.platform.startswith("linux"):
        return None
    arch = platform.machine()
    if arch not in ZIG_MACHINES:
        print(f"abi_build: [tool.abi] glibc applies on x86_64 and aarch64; building for {platform.machine()} with cargo build", file=sys.stderr)
        return None
    return f"{arch}-unknown-linux-gnu.{glibc}"


def _zigbuild_env(target, cargo, manifest):
    """The environment `cargo zigbuild` runs in: told to use the ziglang package beside this
    Python, which pip installs from [build-system] requires. Refuses, naming the remedies,
    when cargo-zigbuild or zig is missing (with --no-build-isolation, say): pip shows a
    successful build's output only with -v, so a narrower wheel than pyproject.toml asks
    for would go unnoticed."""
    env = dict(os.environ)
    # On PATH (pip's build environment puts its scripts there), beside this Python (a venv
    # not activated, with --no-build-isolation), or where cargo installs.
    candidates = [
        Path(sys.executable).parent / "cargo-zigbuild",
        Path(env.get("CARGO_HOME", Path.home() / ".cargo")) / "bin" / "cargo-zigbuild",
    ]
    zigbuild = shutil.which("cargo-zigbuild") or next((c for c in candidates if c.is_file()), None)
    if importlib.util.find_spec("ziglang") is not None:
        env.setdefault("CARGO_ZIGBUILD_PYTHON_PATH", sys.executable)
    has_zig = "CARGO_ZIGBUILD_PYTHON_PATH" in env or "CARGO_ZIGBUILD_ZIG_PATH" in env or shutil.which("zig")
    if not (zigbuild and has_zig):
        raise SystemExit(
            f"abi_build: `cargo zigbuild --target {target}` ([tool.abi] glibc) needs cargo-zigbuild and zig, "
            "which pip installs from [build-system] requires; without isolation, install them yourself "
            f"(pip install ziglang cargo-zigbuild; looked for cargo-zigbuild on PATH, in {Path(sys.executable).parent} "
            f"and in cargo's bin folder, and for the ziglang package in {sys.executable}), "
            'or set [tool.abi] glibc = "native" to link against this machine\'s glibc'
        )
    # cargo-zigbuild names the linker it gives cargo after its own path, and cargo rebuilds
    # every dependency when the linker changes: pip's build environment is a new folder
    # each time, so cargo runs a copy kept in the target folder.
    kept = _target_dir(cargo, manifest) / "abi-build" / "bin"
    _keep_copy(Path(zigbuild), kept / "cargo-zigbuild")
    env["PATH"] = f"{kept}{os.pathsep}{env.get('PATH', '')}"
    return env


def _target_dir(cargo, manifest):
    """The folder cargo builds this crate into (CARGO_TARGET_DIR, a workspace's, ...)."""
    command = [cargo, "metadata", "--format-version", "1", "--no-deps", "--manifest-path", str(manifest)]
    return Path(json.loads(_run_cargo(command, "cargo metadata"))["target_directory"])


def _run_cargo(command, what, env=None):
    """Runs cargo (`command`, `what` naming it in messages); returns its stdout, or ends the
    build with a message when cargo is missing or fails (its own errors are on stderr)."""
    try:
        run = subprocess.run(command, stdout=subprocess.PIPE, text=True, env=env)
    except FileNotFoundError:
        raise SystemExit("abi_build: `cargo` was not found: install Rust (https://rustup.rs) or set CARGO")
    if run.returncode != 0:
        raise SystemExit(f"abi_build: `{what}` failed (exit {run.returncode}); its errors are above")
    return run.stdout


def _keep_copy(source, kept):
    """Copies `source` to `kept` unless the same bytes are there (atomically: builds may run
    side by side)."""
    if kept.is_file() and filecmp.cmp(source, kept, shallow=False):
        return
    kept.parent.mkdir(parents=True, exist_ok=True)
    partial = kept.with_name(f"{kept.name}.{os.getpid()}")
    shutil.copy2(source, partial)
    os.replace(partial, kept)


def _abi():
    """The `abi` command: $ABI, else the one on PATH."""
    explicit = os.environ.get("ABI")
    if explicit:
        if not (os.path.isfile(explicit) and os.access(explicit, os.X_OK)):
            raise SystemExit(f"abi_build: ABI={explicit} is not an executable file; point it at the `abi` command or unset it")
        return explicit
    found = shutil.which("abi")
    if found:
        return found
    raise SystemExit(
        "abi_build: the `abi` command is not on PATH and ABI is not set; install it with "
        "`cargo install --path <abi checkout>/abi-cli` (or set ABI=/path/to/abi)"
    )


def _build_library(target, release=True):
    """Runs `cargo build --release` for this crate (`cargo build`, the debug profile, unless
    `release`), or `cargo zigbuild --release --target TARGET`; returns its cdylib's path and
    version."""
    cargo = os.environ.get("CARGO", "cargo")
    manifest = HERE / "Cargo.toml"
    build, env = (["zigbuild", "--target", target], _zigbuild_env(target, cargo, manifest)) if target else (["build"], None)
    profile = ["--release"] if release else []
    what = " ".join(["cargo", *build, *profile])
    command = [cargo, *build, *profile, "--lib", "--manifest-path", str(manifest), "--message-format=json-render-diagnostics"]
    print(f"abi_build: {what}" + ("" if release else " (the debug profile: the editable install loads its library from there)"), file=sys.stderr)
    libraries, version = _cdylibs(_run_cargo(command, what, env), manifest)
    if len(libraries) != 1:
        raise SystemExit(
            f"abi_build: expected one shared library from this crate, got {[str(p) for p in libraries]}; "
            'set `crate-type = ["cdylib"]` under [lib] in Cargo.toml'
        )
    return libraries[0], _python_version(_crate_version(version))


def _cdylibs(cargo_output, manifest, platform=sys.platform):
    """The shared libraries cargo's JSON messages say it built for the crate of `manifest`
    (on `platform`), and the crate's package id."""
    suffix = LIBRARY_SUFFIXES.get(platform, ".so")
    libraries, package_id = [], None
    for line in cargo_output.splitlines():
        message = json.loads(line)
        if message.get("reason") != "compiler-artifact" or Path(message["manifest_path"]) != manifest.resolve():
            continue
        if "cdylib" in message["target"]["kind"]:
            libraries += [Path(f) for f in message["filenames"] if f.endswith(suffix)]
            package_id = message["package_id"]
    return libraries, package_id


def _crate_version(package_id):
    """The version in a cargo package id (`path+file:///x#name@1.2.3` or `... 1.2.3 (...)`)."""
    match = re.search(r"[#@ ]v?(\d+\.\d+\.\d+[^ )]*)", package_id)
    if not match:
        raise SystemExit(f"abi_build: cannot read the crate version from {package_id!r}")
    return match.group(1)


def _python_version(semver):
    """Cargo's version as PEP 440 spells it: 1.2.3-alpha.1 is 1.2.3a1, -beta.2 b2, -rc.3 rc3."""
    release, _, build = semver.partition("+")
    out, _, pre = release.partition("-")
    if pre:
        m = re.fullmatch(r"(alpha|a|beta|b|rc)\.?(\d+)", pre)
        if not m:
            raise SystemExit(f"abi_build: the crate version {semver} has a pre-release PEP 440 cannot spell (use -alpha.N, -beta.N or -rc.N)")
        out += {"alpha": "a", "a": "a", "beta": "b", "b": "b", "rc": "rc"}[m.group(1)] + m.group(2)
    if build:
        out += "+" + re.sub(r"[^a-z0-9.]", ".", build.lower())
    return out


if __name__ == "__main__":
    print(build_wheel(sys.argv[1] if len(sys.argv) > 1 else "dist"))
