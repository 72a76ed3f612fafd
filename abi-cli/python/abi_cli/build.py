"""The PEP 517 build backend of the abi-cli distribution (`build-backend =
"abi_cli.build"`, as `abi init-python` writes in pyproject.toml): `pip install .` (or
`python -m build --wheel`) builds the crate in the current folder in release mode with
cargo and packages its library with `abi wheel`, run from the `abi` executable shipped in
this distribution (or `$ABI` when set: `abi_cli.binary()`). Settings are read from
pyproject.toml: `[project] name` (the distribution), `[project] dependencies` (beyond
apache-tvm-ffi, which abi adds), `[tool.abi] package` (the import name) and `[tool.abi]
glibc` (the oldest glibc the library must load on, on Linux x86_64 and aarch64: `cargo
zigbuild` links against that glibc's symbol versions and the wheel is tagged
`manylinux_2_<minor>`; the backend asks pip for ziglang and cargo-zigbuild then, through
`get_requires_for_build_wheel`; "native", or no key, links against this machine's glibc
with `cargo build`); the version is the crate's, from Cargo.toml.

`python -m build --sdist` (`build_sdist`) writes `{name}-{version}.tar.gz`: this crate's
files (as `cargo package --list` lists them), pyproject.toml, PKG-INFO and a Cargo.lock
(the crate's, or its workspace's, brought up to date; else a new one), and under
`local_dependencies/` each crate it depends on by path, recursively, with every manifest
normalized as `cargo package` does (what it takes from its workspace written out) and its
`path = ...` entries rewritten to point there; a path dependency without a Cargo.toml is
refused, naming it. A wheel built from the unpacked sdist builds with `cargo --locked`.

`pip install -e .` (PEP 660, `build_editable`) builds the debug profile with a plain
`cargo build`, as a user types it, and installs the package without the library: the
package loads it from cargo's target folder (its absolute path is written beside
`__init__.py`), so after `cargo build` a new Python process runs the new code. The Python
wrappers are written at install time: a changed signature needs `pip install -e .` again.
"""

import json
import filecmp
import gzip
import importlib.util
import os
import platform
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11: abi-cli requires tomli there
    import tomli as tomllib



def _here():
    """The crate folder: PEP 517 runs every hook in the source tree."""
    return Path.cwd().resolve()


# A shared library's suffix on each platform, as cargo names a cdylib: libNAME.so,
# libNAME.dylib, NAME.dll (beside NAME.dll.lib, its import library, which is no library
# to load).
LIBRARY_SUFFIXES = {"darwin": ".dylib", "win32": ".dll"}


# What `cargo zigbuild` needs, asked of pip by get_requires_for_build_wheel when the
# library links against an older glibc ([tool.abi] glibc): zig (the ziglang wheel) and
# cargo-zigbuild, in the ranges this backend was tested with.
ZIG_REQUIREMENTS = ["ziglang>=0.17,<0.18", "cargo-zigbuild>=0.24,<0.25"]


def get_requires_for_build_wheel(config_settings=None):
    """Zig and cargo-zigbuild where the wheel links with `cargo zigbuild` (Linux x86_64 and
    aarch64, [tool.abi] glibc not "native"); nothing elsewhere, nor for an editable install."""
    return list(ZIG_REQUIREMENTS) if _zig_target(_settings()["glibc"], quiet=True) else []


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
        command += ["--editable", str(_here())]
    run = subprocess.run(command, stdout=subprocess.PIPE, text=True)
    if run.returncode != 0:
        raise SystemExit(f"abi_cli.build: `abi wheel` failed (exit {run.returncode}); its message is above")
    written = Path(run.stdout.strip().removeprefix("wrote ").strip())
    return written.name


def get_requires_for_build_sdist(config_settings=None):
    return []


# Where the sdist puts the crates this crate depends on by path, one folder each.
LOCAL_DEPENDENCIES = "local_dependencies"
# What `cargo package --list` names that the sdist writes itself (or leaves out).
GENERATED = {"Cargo.toml", "Cargo.toml.orig", "Cargo.lock", ".cargo_vcs_info.json"}


