"""`load_inline`: Rust source in, the package `abi stubs` writes out, built and imported.

    mod = load_inline("my_ops", source, dependencies={"ndarray": "0.16"})

The source becomes `src/lib.rs` of a generated `cdylib` crate depending on abi-core, which
cargo builds in a cache folder shared by every process of the machine; the library is
copied out under a hash of everything that changes it, given to `abi stubs`, and the
package imported. The guide's Python chapter ("load_inline: Rust from a notebook") has the
cache's layout and the rules for redefining a module in one process.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import types
from pathlib import Path
from typing import IO, Iterator, Mapping, Optional, Sequence, Union

__all__ = ["load_inline", "CompileError", "cache_dir"]

# The variable that moves the cache.
CACHE_VARIABLE = "ABI_INLINE_CACHE"
# Bumped when the generated crate or the cache's layout changes: older entries are not reused.
_LAYOUT = 1
_PROFILES = {"release": "release", "debug": "debug", "dev": "debug"}
_SUFFIX = {"darwin": ".dylib", "win32": ".dll"}.get(sys.platform, ".so")
_PREFIX = "" if sys.platform == "win32" else "lib"
# cargo's status lines (relayed while it runs, left out of a CompileError's message).
_STATUS = re.compile(r"^\s*(Compiling|Checking|Updating|Locking|Adding|Downloading|Downloaded|Blocking|Finished|Fresh|Unpacking)\b")

Spec = Union[str, Mapping[str, object]]


class CompileError(RuntimeError):
    """cargo failed: rustc's diagnostics for the source (`--> src/lib.rs:LINE:COL`, the
    lines of the string given), or cargo's refusal of a dependency spec or feature."""


# This process's modules by name and hash, so that the same source loads once and a
# redefinition gets a module name of its own (`my_ops_v1`, as torch's load_inline names
# rebuilt extensions): torch ops and JAX targets are registered under the package's name,
# which a second library cannot take.
_LOADED: dict[str, dict[str, types.ModuleType]] = {}


def cache_dir() -> Path:
    """The cache's root: `$ABI_INLINE_CACHE` when set, else `abi-cli/inline` under the
    platform's cache folder (`$XDG_CACHE_HOME` or `~/.cache` on Linux, `~/Library/Caches`
    on macOS, `%LOCALAPPDATA%` on Windows)."""
    explicit = os.environ.get(CACHE_VARIABLE)
    if explicit:
        return Path(explicit).expanduser().absolute()
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    else:
        xdg = os.environ.get("XDG_CACHE_HOME")
        base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"
    return base / "abi-cli" / "inline"


