"""An aarch64 wheel by the documented route: mathlib built by `cargo zigbuild --target
aarch64-unknown-linux-gnu.2.17` (scripts/test-aarch64.sh builds it, with the test
binaries it runs under qemu), packaged by `abi wheel --platform-tag auto`, and read by
`auditwheel show`, which must name the same policy: manylinux2014, the oldest aarch64 has.
No aarch64 Python runs here: tvm_ffi's own library is x86_64 on this machine."""

import os
import pathlib
import re
import subprocess
import sys
import zipfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "python"))
from conftest import target_dir  # noqa: E402

TRIPLE = "aarch64-unknown-linux-gnu"
ABI = target_dir() / "debug" / "abi"
LIB = target_dir() / TRIPLE / "debug" / "libmathlib.so"
PAIR = "manylinux_2_17_aarch64.manylinux2014_aarch64"


def auditwheel_tag(wheel):
    tool = os.path.join(os.path.dirname(sys.executable), "auditwheel")
    shown = subprocess.run([tool, "show", str(wheel)], capture_output=True, text=True)
    said = re.search(r'consistent with the\s+following platform tag:\s*"([^"]+)"', shown.stdout)
    assert said, shown.stdout + shown.stderr
    return said.group(1)


def test_the_library_is_aarch64_and_linked_against_glibc_2_17():
    header = LIB.read_bytes()[:20]
    assert header[:4] == b"\x7fELF" and int.from_bytes(header[18:20], "little") == 183, "EM_AARCH64"
    versions = set(re.findall(rb"GLIBC_2\.(\d+)", LIB.read_bytes()))
    assert versions and max(int(v) for v in versions) <= 17, sorted(versions)


def test_abi_wheel_tags_it_manylinux2014_as_auditwheel_reads_it(tmp_path):
    made = subprocess.run(
        [str(ABI), "wheel", str(LIB), "--package", "mathlib", "--version", "0.1.0", "--platform-tag", "auto", "-o", str(tmp_path)],
        capture_output=True, text=True,
    )
    assert made.returncode == 0, made.stderr
    wheel = tmp_path / f"mathlib-0.1.0-py3-none-{PAIR}.whl"
    assert wheel.exists(), made.stdout
    with zipfile.ZipFile(wheel) as z:
        assert z.read("mathlib/libmathlib.so") == LIB.read_bytes()
        assert f"Tag: py3-none-{PAIR}\n" in z.read("mathlib-0.1.0.dist-info/WHEEL").decode()
    assert auditwheel_tag(wheel) == PAIR.split(".")[0]
    # Named, the policy is checked as well: manylinux2014 fits, and so does a newer one.
    for named, want in [("manylinux2014", PAIR), ("manylinux_2_28", "manylinux_2_28_aarch64")]:
        again = subprocess.run(
            [str(ABI), "wheel", str(LIB), "--package", "mathlib", "--version", "0.1.0", "--platform-tag", named, "-o", str(tmp_path / named)],
            capture_output=True, text=True,
        )
        assert again.returncode == 0, again.stderr
        assert (tmp_path / named / f"mathlib-0.1.0-py3-none-{want}.whl").exists(), again.stdout