def build_sdist(sdist_directory, config_settings=None):
    """`{name}-{version}.tar.gz` (PEP 625), holding `{name}-{version}/`: this crate's files
    as `cargo package --list` lists them, pyproject.toml, this backend, PKG-INFO, Cargo.lock,
    and under local_dependencies/ each crate it depends on by path (recursively), every
    manifest normalized (`workspace = true` resolved, as `cargo package` does) and its
    `path = ...` entries pointing there. The wheel built from it builds with `--locked`."""
    settings = _settings()
    cargo = os.environ.get("CARGO", "cargo")
    out = Path(sdist_directory).resolve()
    packages = _path_packages(_here(), cargo)
    version = _python_version(str(packages[0]["manifest"].get("package", {}).get("version", "0.0.0")))
    base = f"{re.sub(r'[-_.]+', '_', settings['name']).lower()}-{version}"
    with tempfile.TemporaryDirectory(prefix="abi-sdist-") as scratch:
        scratch = Path(scratch)
        tree = scratch / base
        files = {}  # the path in the sdist -> the source file's mtime (None: written here)
        for package in packages:
            files.update(_copy_package(package, tree, out, cargo, scratch / "target"))
        for extra in ["pyproject.toml", *sorted(p.name for p in _here().glob("README*"))]:
            if extra not in files and (_here() / extra).is_file():
                shutil.copyfile(_here() / extra, tree / extra)
                files[extra] = (_here() / extra).stat().st_mtime
        metadata = f"Metadata-Version: 2.1\nName: {settings['name']}\nVersion: {version}\n"
        (tree / "PKG-INFO").write_text(metadata)
        files["PKG-INFO"] = None
        _sdist_lock(tree, cargo)
        files["Cargo.lock"] = None
        # Source files keep their times: cargo rebuilds a crate whose files are newer than
        # its last build, so fixed old times would let a shared target folder keep a stale
        # library. SOURCE_DATE_EPOCH, when set, fixes every time.
        epoch = os.environ.get("SOURCE_DATE_EPOCH")
        newest = max(t for t in files.values() if t is not None)
        name = f"{base}.tar.gz"
        out.mkdir(parents=True, exist_ok=True)
        partial = out / f".{name}.{os.getpid()}"
        try:
            with open(partial, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as zipped:
                with tarfile.open(fileobj=zipped, mode="w", format=tarfile.PAX_FORMAT) as tar:
                    for path in sorted(files):
                        source = tree / path
                        info = tarfile.TarInfo(f"{base}/{path}")
                        info.size = source.stat().st_size
                        info.mtime = int(epoch) if epoch else int(files[path] if files[path] is not None else newest)
                        info.mode = 0o755 if os.access(source, os.X_OK) else 0o644
                        with open(source, "rb") as f:
                            tar.addfile(info, f)
            os.replace(partial, out / name)
        finally:
            partial.unlink(missing_ok=True)
    return name


def _path_packages(root, cargo):
    """This crate and every crate it depends on by path, recursively: each one's folder, its
    manifest (normalized), and the folder the sdist puts it in ("" for this crate)."""
    packages = [{"source": root, "manifest": _normalized_manifest(root, cargo), "folder": ""}]
    by_source = {root: packages[0]}
    for package in packages:  # grows as dependencies are found
        for table in _dependency_tables(package["manifest"]):
            for key, spec in table.items():
                if not (isinstance(spec, dict) and "path" in spec):
                    continue
                source = Path(spec["path"])
                if source not in by_source:
                    if not (source / "Cargo.toml").is_file():
                        raise SystemExit(
                            f"abi_cli.build: cannot bring the path dependency `{key}` of {package['source'] / 'Cargo.toml'} "
                            f"into the sdist: {source} has no Cargo.toml"
                        )
                    manifest = _normalized_manifest(source, cargo, dependency=True)
                    taken = {p["folder"] for p in packages}
                    crate = str(manifest.get("package", {}).get("name", source.name))
                    folder = next(
                        f for f in (f"{LOCAL_DEPENDENCIES}/{crate}{'' if n == 1 else f'-{n}'}" for n in range(1, len(packages) + 2))
                        if f not in taken
                    )
                    by_source[source] = {"source": source, "manifest": manifest, "folder": folder}
                    packages.append(by_source[source])
                there = by_source[source]["folder"]
                spec["path"] = os.path.relpath(there or ".", package["folder"] or ".").replace(os.sep, "/")
    if len(packages) > 1:  # the crates brought in stay out of this crate's workspace
        packages[0]["manifest"]["workspace"]["exclude"] = [LOCAL_DEPENDENCIES]
    return packages


# A manifest's dependency tables (beside [target.'cfg(..)'.*] and [patch.*]).
DEPENDENCY_KINDS = ("dependencies", "build-dependencies", "dev-dependencies", "build_dependencies", "dev_dependencies")


def _dependency_tables(manifest):
    tables = [manifest.get(kind) for kind in DEPENDENCY_KINDS]
    for platform_table in manifest.get("target", {}).values():
        tables += [platform_table.get(kind) for kind in DEPENDENCY_KINDS]
    tables += list(manifest.get("patch", {}).values())
    return [t for t in tables if isinstance(t, dict)]


def _normalized_manifest(folder, cargo, dependency=False):
    """The crate's Cargo.toml as `cargo package` normalizes it: what it takes from its
    workspace (`key.workspace = true`, `[lints] workspace = true`) written out, path
    dependencies' paths absolute; no workspace of its own ([workspace] with nothing in it
    for this crate); a dependency loses its dev-dependencies, [patch], [replace] and
    [profile], which cargo reads only in a workspace's root."""
    with open(folder / "Cargo.toml", "rb") as f:
        manifest = tomllib.load(f)
    inherited = None

    def workspace():
        nonlocal inherited
        if inherited is None:
            command = [cargo, "locate-project", "--workspace", "--message-format", "plain", "--manifest-path", str(folder / "Cargo.toml")]
            root = Path(_run_cargo(command, "cargo locate-project").strip())
            with open(root, "rb") as f:
                inherited = (root.parent, tomllib.load(f).get("workspace", {}))
        return inherited

    def missing(what):
        return SystemExit(f"abi_cli.build: {folder / 'Cargo.toml'} takes {what} from its workspace ({workspace()[0] / 'Cargo.toml'}), which has none")

    package = manifest.get("package", {})
    package.pop("workspace", None)
    for key, value in list(package.items()):
        if isinstance(value, dict) and value.get("workspace") is True:
            root, table = workspace()
            if key not in table.get("package", {}):
                raise missing(f"package.{key}")
            package[key] = table["package"][key]
            if key in ("readme", "license-file") and isinstance(package[key], str):
                package[key] = str(root / package[key])
    for key in ("readme", "license-file"):
        if isinstance(package.get(key), str):
            package[key] = str((folder / package[key]).resolve())
    if dependency:
        for table in [manifest, *manifest.get("target", {}).values()]:
            for kind in ("dev-dependencies", "dev_dependencies"):
                table.pop(kind, None)
        for key in ("workspace", "patch", "replace", "profile"):
            manifest.pop(key, None)
    for table in _dependency_tables(manifest):
        for key, spec in table.items():
            if isinstance(spec, dict) and spec.get("workspace") is True:
                root, ws = workspace()
                base = ws.get("dependencies", {}).get(key)
                if base is None:
                    raise missing(f"the dependency `{key}`")
                base = {"version": base} if isinstance(base, str) else dict(base)
                if "path" in base:
                    base["path"] = str(root / base["path"])
                features = list(base.get("features", []))
                features += [f for f in spec.get("features", []) if f not in features]
                spec = {**base, **{k: v for k, v in spec.items() if k not in ("workspace", "features")}}
                if features:
                    spec["features"] = features
                table[key] = spec
            if isinstance(spec, dict) and "path" in spec:
                spec["path"] = str((folder / spec["path"]).resolve())
    lints = manifest.get("lints")
    if isinstance(lints, dict) and lints.get("workspace") is True:
        manifest["lints"] = workspace()[1].get("lints", {})
    if not dependency:
        resolver = (manifest.get("workspace") or (workspace()[1] if "workspace" not in manifest else {})).get("resolver")
        manifest["workspace"] = {"resolver": resolver} if resolver else {}
    return manifest


def _copy_package(package, tree, out, cargo, target_dir):
    """Copies a crate's files (`cargo package --list`) into its folder of the sdist `tree`
    and writes its normalized manifest there (a readme or license file outside the crate
    folder is copied in, as cargo does); returns the paths written, relative to `tree`,
    with the source files' mtimes."""
    source, folder, manifest = package["source"], package["folder"], package["manifest"]
    here = tree / folder
    outside = {}
    meta = manifest.get("package", {})
    for key in ("readme", "license-file"):
        if isinstance(meta.get(key), str):
            path = Path(meta[key])
            if not path.is_relative_to(source):
                outside[path.name] = path
                meta[key] = path.name
            else:
                meta[key] = path.relative_to(source).as_posix()
    command = [cargo, "package", "--list", "--allow-dirty", "--manifest-path", str(source / "Cargo.toml"), "--target-dir", str(target_dir)]
    run = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if run.returncode != 0:
        sys.stderr.write(run.stderr)
        raise SystemExit(f"abi_cli.build: `cargo package --list` for {source} failed (exit {run.returncode}); its errors are above")
    written = {}
    for listed in run.stdout.splitlines():
        parts = Path(listed).parts
        if listed in GENERATED or "__pycache__" in parts or listed.endswith(".pyc") or (not folder and parts[0] in ("dist", "target")):
            continue
        path = source / listed
        if not path.exists() and listed in outside:
            path = outside[listed]
        if not path.is_file():
            raise SystemExit(f"abi_cli.build: `cargo package --list` for {source} lists {listed}, which is not a file there")
        if out == path.resolve() or out in path.resolve().parents:
            continue  # an sdist written into the crate folder
        (here / listed).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, here / listed)
        shutil.copymode(path, here / listed)
        written[(Path(folder) / listed).as_posix()] = path.stat().st_mtime
    text = _toml(manifest)
    if tomllib.loads(text) != manifest:
        raise SystemExit(f"abi_cli.build: the normalized manifest of {source} does not read back as written; please report it")
    here.mkdir(parents=True, exist_ok=True)
    (here / "Cargo.toml").write_text(MANIFEST_HEADER + text)
    written[(Path(folder) / "Cargo.toml").as_posix()] = None
    return written