def load_inline(
    name: str,
    source: str,
    dependencies: Optional[Mapping[str, Spec]] = None,
    *,
    features: Sequence[str] = (),
    profile: str = "release",
) -> types.ModuleType:
    """Builds `source` as a Rust library and returns its package, as `abi stubs` writes it:
    the exports as functions, ops with `mod.torch` and `mod.jax`, classes, enums, errors.

    `source` is the crate's `src/lib.rs`, verbatim: rustc's diagnostics point at its lines
    (`--> src/lib.rs:3:5` is line 3 of the string). `name` (a Python identifier) names the
    crate, the library and the package. `dependencies` are `[dependencies]` entries: a
    version (`"0.16"`) or a table (`{"version": "0.16", "features": ["rayon"]}`, `{"path":
    "..."}`). abi-core is added as `"=<abi version>"` unless given there: until it is on
    crates.io, give it by path (`{"abi-core": {"path": "/path/to/abi/abi-core"}}`).
    `features` go to `cargo build --features` (`"abi-core/ndarray"`, `"ndarray/rayon"`).
    `profile` is `"release"` or `"debug"`.

    The build is cached (`cache_dir()`, moved by `ABI_INLINE_CACHE`) under `name` and a
    hash of the source, dependencies, features, profile, and the `abi` and `rustc`
    versions; a file lock makes a second process wait for the first one's build. cargo's
    output is written to `sys.stderr` as it comes.

    The same source loaded again in a process returns the same module. A new source under a
    name already loaded loads a new library as a new module, named `name_v1`, `name_v2`...
    (its torch ops `torch.ops.name_v1.*`); `sys.modules[name]` stays the first. The process
    keeps the first registration of each global function and object type key (error
    classes are registered again): a type of a new layout under a key already registered is
    refused (every use raises `TypeError`); restart the process to change it.

    Raises `ValueError` (a name that is not an identifier or is another module's),
    `TypeError` (a dependency spec that is not a string or a table), `OSError` (a cache
    that cannot be written), `RuntimeError` (no Rust toolchain), `ImportError` (no
    apache-tvm-ffi: `pip install 'abi-cli[inline]'`) and `CompileError` (cargo failed: the
    message is its diagnostics, with a hint when abi-core was not given by path).
    """
    if not isinstance(name, str) or not name.isidentifier() or not name.isascii():
        raise ValueError(f"load_inline: the name {name!r} is not a Python identifier (ASCII letters, digits and `_`)")
    if not isinstance(source, str):
        raise TypeError(f"load_inline: the source must be a str, not {type(source).__name__}")
    if profile not in _PROFILES:
        raise ValueError(f"load_inline: profile {profile!r} is not one of {sorted(_PROFILES)}")
    if importlib.util.find_spec("tvm_ffi") is None:
        raise ImportError(
            "load_inline: the package it builds loads the library with apache-tvm-ffi, which this Python lacks: "
            "pip install 'abi-cli[inline]'"
        )
    if isinstance(features, str):
        features = [features]
    features = sorted(set(features))
    cargo = _cargo()
    root = _writable_root()
    abi_version = _abi_version()
    rustc = _run([os.environ.get("RUSTC", "rustc"), "-vV"], root, "rustc -vV")
    manifest = _manifest(name, dict(dependencies or {}), abi_version.split()[-1])
    key = json.dumps(
        {
            "layout": _LAYOUT,
            "name": name,
            "source": source,
            "manifest": manifest,
            "features": features,
            "profile": _PROFILES[profile],
            "abi": abi_version,
            "rustc": rustc,
        },
        sort_keys=True,
    )
    digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:20]
    loaded = _LOADED.setdefault(name, {})
    if digest in loaded:
        return loaded[digest]
    package = _package_name(name, loaded)
    entry = root / name / digest
    library = entry / f"{_PREFIX}{name}{_SUFFIX}"
    with _locked(root / name / f"{digest}.lock", f"another process building {name} ({entry})"):
        if not library.exists():
            _build(cargo, root, entry, library, name, source, manifest, features, _PROFILES[profile])
        folder = entry / "python" / package
        if not folder.exists():
            _write_package(entry, library, package, folder)
    module = _import(package, folder)
    loaded[digest] = module
    return module


def _cargo() -> str:
    found = shutil.which(os.environ.get("CARGO", "cargo"))
    if found is None:
        raise RuntimeError(
            "load_inline needs a Rust toolchain and found no `cargo` on PATH: install Rust with "
            "rustup (https://rustup.rs), then start this process again (or set CARGO to cargo's path)"
        )
    return found


def _writable_root() -> Path:
    root = cache_dir()
    try:
        root.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=root):
            pass
    except OSError as e:
        raise OSError(
            e.errno,
            f"load_inline: cannot write the cache folder {root} ({e.strerror or e}); "
            f"set {CACHE_VARIABLE} to a folder this process can write",
        ) from e
    return root


def _abi_version() -> str:
    """`abi --version` of the `abi` command abi_cli runs: `abi 0.1.0`."""
    from abi_cli import binary

    return _run([str(binary()), "--version"], None, "abi --version")


def _run(command: list[str], cwd: Optional[Path], what: str) -> str:
    try:
        done = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    except OSError as e:
        raise RuntimeError(f"load_inline: `{what}` could not run: {e}; install Rust with rustup (https://rustup.rs)") from e
    if done.returncode != 0:
        raise RuntimeError(f"load_inline: `{what}` failed:\n{done.stderr.strip()}")
    return done.stdout.strip()


