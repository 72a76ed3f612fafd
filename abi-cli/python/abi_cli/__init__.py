"""The abi build tool as a Python distribution (`pip install abi-cli`): the `abi` command
(an executable inside this package, run by the `abi` console script and `python -m
abi_cli`) and the PEP 517 build backend `abi_cli.build`, which `abi init-python` names in
a crate's pyproject.toml so that `pip install .` needs nothing but Rust and pip.

`binary()` is the `abi` command the backend runs: the `ABI` environment variable when set,
else the executable shipped inside this package. `load_inline` turns Rust source into a
loaded package, for notebooks (`abi_cli.inline`).
"""

import os
import subprocess
import sys
from pathlib import Path

from abi_cli.inline import CompileError, cache_dir, load_inline

__all__ = ["CompileError", "binary", "cache_dir", "load_inline", "main"]

# The executable's name inside this package (`abi-cli`'s wheels carry it under bin/).
EXECUTABLE = "abi.exe" if sys.platform == "win32" else "abi"


def binary() -> Path:
    """The `abi` command to run: `$ABI` when set (it must be an executable file), else the
    one inside this package. Raises `FileNotFoundError` naming what to do when neither is
    there (a source checkout of this package carries no executable)."""
    explicit = os.environ.get("ABI")
    if explicit:
        if not (os.path.isfile(explicit) and os.access(explicit, os.X_OK)):
            raise FileNotFoundError(f"ABI={explicit} is not an executable file; point it at the `abi` command or unset it")
        return Path(explicit)
    shipped = Path(__file__).resolve().parent / "bin" / EXECUTABLE
    if shipped.is_file():
        return shipped
    raise FileNotFoundError(
        f"this abi_cli package ({Path(__file__).resolve().parent}) carries no `abi` executable: install the "
        "abi-cli wheel for this platform, or set ABI=/path/to/abi"
    )


def main() -> None:
    """The `abi` console script: runs the command with this process's arguments and exits
    with its status."""
    try:
        command = str(binary())
    except FileNotFoundError as e:
        sys.exit(f"abi: {e}")
    if sys.platform == "win32":  # no exec there: a child, its status passed on
        sys.exit(subprocess.call([command, *sys.argv[1:]]))
    os.execv(command, [command, *sys.argv[1:]])