MANIFEST_HEADER = """\
# Written by abi_cli.build for the sdist: the crate's Cargo.toml with what it takes from its
# workspace written out and its path dependencies in local_dependencies/.

"""


def _sdist_lock(tree, cargo):
    """Writes the sdist's Cargo.lock: the crate's own (or its workspace's), brought up to the
    rewritten manifests with `cargo update --workspace` (which changes no other version),
    else a new one (`cargo generate-lockfile`)."""
    command = [cargo, "locate-project", "--workspace", "--message-format", "plain", "--manifest-path", str(_here() / "Cargo.toml")]
    lock = _here() / "Cargo.lock"
    if not lock.is_file():
        lock = Path(_run_cargo(command, "cargo locate-project").strip()).parent / "Cargo.lock"
    manifest = ["--manifest-path", str(tree / "Cargo.toml")]
    if lock.is_file():
        shutil.copyfile(lock, tree / "Cargo.lock")
        _run_cargo([cargo, "update", "--workspace", "--quiet", *manifest], "cargo update --workspace")
    else:
        _run_cargo([cargo, "generate-lockfile", *manifest], "cargo generate-lockfile")


def _toml(table):
    """TOML for a manifest read by tomllib: values inline, tables under headers."""
    lines = []

    def key(k):
        return k if re.fullmatch(r"[A-Za-z0-9_-]+", k) else _toml_string(k)

    def value(v):
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, str):
            return _toml_string(v)
        if isinstance(v, (int, float)):
            return repr(v)
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        if isinstance(v, dict):
            return "{ " + ", ".join(f"{key(k)} = {value(x)}" for k, x in v.items()) + " }" if v else "{}"
        return v.isoformat()  # dates and times

    def is_tables(v):
        return isinstance(v, list) and v and all(isinstance(x, dict) for x in v)

    def emit(t, path):
        plain = [(k, v) for k, v in t.items() if not isinstance(v, dict) and not is_tables(v)]
        if path and (plain or not any(isinstance(v, dict) or is_tables(v) for v in t.values())):
            lines.extend(["", f"[{'.'.join(map(key, path))}]"])
        lines.extend(f"{key(k)} = {value(v)}" for k, v in plain)
        for k, v in t.items():
            if isinstance(v, dict):
                emit(v, [*path, k])
        for k, v in t.items():
            if is_tables(v):
                for item in v:
                    lines.extend(["", f"[[{'.'.join(map(key, [*path, k]))}]]"])
                    lines.extend(f"{key(ik)} = {value(iv)}" for ik, iv in item.items())

    emit(table, [])
    return "\n".join(lines).lstrip("\n") + "\n"