def _toml(value: object, where: str) -> str:
    """A TOML value (string, bool, integer, array, inline table) for a dependency spec."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        # JSON's escapes are TOML's, but for DEL, which TOML wants escaped too.
        return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml(v, where) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{ " + ", ".join(f"{_toml(str(k), where)} = {_toml(v, where)}" for k, v in value.items()) + " }"
    raise TypeError(f"load_inline: dependency {where}: {value!r} is not a TOML value (str, bool, int, list or dict)")


def _manifest(name: str, dependencies: dict[str, Spec], abi_version: str) -> str:
    lines = []
    for dep, spec in dependencies.items():
        if not isinstance(dep, str):
            raise TypeError(f"load_inline: a dependency's name must be a str, not {dep!r}")
        if not isinstance(spec, (str, Mapping)):
            raise TypeError(f"load_inline: dependency {dep!r}: expected a version string or a dict, not {type(spec).__name__}")
        lines.append(f"{_toml(dep, dep)} = {_toml(spec, repr(dep))}")
    if "abi-core" not in dependencies:
        lines.insert(0, f'abi-core = "={abi_version}"')
    deps = "\n".join(lines)
    # An empty [workspace]: the crate is its own workspace wherever the cache lies.
    return (
        f'[package]\nname = "{name}"\nversion = "0.0.0"\nedition = "2021"\npublish = false\n\n'
        f'[lib]\npath = "src/lib.rs"\ncrate-type = ["cdylib"]\n\n[dependencies]\n{deps}\n\n[workspace]\n'
    )


def _build(
    cargo: str,
    root: Path,
    entry: Path,
    library: Path,
    name: str,
    source: str,
    manifest: str,
    features: list[str],
    profile: str,
) -> None:
    crate = entry / "crate"
    (crate / "src").mkdir(parents=True, exist_ok=True)
    (crate / "Cargo.toml").write_text(manifest, encoding="utf-8")
    with open(crate / "src" / "lib.rs", "w", encoding="utf-8", newline="") as f:
        f.write(source)
    target = root / "target"
    command = [cargo, "build", "--color", "never", "--manifest-path", str(crate / "Cargo.toml")]
    if profile == "release":
        command.append("--release")
    if features:
        command += ["--features", ",".join(features)]
    env = dict(os.environ, CARGO_TARGET_DIR=str(target))
    # One cargo at a time in the shared target folder, until the library is copied out: the
    # next build of a crate of this name writes the same file there.
    with _locked(root / "target.lock", f"another load_inline build in {target}"):
        # The last build's Cargo.lock: the versions abi-core and the dependencies were built
        # with (built once, and resolved without the network), new ones resolved by cargo.
        if (root / "Cargo.lock").exists() and not (crate / "Cargo.lock").exists():
            shutil.copyfile(root / "Cargo.lock", crate / "Cargo.lock")
        stderr = _relay(command, crate, env)
        built = target / profile / library.name
        if stderr is not None or not built.exists():
            diagnostics = "\n".join(line for line in (stderr or "").splitlines() if not _STATUS.match(line)).strip()
            if re.search(r"no matching package named .?abi-core.? found", diagnostics):
                diagnostics += (
                    '\nload_inline: abi-core is not on crates.io yet: give it by path, '
                    'dependencies={"abi-core": {"path": "/path/to/abi/abi-core"}}'
                )
            raise CompileError(f"load_inline({name!r}): `cargo build` failed in {crate}:\n{diagnostics}")
        partial = library.with_name(library.name + ".partial")
        shutil.copyfile(built, partial)
        shutil.copyfile(crate / "Cargo.lock", root / "Cargo.lock.partial")
        os.replace(root / "Cargo.lock.partial", root / "Cargo.lock")
    os.replace(partial, library)


def _relay(command: list[str], cwd: Path, env: dict[str, str]) -> Optional[str]:
    """Runs cargo, writing its stderr through `sys.stderr` line by line (a notebook shows
    that, not the process's file descriptor 2). None when it succeeded, else its stderr."""
    kept = []
    with subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) as process:
        assert process.stderr is not None
        for raw in iter(process.stderr.readline, b""):
            line = raw.decode("utf-8", "replace")
            kept.append(line)
            sys.stderr.write(line)
            sys.stderr.flush()
    return None if process.returncode == 0 else "".join(kept)


