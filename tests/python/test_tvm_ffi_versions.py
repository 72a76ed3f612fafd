"""The apache-tvm-ffi releases a library works with (abi-shared's TVM_FFI_REQUIREMENT): the
installed release lies in the declared range (scripts/test.sh runs this file under the
newest and under the oldest release), and a library loaded under a libtvm_ffi reporting a
version outside it raises one line naming both versions, never ending the process."""

import pathlib
import re
import subprocess
import sys
import textwrap

import pytest
import tvm_ffi
from pip._vendor.packaging.specifiers import SpecifierSet

from conftest import ROOT, target_dir, tvm_ffi_c_version

SHARED = (ROOT / "abi-shared" / "src" / "lib.rs").read_text()
REQUIREMENT = re.search(r'TVM_FFI_REQUIREMENT: &str = "apache-tvm-ffi([^"]+)"', SHARED).group(1)


def abi_version(name):
    """One of abi-shared's [u32; 3] version constants, as a tuple."""
    m = re.search(rf"{name}: \[u32; 3\] = \[(\d+), (\d+), (\d+)\];", SHARED)
    return tuple(int(x) for x in m.groups())


LOWEST, BELOW = abi_version("TVM_FFI_ABI_LOWEST"), abi_version("TVM_FFI_ABI_BELOW")


def test_the_installed_release_lies_in_the_declared_range():
    assert tvm_ffi.__version__ in SpecifierSet(REQUIREMENT)
    assert LOWEST <= tvm_ffi_c_version() < BELOW


def test_the_oldest_venv_pins_the_oldest_release_allowed():
    lowest = re.fullmatch(r">=([^,]+),<.*", REQUIREMENT).group(1)
    pins = (ROOT / "tests" / "python" / "requirements-oldest.txt").read_text()
    assert f"\napache-tvm-ffi=={lowest}\n" in pins
    # That release's libtvm_ffi reports the lowest version a library accepts.
    if tvm_ffi.__version__ == lowest:
        assert tvm_ffi_c_version() == LOWEST


def dotted(v):
    return ".".join(map(str, v))


FAKE = r"""
#include <stdint.h>
typedef struct { uint32_t major, minor, patch; } TVMFFIVersion;
void TVMFFIGetVersion(TVMFFIVersion* out) { out->major = %d; out->minor = %d; out->patch = %d; }
"""

# Loads two libraries (one defining object types, registered at load) and calls each; prints
# what each call raised. Run with a fake TVMFFIGetVersion preloaded in front of tvm_ffi's.
SCRIPT = textwrap.dedent(
    """
    import sys, tvm_ffi
    interop = tvm_ffi.load_module(sys.argv[1])
    objects = tvm_ffi.load_module(sys.argv[2])
    for call in (lambda: interop.echo_i64(3), lambda: interop.echo_i64(4), lambda: objects.counter_value(objects.make_counter("a"))):
        try:
            print("returned", call())
        except Exception as e:
            print(type(e).__name__, str(e).splitlines()[0])
    print("still running")
    """
)


def script_libraries():
    """The two libraries SCRIPT loads."""
    return [str(target_dir() / "debug" / n) for n in ("libabi_interop_lib.so", "libabi_objects_lib.so")]


@pytest.mark.parametrize("reported", [BELOW, (LOWEST[0], LOWEST[1], LOWEST[2] - 1)], ids=dotted)
def test_a_libtvm_ffi_outside_the_range_is_refused_in_one_line(tmp_path, reported):
    fake = tmp_path / "libfake_version.so"
    (tmp_path / "fake.c").write_text(FAKE % reported)
    subprocess.run(["gcc", "-shared", "-fPIC", "-o", fake, tmp_path / "fake.c"], check=True)
    libs = script_libraries()
    env = {"LD_PRELOAD": str(fake), "PATH": "/usr/bin:/bin"}
    ran = subprocess.run([sys.executable, "-c", SCRIPT, *libs], capture_output=True, text=True, env=env, timeout=60)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    line = (
        f"RuntimeError this library supports apache-tvm-ffi{REQUIREMENT} (libtvm_ffi versions {dotted(LOWEST)} "
        f"up to {dotted(BELOW)}), but the libtvm_ffi loaded in this process reports version {dotted(reported)}"
    )
    assert ran.stdout.splitlines() == [line, line, line, "still running"], ran.stdout + ran.stderr


def test_the_same_calls_run_under_the_installed_release():
    libs = script_libraries()
    ran = subprocess.run([sys.executable, "-c", SCRIPT, *libs], capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    lines = ran.stdout.splitlines()
    assert lines[:2] == ["returned 3", "returned 4"] and lines[3] == "still running", ran.stdout + ran.stderr
    assert lines[2].startswith("returned "), ran.stdout + ran.stderr