def _toml_string(s):
    return json.dumps(s, ensure_ascii=False).replace("\x7f", "\\u007f")


def _settings():
    with open(_here() / "pyproject.toml", "rb") as f:
        pyproject = tomllib.load(f)
    project = pyproject.get("project", {})
    tool = pyproject.get("tool", {}).get("abi", {})
    name = project.get("name")
    package = tool.get("package")
    if not name or not package:
        raise SystemExit("abi_cli.build: pyproject.toml needs [project] name and [tool.abi] package")
    glibc = tool.get("glibc", "native")
    minor = re.fullmatch(r"2\.(0|[1-9]\d*)", glibc) if isinstance(glibc, str) else None
    if minor and int(minor.group(1)) < 17:
        raise SystemExit(
            f'abi_cli.build: [tool.abi] glibc = "{glibc}" is older than the oldest glibc Rust and zig link for (2.17, '
            'manylinux2014): write "2.17" or newer (e.g. "2.28"), or "native"'
        )
    if glibc != "native" and not minor:
        raise SystemExit(
            f"abi_cli.build: [tool.abi] glibc = {json.dumps(glibc, default=str)} is not a glibc version: write a manylinux "
            'policy\'s glibc as a string, "2.17" (manylinux2014) or newer (e.g. "2.28"), or "native"'
        )
    return {"name": name, "package": package, "dependencies": list(project.get("dependencies", [])), "glibc": glibc}