def _write_package(entry: Path, library: Path, package: str, folder: Path) -> None:
    """`abi stubs` into a fresh folder with the library beside `__init__.py` (a link where
    the file system allows), then renamed into place."""
    from abi_cli import binary

    staging = Path(tempfile.mkdtemp(prefix=".stubs-", dir=entry))
    try:
        _run([str(binary()), "stubs", str(library), "--package", package, "-o", str(staging)], None, "abi stubs")
        inside = staging / package / library.name
        try:
            os.link(library, inside)
        except OSError:
            shutil.copyfile(library, inside)
        folder.parent.mkdir(exist_ok=True)
        os.replace(staging / package, folder)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _package_name(name: str, loaded: Mapping[str, types.ModuleType]) -> str:
    """`name` for the first library of that name in this process, then `name_v1`... Refuses
    a name another module has (imported or importable), which the package would shadow."""
    if not loaded:
        if _taken(name):
            raise ValueError(f"load_inline: the name {name!r} is another module's ({_where(name)}): choose another")
        return name
    n = len(loaded)
    while _taken(f"{name}_v{n}"):
        n += 1
    return f"{name}_v{n}"


def _taken(name: str) -> bool:
    return name in sys.modules or importlib.util.find_spec(name) is not None


def _where(name: str) -> str:
    module = sys.modules.get(name)
    if module is not None:
        return getattr(module, "__file__", None) or "imported"
    spec = importlib.util.find_spec(name)
    return (spec.origin if spec is not None else None) or "importable"


def _import(package: str, folder: Path) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(package, folder / "__init__.py", submodule_search_locations=[str(folder)])
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[package] = module
    try:
        with _stderr_through_python():
            spec.loader.exec_module(module)
    except BaseException:
        for key in [k for k in sys.modules if k == package or k.startswith(package + ".")]:
            del sys.modules[key]
        raise
    return module


@contextlib.contextmanager
def _stderr_through_python() -> Iterator[None]:
    """What the library writes to file descriptor 2 while it loads (the runtime's notices:
    a global kept, a type refused), written through `sys.stderr` instead, with a hint."""
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, AttributeError, ValueError):
        yield
        return
    with tempfile.TemporaryFile() as capture:
        os.dup2(capture.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            capture.seek(0)
            text = capture.read().decode("utf-8", "replace")
            if text:
                sys.stderr.write(text)
                if "already registered" in text:
                    sys.stderr.write(
                        "load_inline: a process keeps the first registration of each global and object type key; "
                        "restart it (the notebook's kernel) to replace them\n"
                    )
                sys.stderr.flush()


@contextlib.contextmanager
def _locked(path: Path, holder: str) -> Iterator[None]:
    """An exclusive lock on `path` (created), waited for with a line on stderr naming `holder`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+b") as f:
        if not _try_lock(f):
            sys.stderr.write(f"load_inline: waiting for {holder}\n")
            sys.stderr.flush()
            while not _try_lock(f, wait=True):
                time.sleep(0.1)
        try:
            yield
        finally:
            _unlock(f)


if sys.platform == "win32":
    import msvcrt

    def _try_lock(f: IO[bytes], wait: bool = False) -> bool:
        f.seek(0)
        try:
            msvcrt.locking(f.fileno(), msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

    def _unlock(f: IO[bytes]) -> None:
        f.seek(0)
        msvcrt.locking(f.fileno(), msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _try_lock(f: IO[bytes], wait: bool = False) -> bool:
        try:
            fcntl.flock(f.fileno(), fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def _unlock(f: IO[bytes]) -> None:
        fcntl.flock(f.fileno(), fcntl.LOCK_UN)