# The machines (platform.machine(), spelled as Rust spells them on Linux) the backend
# builds for with `cargo zigbuild`.
ZIG_MACHINES = ("x86_64", "aarch64")


def _zig_target(glibc, quiet=False):
    """The `cargo zigbuild` target that links against `glibc` on this machine, e.g.
    `x86_64-unknown-linux-gnu.2.17`; None for a plain `cargo build`: with glibc "native",
    and on other systems and machines (their build is unchanged)."""
    if glibc == "native" or not sys.platform.startswith("linux"):
        return None
    arch = platform.machine()
    if arch not in ZIG_MACHINES:
        if not quiet:
            print(f"abi_cli.build: [tool.abi] glibc applies on x86_64 and aarch64; building for {platform.machine()} with cargo build", file=sys.stderr)
        return None
    return f"{arch}-unknown-linux-gnu.{glibc}"


def _zigbuild_env(target, cargo, manifest):
    """The environment `cargo zigbuild` runs in: told to use the ziglang package beside this
    Python, which pip installs when get_requires_for_build_wheel asks. Refuses, naming the remedies,
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
            f"abi_cli.build: `cargo zigbuild --target {target}` ([tool.abi] glibc) needs cargo-zigbuild and zig, "
            "which pip installs in an isolated build; without isolation, install them yourself "
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
        raise SystemExit("abi_cli.build: `cargo` was not found: install Rust (https://rustup.rs) or set CARGO")
    if run.returncode != 0:
        raise SystemExit(f"abi_cli.build: `{what}` failed (exit {run.returncode}); its errors are above")
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
    """The `abi` command: $ABI, else the executable shipped in this distribution."""
    from abi_cli import binary

    try:
        return str(binary())
    except FileNotFoundError as e:
        raise SystemExit(f"abi_cli.build: {e}")


def _build_library(target, release=True):
    """Runs `cargo build --release` for this crate (`cargo build`, the debug profile, unless
    `release`), or `cargo zigbuild --release --target TARGET`; returns its cdylib's path and
    version."""
    cargo = os.environ.get("CARGO", "cargo")
    manifest = _here() / "Cargo.toml"
    build, env = (["zigbuild", "--target", target], _zigbuild_env(target, cargo, manifest)) if target else (["build"], None)
    profile = ["--release"] if release else []
    # From an unpacked sdist (PKG-INFO beside Cargo.toml), the versions its Cargo.lock names.
    locked = ["--locked"] if (_here() / "PKG-INFO").is_file() else []
    what = " ".join(["cargo", *build, *profile, *locked])
    command = [cargo, *build, *profile, *locked, "--lib", "--manifest-path", str(manifest), "--message-format=json-render-diagnostics"]
    print(f"abi_cli.build: {what}" + ("" if release else " (the debug profile: the editable install loads its library from there)"), file=sys.stderr)
    libraries, version = _cdylibs(_run_cargo(command, what, env), manifest)
    if len(libraries) != 1:
        raise SystemExit(
            f"abi_cli.build: expected one shared library from this crate, got {[str(p) for p in libraries]}; "
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
        raise SystemExit(f"abi_cli.build: cannot read the crate version from {package_id!r}")
    return match.group(1)


def _python_version(semver):
    """Cargo's version as PEP 440 spells it: 1.2.3-alpha.1 is 1.2.3a1, -beta.2 b2, -rc.3 rc3."""
    release, _, build = semver.partition("+")
    out, _, pre = release.partition("-")
    if pre:
        m = re.fullmatch(r"(alpha|a|beta|b|rc)\.?(\d+)", pre)
        if not m:
            raise SystemExit(f"abi_cli.build: the crate version {semver} has a pre-release PEP 440 cannot spell (use -alpha.N, -beta.N or -rc.N)")
        out += {"alpha": "a", "a": "a", "beta": "b", "b": "b", "rc": "rc"}[m.group(1)] + m.group(2)
    if build:
        out += "+" + re.sub(r"[^a-z0-9.]", ".", build.lower())
    return out


if __name__ == "__main__":
    print(build_wheel(sys.argv[1] if len(sys.argv) > 1 else "dist"))
