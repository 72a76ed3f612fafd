"""`abi wheel` and `abi init-python`: the wheel's name, tag (as `auditwheel show` reads the
library), contents and RECORD (checked by `wheel unpack`, which refuses a tampered copy),
byte-for-byte reproducibility, one-line errors; and the user's route, a crate folder made
pip-installable by `abi init-python`, installed with `pip install` into a clean venv, then
imported, called, `pip check`ed and type-checked with numpy arguments under mypy --strict."""

import json
import os
import re
import shutil
import struct
import subprocess
import sys
import textwrap
import venv
import zipfile
from pathlib import Path

import pytest

from conftest import BACKEND_SOURCE, DOOR_FORCED_OFF, ROOT, backend_env, doc_block, env_without_abi, target_dir

ABI = target_dir() / "debug" / "abi"
PAIR_2014 = "manylinux_2_17_x86_64.manylinux2014_x86_64"
TVM_FFI_RANGE = ">=0.1.8.post2,<0.2"


def abi(*args):
    assert ABI.exists(), f"{ABI} is missing: run scripts/test.sh (it builds abi-cli)"
    return subprocess.run([str(ABI), *map(str, args)], capture_output=True, text=True, timeout=120)


def build_wheel(out, lib="libtensor_kit.so", package="tensor_kit", *extra):
    made = abi("wheel", target_dir() / "debug" / lib, "--package", package, "--version", "1.2.3", "-o", out, *extra)
    assert made.returncode == 0, made.stderr
    return out / made.stdout.strip().removeprefix("wrote ").split("/")[-1]


@pytest.fixture(scope="module")
def kit_wheel(tmp_path_factory):
    return build_wheel(tmp_path_factory.mktemp("wheel"), "libtensor_kit.so", "tensor_kit", "--requires", "numpy>=1.26")


def tool(name):
    return str(os.path.join(os.path.dirname(sys.executable), name))


def test_name_tag_and_contents(kit_wheel):
    m = re.fullmatch(r"tensor_kit-1\.2\.3-py3-none-(manylinux_2_\d+_x86_64)\.whl", kit_wheel.name)
    assert m, kit_wheel.name
    listing = subprocess.run([sys.executable, "-m", "zipfile", "-l", str(kit_wheel)], capture_output=True, text=True)
    names = [line.split()[0] for line in listing.stdout.splitlines()[1:]]
    dist_info = "tensor_kit-1.2.3.dist-info"
    assert names == [
        "tensor_kit/__init__.py",
        "tensor_kit/__init__.pyi",
        "tensor_kit/_abi_door.py",
        "tensor_kit/libtensor_kit.so",
        "tensor_kit/py.typed",
        f"{dist_info}/METADATA",
        f"{dist_info}/WHEEL",
        f"{dist_info}/RECORD",
    ]
    with zipfile.ZipFile(kit_wheel) as z:
        wheel = z.read(f"{dist_info}/WHEEL").decode()
        metadata = z.read(f"{dist_info}/METADATA").decode()
        assert z.getinfo("tensor_kit/libtensor_kit.so").external_attr >> 16 & 0o777 == 0o755
        assert z.read("tensor_kit/libtensor_kit.so") == (target_dir() / "debug" / "libtensor_kit.so").read_bytes()
    assert f"Tag: py3-none-{m.group(1)}\n" in wheel and "Root-Is-Purelib: false\n" in wheel
    assert f"Requires-Dist: apache-tvm-ffi{TVM_FFI_RANGE}\n" in metadata
    assert "Requires-Dist: numpy>=1.26\n" in metadata
    assert "Name: tensor_kit\nVersion: 1.2.3\n" in metadata


def test_the_tvm_ffi_range_holds_the_pinned_version():
    from pip._vendor.packaging.specifiers import SpecifierSet
    import tvm_ffi

    assert tvm_ffi.__version__ in SpecifierSet(TVM_FFI_RANGE)
    assert f'"apache-tvm-ffi{TVM_FFI_RANGE}"' in (ROOT / "abi-shared" / "src" / "lib.rs").read_text()


@pytest.mark.parametrize("lib", ["libtensor_kit.so", "libmathlib.so", "libabi_objects_lib.so"])
def test_the_tag_is_the_one_auditwheel_reads(tmp_path, lib):
    wheel = build_wheel(tmp_path, lib, "pkg")
    ours = re.search(r"py3-none-(.+)\.whl$", wheel.name).group(1)
    shown = subprocess.run([tool("auditwheel"), "show", str(wheel)], capture_output=True, text=True)
    assert shown.returncode == 0, shown.stderr
    said = re.search(r'consistent with the\s+following platform tag:\s*"([^"]+)"', shown.stdout)
    assert said, shown.stdout
    assert said.group(1) == ours
    if lib == "libmathlib.so":  # the guide's example (docs/guide/python.md): hypot@GLIBC_2.35
        assert ours == "manylinux_2_35_x86_64"


OLD_GLIBC_C = """\
#include <string.h>

/* A packed function whose only versioned need is memcpy@GLIBC_2.14: a library as old as
   manylinux2014 (glibc 2.17), as `cargo zigbuild --target x86_64-unknown-linux-gnu.2.17`
   makes one. */
int __tvm_ffi_copy(void *self, const void *args, int n, void *result) {
    memcpy(result, args, (size_t)n);
    return 0;
}
"""


def test_a_library_that_fits_glibc_2_17_gets_the_manylinux2014_pair(tmp_path):
    (tmp_path / "old.c").write_text(OLD_GLIBC_C)
    lib = tmp_path / "libold.so"
    built = subprocess.run(["gcc", "-shared", "-fPIC", "-O0", "-o", str(lib), str(tmp_path / "old.c")], capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    pair = "manylinux_2_17_x86_64.manylinux2014_x86_64"
    for tag in ["auto", "manylinux2014", "manylinux_2_17"]:
        made = abi("wheel", lib, "--package", "old", "--version", "1.0", "--platform-tag", tag, "-o", tmp_path / tag)
        assert made.returncode == 0, made.stderr
        wheel = tmp_path / tag / f"old-1.0-py3-none-{pair}.whl"
        assert wheel.exists(), made.stdout
    with zipfile.ZipFile(wheel) as z:
        assert f"Tag: py3-none-{pair}\n" in z.read("old-1.0.dist-info/WHEEL").decode()
    shown = subprocess.run([tool("auditwheel"), "show", str(wheel)], capture_output=True, text=True)
    said = re.search(r'consistent with the\s+following platform tag:\s*"([^"]+)"', shown.stdout)
    assert said and said.group(1) == "manylinux_2_17_x86_64", shown.stdout + shown.stderr
    # pip takes the pair here (it reads either tag).
    installed = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(tmp_path / "site"), str(wheel)],
        capture_output=True,
        text=True,
    )
    assert installed.returncode == 0, installed.stderr
    assert (tmp_path / "site" / "old" / "libold.so").exists()


def rust_lld():
    """The linker that ships with the Rust toolchain."""
    ask = lambda *a: subprocess.run(["rustc", *a], capture_output=True, text=True, cwd=ROOT, check=True).stdout
    host = re.search(r"^host: (\S+)$", ask("-vV"), re.M).group(1)
    return os.path.join(ask("--print", "sysroot").strip(), "lib", "rustlib", host, "bin", "rust-lld")


def aarch64_library(tmp_path, imports, weak=()):
    """An aarch64 library linked here by rust-lld: one packed function and references to
    `imports`, (symbol, version) pairs (those named in `weak` weak, as Rust's std imports
    `__cxa_thread_atexit_impl`), which a stub libc.so.6 defines at those versions
    (glibc's aarch64 port begins at GLIBC_2.17). gcc compiles the object for this machine;
    no code of it runs, so its machine and relocation types are rewritten as aarch64's and
    the linker writes the needed versions as it would for a real aarch64 build."""
    lld = rust_lld()
    versions = sorted({v for _, v in imports}, key=lambda v: [int(n) for n in v.split("_")[1].split(".")])
    script, previous = "", None
    for version in versions:
        names = " ".join(f"{n};" for n, v in imports if v == version)
        script += f"{version} {{ global: {names} {'local: *;' if previous is None else ''} }} {previous or ''};\n"
        previous = version
    (tmp_path / "libc.map").write_text(script)
    (tmp_path / "empty.lds").write_text("")
    stub = ["-shared", "-m", "aarch64linux", "-soname", "libc.so.6", "--version-script", str(tmp_path / "libc.map")]
    stub += [f"--defsym={n}=0x1000" for n, _ in imports]
    subprocess.run([lld, "-flavor", "gnu", *stub, str(tmp_path / "empty.lds"), "-o", str(tmp_path / "libc.so.6")], check=True)
    names = [n for n, _ in imports]
    (tmp_path / "kit.c").write_text(
        "".join(f"extern char {n}[]{' __attribute__((weak))' if n in weak else ''};\n" for n in names)
        + "int __tvm_ffi_add(void) { return 1; }\n"
        f"void *const refs[] = {{ {', '.join(names)} }};\n"
    )
    obj = tmp_path / "kit.o"
    subprocess.run(["gcc", "-c", "-fPIC", "-fno-builtin", "-fno-asynchronous-unwind-tables", "-o", str(obj), str(tmp_path / "kit.c")], check=True)
    data = bytearray(obj.read_bytes())
    struct.pack_into("<H", data, 18, 183)  # e_machine: EM_AARCH64
    shoff, (shentsize, shnum) = struct.unpack_from("<Q", data, 0x28)[0], struct.unpack_from("<HH", data, 0x3A)
    for i in range(shnum):
        header = shoff + i * shentsize
        if struct.unpack_from("<I", data, header + 4)[0] == 4:  # SHT_RELA
            offset, size = struct.unpack_from("<QQ", data, header + 24)
            for entry in range(offset, offset + size, 24):
                info = struct.unpack_from("<Q", data, entry + 8)[0]
                assert info & 0xFFFFFFFF == 1, "R_X86_64_64 expected"
                struct.pack_into("<Q", data, entry + 8, (info & ~0xFFFFFFFF) | 257)  # R_AARCH64_ABS64
    obj.write_bytes(data)
    lib = tmp_path / "libkit.so"
    subprocess.run([lld, "-flavor", "gnu", "-m", "aarch64linux", "-shared", str(obj), str(tmp_path / "libc.so.6"), "-o", str(lib)], check=True)
    return lib


TLS_DTOR = ("__cxa_thread_atexit_impl", "GLIBC_2.18")
AARCH64_CASES = [
    ([("memcpy", "GLIBC_2.17")], (), "manylinux_2_17_aarch64.manylinux2014_aarch64"),
    # GLIBC_2.18, outside x86_64's manylinux2014, is in aarch64's, for this weak import of
    # Rust's std...
    ([("memcpy", "GLIBC_2.17"), TLS_DTOR], (TLS_DTOR[0],), "manylinux_2_17_aarch64.manylinux2014_aarch64"),
    # ...which the policy forbids as a strong one.
    ([TLS_DTOR], (), "manylinux_2_24_aarch64"),
    # A plain build on glibc 2.34 or newer: dlsym moved into libc.
    ([("memcpy", "GLIBC_2.17"), ("dlsym", "GLIBC_2.34")], (), "manylinux_2_34_aarch64"),
]


@pytest.mark.parametrize("imports,weak,tag", AARCH64_CASES)
def test_aarch64_libraries_get_aarch64_manylinux_tags_as_auditwheel_reads_them(tmp_path, imports, weak, tag):
    lib = aarch64_library(tmp_path, imports, weak)
    made = abi("wheel", lib, "--package", "kit", "--version", "1.0", "-o", tmp_path / "out")
    assert made.returncode == 0, made.stderr
    wheel = tmp_path / "out" / f"kit-1.0-py3-none-{tag}.whl"
    assert wheel.exists(), made.stdout
    shown = subprocess.run([tool("auditwheel"), "show", str(wheel)], capture_output=True, text=True)
    said = re.search(r'consistent with the\s+following platform tag:\s*"([^"]+)"', shown.stdout)
    assert said and said.group(1) == tag.split(".")[0], shown.stdout + shown.stderr


def test_the_manylinux_policies_are_auditwheels():
    """abi-cli/src/wheel/manylinux-policy.json is what scripts/manylinux-policy.py cuts from
    the pinned auditwheel's table (rewrite it with that script after bumping auditwheel)."""
    written = subprocess.run([sys.executable, str(ROOT / "scripts" / "manylinux-policy.py")], capture_output=True, text=True)
    assert written.returncode == 0, written.stderr
    assert written.stdout == (ROOT / "abi-cli" / "src" / "wheel" / "manylinux-policy.json").read_text()


def test_record_hashes_are_verified_and_a_tampered_copy_is_refused(kit_wheel, tmp_path):
    unpacked = subprocess.run([tool("wheel"), "unpack", "-d", str(tmp_path / "ok"), str(kit_wheel)], capture_output=True, text=True)
    assert unpacked.returncode == 0, unpacked.stderr
    tampered = tmp_path / kit_wheel.name
    with zipfile.ZipFile(kit_wheel) as src, zipfile.ZipFile(tampered, "w") as dst:
        for info in src.infolist():
            data = src.read(info)
            if info.filename.endswith("__init__.py"):
                data += b"# changed\n"
            dst.writestr(info, data)
    refused = subprocess.run([tool("wheel"), "unpack", "-d", str(tmp_path / "bad"), str(tampered)], capture_output=True, text=True)
    assert refused.returncode != 0
    assert "Hash mismatch" in refused.stdout + refused.stderr


def test_identical_input_gives_identical_bytes(kit_wheel, tmp_path):
    again = build_wheel(tmp_path, "libtensor_kit.so", "tensor_kit", "--requires", "numpy>=1.26")
    assert again.read_bytes() == kit_wheel.read_bytes()


def test_dist_name_platform_tag_and_normalisation(tmp_path):
    wheel = build_wheel(tmp_path, "libmathlib.so", "mathlib", "--dist-name", "Math-Lib.Core", "--platform-tag", "linux")
    assert wheel.name == "math_lib_core-1.2.3-py3-none-linux_x86_64.whl"
    with zipfile.ZipFile(wheel) as z:
        assert "Name: Math-Lib.Core\n" in z.read("math_lib_core-1.2.3.dist-info/METADATA").decode()
    newer = build_wheel(tmp_path, "libmathlib.so", "mathlib", "--platform-tag", "manylinux_2_39")
    assert newer.name == "mathlib-1.2.3-py3-none-manylinux_2_39_x86_64.whl"


BAD_INPUT = [
    (["{text}", "--package", "p", "--version", "1.0"], "is not a shared library"),
    (["{libc}", "--package", "p", "--version", "1.0"], "exports no packed functions"),
    (["{lib}", "--package", "my-pkg", "--version", "1.0"], "`my-pkg` is not a Python package name"),
    (["{lib}", "--package", "class", "--version", "1.0"], "`class` is not a Python package name"),
    (["{lib}", "--package", "p", "--version", "1.0-beta"], "`1.0-beta` is not a PEP 440 version"),
    (["{lib}", "--package", "p", "--version", "1.0", "--dist-name", "geo kit"], "`geo kit` is not a distribution name"),
    (["{lib}", "--package", "p", "--version", "1.0", "--requires", ">=2"], "`>=2` is not a requirement"),
    (["{lib}", "--package", "p", "--version", "1.0", "--requires", "numpy>=>1"], "`numpy>=>1` is not a requirement"),
    (["{lib}", "--package", "p", "--version", "1.0", "--requires", "numpy; garbage marker"], "is not a requirement"),
    (["{lib}", "--package", "", "--version", "1.0"], "`` is not a Python package name"),
    (["{lib}", "--package", "p", "--version", "1.0", "--platform-tag", "manylinux2015"], "is not a platform tag"),
    (["{lib}", "--package", "p", "--version", "1.0", "--platform-tag", "manylinux_2_17"], "does not fit manylinux_2_17: it needs GLIBC_2."),
    # The symbols that need the version are named.
    (["{lib}", "--package", "p", "--version", "1.0", "--platform-tag", "manylinux2014"], "does not fit manylinux2014: it needs GLIBC_2.35 from libm.so.6 (hypot)"),
]


@pytest.mark.parametrize("args,message", BAD_INPUT)
def test_bad_input_is_one_line_and_exit_2(tmp_path, args, message):
    (tmp_path / "notes.txt").write_text("not a library\n")
    libc = subprocess.run(["gcc", "-print-file-name=libc.so.6"], capture_output=True, text=True).stdout.strip()
    fill = {"text": tmp_path / "notes.txt", "libc": libc, "lib": target_dir() / "debug" / "libmathlib.so"}
    out = abi("wheel", *[a.format(**fill) for a in args], "-o", tmp_path / "out")
    assert out.returncode == 2, out
    assert message in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").iterdir())


def test_an_unwritable_folder_is_one_line_and_exit_2(tmp_path):
    (tmp_path / "file").write_text("")
    out = abi("wheel", target_dir() / "debug" / "libmathlib.so", "--package", "p", "--version", "1.0", "-o", tmp_path / "file" / "sub")
    assert out.returncode == 2 and "cannot create" in out.stderr and len(out.stderr.strip().splitlines()) == 1


# The user's route, from a crate folder to an installed wheel.

LIB_RS = '''
use abi_core::{HostTensor, Result, Tensor, Device};

/// Area of a rectangle.
#[abi_core::export_fn]
pub fn area(w: f64, h: f64) -> f64 {
    w * h
}

/// The sum of a float64 vector.
#[abi_core::export_fn]
pub fn total(x: HostTensor<'_, f64, 1>) -> f64 {
    x.as_slice().iter().sum()
}

/// n zeros.
#[abi_core::export_fn]
pub fn zeros(n: i64) -> Result<Tensor> {
    Tensor::empty::<f64>(&[n], Device::CPU)
}
'''

CLIENT = """\
import numpy as np
import tvm_ffi

import geokit

a: float = geokit.area(3.0, 4.5)
t: float = geokit.total(np.arange(4, dtype=np.float64))
z: tvm_ffi.Tensor = geokit.zeros(3)
print(a, t, np.from_dlpack(z).shape)
"""


@pytest.fixture(scope="module")
def clean_venv(tmp_path_factory):
    where = tmp_path_factory.mktemp("clean") / "venv"
    venv.create(where, with_pip=True)
    return where


def pip(venv_dir, *args, env=None):
    return subprocess.run(
        [str(venv_dir / "bin" / "python"), "-m", "pip", "--disable-pip-version-check", *args],
        capture_output=True,
        text=True,
        timeout=900,
        env=env,
    )


def make_crate(tmp_path):
    """A newcomer's crate (the guide's Cargo.toml) in `tmp_path`; the tests build it into the
    workspace's target folder (CARGO_TARGET_DIR), where dependencies built alike serve."""
    crate = tmp_path / "geokit"
    (crate / "src").mkdir(parents=True)
    manifest = doc_block("own crate: Cargo.toml").replace("../abi/abi-core", str(ROOT / "abi-core"))
    (crate / "Cargo.toml").write_text(manifest)
    (crate / "src" / "lib.rs").write_text(LIB_RS)
    return crate


def by_version(crate):
    """Makes `crate` depend on abi-core by version, as a crate made after abi-core is on
    crates.io does; abi-core is not published yet, so a `[patch.crates-io]` entry (which a
    user would not write) points the version at this checkout's abi-core."""
    manifest = crate / "Cargo.toml"
    text = manifest.read_text().replace(f'abi-core = {{ path = "{ROOT / "abi-core"}" }}', 'abi-core = "0.1"')
    assert 'abi-core = "0.1"' in text, text
    manifest.write_text(text + f'\n[patch.crates-io]\nabi-core = {{ path = "{ROOT / "abi-core"}" }}\n')


def test_a_crate_folder_installs_with_pip_into_a_clean_venv(tmp_path, clean_venv, tool_wheelhouse):
    """Issue 53's proof of the tool wheel: a new crate depending on abi-core by version,
    made pip-installable by `abi init-python`, installs with `pip install --no-index
    --find-links <folder> .` in a clean venv, pip taking the abi-cli tool wheel (the build
    backend and the `abi` executable) and zig into its isolated build environment from the
    folder, with no `abi` on PATH and no ABI; then calls work."""
    crate = make_crate(tmp_path)
    by_version(crate)
    made = abi("init-python", crate)
    assert made.returncode == 0, made.stderr
    # The hint is a path pip reads as a folder, never a name it would look up on PyPI.
    assert made.stdout.splitlines()[-1] == f"next: pip install {crate}"
    assert not (crate / "abi_build.py").exists()
    env = env_without_abi(CARGO_TARGET_DIR=str(target_dir()))
    assert shutil.which("abi", path=env["PATH"]) is None
    installed = pip(clean_venv, "install", "-v", "--no-index", "--find-links", str(tool_wheelhouse), str(crate), env=env)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    said = installed.stdout + installed.stderr
    # pip put the tool and, asked by the backend, zig into the build environment.
    assert re.search(rf"Processing .*abi_cli-0\.1\.0-py3-none-{PAIR_2014}\.whl", said), said
    assert "ziglang" in said and "cargo-zigbuild" in said
    assert "abi_cli.build: cargo zigbuild --target x86_64-unknown-linux-gnu.2.17 --release" in said
    # cargo's progress, which `pip install -v` shows (the guide says so).
    assert re.search(r"(Compiling|Fresh) geokit v0\.1\.0", said) or "Finished `release` profile" in said, said
    python = str(clean_venv / "bin" / "python")
    probe = "import geokit; print(geokit.area(3.0, 4.5), type(geokit.area).__module__)"
    called = subprocess.run([python, "-c", probe], capture_output=True, text=True)
    # Through the Python door, unless ABI_PYTHON_DOOR=0 (the step that runs this suite again
    # without the door) keeps the tvm_ffi route.
    route = "builtins" if DOOR_FORCED_OFF else "abi"
    assert called.stdout == f"13.5 {route}\n", called.stderr
    checked = pip(clean_venv, "check")
    assert checked.returncode == 0, checked.stdout
    shown = pip(clean_venv, "show", "geokit")
    assert "Version: 0.1.0" in shown.stdout and "Requires: apache-tvm-ffi" in shown.stdout
    # mypy --strict on a client passing numpy arrays, against what pip installed.
    assert pip(clean_venv, "install", "--quiet", "numpy").returncode == 0
    (tmp_path / "client.py").write_text(CLIENT)
    mypy = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--python-executable", python, "client.py"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert mypy.returncode == 0, mypy.stdout + mypy.stderr
    ran = subprocess.run([python, "client.py"], capture_output=True, text=True, cwd=tmp_path)
    assert ran.stdout == "13.5 6.0 (3,)\n", ran.stderr


def test_an_editable_install_loads_what_cargo_build_writes(tmp_path):
    """`pip install -e` (PEP 660): the package loads the debug profile's library from cargo's
    target folder, so a function body changed in src/lib.rs reaches a new process after
    `cargo build` alone, with no pip; with the library gone (`cargo clean`), the import
    says to run `cargo build` in the crate, and doing so mends it."""
    crate = make_crate(tmp_path)
    assert abi("init-python", crate).returncode == 0
    where = tmp_path / "venv"
    venv.create(where, with_pip=True)
    env = backend_env(CARGO_TARGET_DIR=str(target_dir()))
    # Without build isolation: an editable build needs nothing beyond this Python (no zig;
    # tomllib is in 3.11), and pip's isolated route, which installs [build-system]
    # requires (zig, 400 MB unpacked), is the one test_a_crate_folder_installs_with_pip_...
    # takes through the same backend.
    installed = pip(where, "install", "--no-build-isolation", "-e", str(crate), env=env)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    python = str(where / "bin" / "python")

    def area():
        probe = "import geokit; print(geokit.area(3.0, 4.5))"
        return subprocess.run([python, "-c", probe], capture_output=True, text=True, cwd=tmp_path)

    assert area().stdout == "13.5\n", area().stderr
    # The wheel held the package and the library's path, not the library.
    (package,) = (where / "lib").glob("python3*/site-packages/geokit")
    library = target_dir() / "debug" / "libgeokit.so"
    where_ = json.loads((package / "_abi_editable.json").read_text())
    assert {k: where_[k] for k in ("library", "crate")} == {"library": str(library), "crate": str(crate)}
    # Each export's signature and parameter names, as the library's metadata has them.
    import tvm_ffi

    published = tvm_ffi.load_module(str(library)).get_function_metadata("area")
    assert where_["exports"]["area"] == {"signature": published["signature"], "arg_names": ["w", "h"]}
    assert not list(package.glob("*.so"))
    record = next((where / "lib").glob("python3*/site-packages/geokit-0.1.0.dist-info/RECORD")).read_text()
    assert "geokit/_abi_editable.json,sha256=" in record and ".so," not in record
    # A new body, `cargo build` as a user types it (the debug profile, the same target
    # folder), and a new process runs it.
    (crate / "src" / "lib.rs").write_text(LIB_RS.replace("    w * h\n", "    w * h + 1.0\n"))
    built = subprocess.run(["cargo", "build", "--quiet"], cwd=crate, env=env, capture_output=True, text=True, timeout=900)
    assert built.returncode == 0, built.stderr
    assert area().stdout == "14.5\n", area().stderr
    # The library gone, as after `cargo clean` (only this crate's: the target folder is shared).
    library.unlink()
    failed = area()
    assert failed.returncode != 0
    said = f"ImportError: geokit: {library} is missing (this editable install loads the library cargo builds there): run `cargo build` in {crate}\n"
    assert failed.stderr.endswith(said), failed.stderr
    built = subprocess.run(["cargo", "build", "--quiet"], cwd=crate, env=env, capture_output=True, text=True, timeout=900)
    assert built.returncode == 0, built.stderr
    assert area().stdout == "14.5\n", area().stderr
    # A changed signature needs new wrappers: the import says to reinstall, instead of a
    # wrapper passing the wrong arguments.
    (crate / "src" / "lib.rs").write_text(LIB_RS.replace("pub fn area(w: f64, h: f64) -> f64 {\n    w * h\n", "pub fn area(w: f64, h: f64, d: f64) -> f64 {\n    w * h * d\n"))
    built = subprocess.run(["cargo", "build", "--quiet"], cwd=crate, env=env, capture_output=True, text=True, timeout=900)
    assert built.returncode == 0, built.stderr
    failed = area()
    said = f"ImportError: geokit: the library cargo built has other signatures than this editable install was made for (area changed or gone): run `pip install -e {crate}` again\n"
    assert failed.returncode != 0 and failed.stderr.endswith(said), failed.stderr
    reinstalled = pip(where, "install", "--no-build-isolation", "-e", str(crate), env=env)
    assert reinstalled.returncode == 0, reinstalled.stdout + reinstalled.stderr
    probe = "import geokit; print(geokit.area(3.0, 4.5, 2.0))"
    called = subprocess.run([python, "-c", probe], capture_output=True, text=True, cwd=tmp_path)
    assert called.stdout == "27.0\n", called.stderr


def test_an_editable_wheel_names_the_library_and_records_its_files(tmp_path):
    """`abi wheel --editable CRATE` (the backend's build_editable): the package and a file
    naming the library's absolute path, every entry in RECORD (`wheel unpack` checks the
    hashes); a folder without Cargo.toml is refused in one line."""
    lib = target_dir() / "debug" / "libtensor_kit.so"
    crate = ROOT / "examples" / "tensor-kit"
    made = abi("wheel", lib, "--package", "tensor_kit", "--version", "1.2.3", "--editable", crate, "-o", tmp_path)
    assert made.returncode == 0, made.stderr
    wheel = Path(made.stdout.strip().removeprefix("wrote "))
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        where = json.loads(z.read("tensor_kit/_abi_editable.json"))
    assert "tensor_kit/_abi_editable.json" in names and "tensor_kit/__init__.py" in names
    assert not [n for n in names if n.endswith(".so")], names
    assert {k: where[k] for k in ("library", "crate")} == {"library": str(lib), "crate": str(crate)}
    assert where["exports"]["half_sum"]["arg_names"] == ["x"], where["exports"]
    unpacked = subprocess.run([tool("wheel"), "unpack", "-d", str(tmp_path / "ok"), str(wheel)], capture_output=True, text=True)
    assert unpacked.returncode == 0, unpacked.stdout + unpacked.stderr
    refused = abi("wheel", lib, "--package", "p", "--version", "1.0", "--editable", tmp_path, "-o", tmp_path / "out")
    assert refused.returncode == 2 and f"--editable {tmp_path}: no Cargo.toml there" in refused.stderr, refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1 and not (tmp_path / "out").exists()


def test_pip_wheel_and_build_make_the_same_wheel(tmp_path):
    crate = make_crate(tmp_path)
    assert abi("init-python", crate).returncode == 0
    env = backend_env(CARGO_TARGET_DIR=str(target_dir()))
    # In this venv, whose pins hold ziglang and cargo-zigbuild, without isolation: the
    # isolated route (pip installing the tool wheel and zig, 400 MB unpacked) is the one
    # test_a_crate_folder_installs_with_pip_into_a_clean_venv takes.
    env["PATH"] = f"{os.path.dirname(sys.executable)}:{env['PATH']}"
    made = pip_wheel_here(crate, tmp_path / "pip", env)
    assert made.returncode == 0, made.stdout + made.stderr
    built = subprocess.run(
        # -x: abi-cli is not installed here; the checkout's backend is on PYTHONPATH.
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "-x", "-o", str(tmp_path / "build"), str(crate)],
        capture_output=True, text=True, env=env, timeout=900,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    (by_pip,), (by_build,) = (tmp_path / "pip").iterdir(), (tmp_path / "build").iterdir()
    # init-python's pyproject.toml asks for glibc 2.17: cargo zigbuild links against it,
    # and the wheel is manylinux2014.
    assert by_pip.name == f"geokit-0.1.0-py3-none-{PAIR_2014}.whl"
    assert by_pip.read_bytes() == by_build.read_bytes()
    shown = subprocess.run([tool("auditwheel"), "show", str(by_pip)], capture_output=True, text=True)
    said = re.search(r'consistent with the\s+following platform tag:\s*"([^"]+)"', shown.stdout)
    assert said and said.group(1) == "manylinux_2_17_x86_64", shown.stdout + shown.stderr


def test_an_sdist_holds_what_cargo_needs_and_pip_installs_it(tmp_path):
    """`python -m build --sdist` (the backend's build_sdist): the crate, its pyproject.toml
    and backend, PKG-INFO, a Cargo.lock, and abi-core with the crates it depends on by path
    (abi-macros, abi-shared) under local_dependencies/, their manifests normalized (no
    `workspace = true`) and their paths pointing there; the same bytes again; then `pip
    install <sdist>` in a clean venv builds it with `--locked` and a new process calls it."""
    import tarfile
    import tomllib

    crate = make_crate(tmp_path)
    assert abi("init-python", crate).returncode == 0
    venv_bin = os.path.dirname(sys.executable)
    env = backend_env(CARGO_TARGET_DIR=str(target_dir()), PATH=f"{venv_bin}:{os.environ['PATH']}")

    def build_sdist(out):
        made = subprocess.run(
            [sys.executable, "-m", "build", "--sdist", "--no-isolation", "-x", "-o", str(out), str(crate)],
            capture_output=True, text=True, env=env, timeout=300,
        )
        assert made.returncode == 0, made.stdout + made.stderr
        (sdist,) = out.iterdir()
        return sdist

    sdist = build_sdist(tmp_path / "dist")
    assert sdist.name == "geokit-0.1.0.tar.gz"
    with tarfile.open(sdist) as tar:
        names = tar.getnames()
        text = {n.removeprefix("geokit-0.1.0/"): tar.extractfile(n).read().decode() for n in names if n.endswith((".toml", ".lock", "PKG-INFO"))}
    assert names == sorted(names) and all(n.startswith("geokit-0.1.0/") for n in names), names
    inside = {n.removeprefix("geokit-0.1.0/") for n in names}
    crates = ["abi-core", "abi-macros", "abi-shared"]
    wanted = {"PKG-INFO", "Cargo.toml", "Cargo.lock", "src/lib.rs", "pyproject.toml"}
    wanted |= {f"local_dependencies/{c}/{f}" for c in crates for f in ["Cargo.toml", "src/lib.rs"]}
    assert wanted <= inside, sorted(wanted - inside)
    assert text["PKG-INFO"].startswith("Metadata-Version: 2.1\nName: geokit\nVersion: 0.1.0\n")
    assert tomllib.loads(text["Cargo.toml"])["dependencies"] == {"abi-core": {"path": "local_dependencies/abi-core"}}
    core = tomllib.loads(text["local_dependencies/abi-core/Cargo.toml"])
    for name in crates:
        written = text[f"local_dependencies/{name}/Cargo.toml"]
        assert "workspace = true" not in written and "workspace" not in tomllib.loads(written), name
    assert core["package"]["version"] == "0.1.0" and core["package"]["edition"] == "2021"
    assert core["dependencies"]["abi-macros"] == {"path": "../abi-macros", "version": "=0.1.0"}
    assert core["dependencies"]["ndarray"]["features"] == ["std"] and core["lints"]["rust"]["unsafe_op_in_unsafe_fn"] == "deny"
    assert 'name = "abi-core"' in text["Cargo.lock"] and 'name = "syn"' in text["Cargo.lock"]
    assert build_sdist(tmp_path / "again").read_bytes() == sdist.read_bytes()
    # Without build isolation, the zig tools of this venv (as in the editable test: the
    # isolated route, which installs the tool wheel and zig, 400 MB unpacked, is the one
    # test_a_crate_folder_installs_with_pip_... takes, with the same pyproject.toml).
    where = tmp_path / "venv"
    venv.create(where, with_pip=True)
    installed = pip(where, "install", "-v", "--no-build-isolation", str(sdist), env=dict(env, CARGO_ZIGBUILD_PYTHON_PATH=sys.executable))
    assert installed.returncode == 0, installed.stdout + installed.stderr
    assert "abi_cli.build: cargo zigbuild --target x86_64-unknown-linux-gnu.2.17 --release --locked" in installed.stdout + installed.stderr
    probe = "import geokit; print(geokit.area(3.0, 4.5))"
    called = subprocess.run([str(where / "bin" / "python"), "-c", probe], capture_output=True, text=True, cwd=tmp_path)
    assert called.stdout == "13.5\n", called.stderr


def test_a_path_dependency_the_sdist_cannot_hold_is_refused_in_one_line(tmp_path):
    crate = make_crate(tmp_path)
    assert abi("init-python", crate).returncode == 0
    (tmp_path / "helper").mkdir()  # no Cargo.toml
    manifest = crate / "Cargo.toml"
    manifest.write_text(manifest.read_text() + 'helper = { path = "../helper" }\n')
    made = subprocess.run(
        [sys.executable, "-c", f"import abi_cli.build; abi_cli.build.build_sdist({str(tmp_path / 'out')!r})"],
        capture_output=True, text=True, cwd=crate, env=backend_env(),
    )
    assert made.returncode == 1
    root = crate.resolve()
    said = f"abi_cli.build: cannot bring the path dependency `helper` of {root / 'Cargo.toml'} into the sdist: {root.parent / 'helper'} has no Cargo.toml\n"
    assert made.stderr == said
    assert not (tmp_path / "out").exists()


def test_the_build_requirements_are_the_tool_and_zig_where_it_links(tmp_path, monkeypatch):
    """pyproject.toml requires the abi-cli releases of this version's minor; the backend
    asks pip for ziglang and cargo-zigbuild (ranges holding the ones this venv pins, which
    the suite runs) only where it links with them: not with glibc = "native", nor for an
    editable install or an sdist."""
    import tomllib
    from pip._vendor.packaging.requirements import Requirement

    crate, backend = backend_of_new_crate(tmp_path)
    pyproject = tomllib.loads((crate / "pyproject.toml").read_text())
    version = tomllib.loads((ROOT / "Cargo.toml").read_text())["workspace"]["package"]["version"]
    major, minor = (int(p) for p in version.split(".")[:2])
    assert major == 0  # the range below is 0.x's
    assert pyproject["build-system"] == {"requires": [f"abi-cli>={version},<0.{minor + 1}"], "build-backend": "abi_cli.build"}
    monkeypatch.chdir(crate)
    ranges = {r.name: r for r in map(Requirement, backend.get_requires_for_build_wheel())}
    pins = dict(line.split("==") for line in (ROOT / "tests/python/requirements.txt").read_text().split() if "==" in line)
    assert sorted(ranges) == ["cargo-zigbuild", "ziglang"]
    for tool_name in ranges:
        assert pins[tool_name] in ranges[tool_name].specifier, (tool_name, pins[tool_name], ranges[tool_name])
    assert backend.get_requires_for_build_editable() == [] and backend.get_requires_for_build_sdist() == []
    set_glibc(crate, '"native"')
    assert backend.get_requires_for_build_wheel() == []
    monkeypatch.setattr(backend.platform, "machine", lambda: "riscv64")
    set_glibc(crate, '"2.17"')
    assert backend.get_requires_for_build_wheel() == []


def set_glibc(crate, value):
    """Replaces the `glibc = ...` line init-python wrote in pyproject.toml."""
    pyproject = crate / "pyproject.toml"
    text, count = re.subn(r"(?m)^glibc = .*$", f"glibc = {value}", pyproject.read_text())
    assert count == 1, text
    pyproject.write_text(text)


def pip_wheel_here(crate, out, env):
    """`pip wheel --no-build-isolation` with this venv (the backend runs in this Python)."""
    return subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "-w", str(out), str(crate)],
        capture_output=True, text=True, env=env, timeout=900,
    )


FAKE_CARGO = """\
#!{python}
# Stands in for cargo: answers `cargo metadata`, records every other command line, and
# reports the library given as this crate's cdylib, as cargo's JSON messages do.
import json, pathlib, sys
here = pathlib.Path(__file__).parent
if sys.argv[1] == "metadata":
    print(json.dumps({{"target_directory": str(here / "target")}}))
    sys.exit(0)
(here / "argv.json").write_text(json.dumps(sys.argv[1:]))
manifest = sys.argv[sys.argv.index("--manifest-path") + 1]
artifact = {{"reason": "compiler-artifact", "manifest_path": manifest, "package_id": "path+file:///geokit#0.1.0",
            "target": {{"kind": ["cdylib"]}}, "filenames": ["{library}"]}}
print(json.dumps(artifact))
"""


def fake_cargo(tmp_path, library):
    """A cargo that 'builds' `library` (a copy named libgeokit.so), recording its command."""
    (tmp_path / "fake").mkdir()
    built = tmp_path / "fake" / "libgeokit.so"
    built.write_bytes(library.read_bytes())
    cargo = tmp_path / "fake" / "cargo"
    cargo.write_text(FAKE_CARGO.format(python=sys.executable, library=built))
    cargo.chmod(0o755)
    return cargo


def test_the_backend_builds_as_glibc_says_and_abi_wheel_checks_it(tmp_path):
    """glibc = "native" runs a plain `cargo build --release` and the wheel gets the tag the
    library fits; glibc = "2.17" runs `cargo zigbuild` for glibc 2.17 and asks abi wheel for
    manylinux_2_17, which refuses a library needing more, naming the symbol. (The real
    builds: the pip tests above.) mathlib needs hypot@GLIBC_2.35."""
    crate = make_crate(tmp_path)
    assert abi("init-python", crate).returncode == 0
    cargo = fake_cargo(tmp_path, target_dir() / "debug" / "libmathlib.so")
    venv_bin = os.path.dirname(sys.executable)  # cargo-zigbuild, from the venv's pins
    env = backend_env(CARGO=str(cargo), PATH=f"{venv_bin}:{os.environ['PATH']}")
    set_glibc(crate, '"native"')
    made = pip_wheel_here(crate, tmp_path / "native", env)
    assert made.returncode == 0, made.stdout + made.stderr
    assert json.loads((cargo.parent / "argv.json").read_text())[:2] == ["build", "--release"]
    (wheel,) = (tmp_path / "native").iterdir()
    assert wheel.name == "geokit-0.1.0-py3-none-manylinux_2_35_x86_64.whl"
    set_glibc(crate, '"2.17"')
    refused = pip_wheel_here(crate, tmp_path / "old", env)
    assert refused.returncode != 0
    argv = json.loads((cargo.parent / "argv.json").read_text())
    assert argv[:4] == ["zigbuild", "--target", "x86_64-unknown-linux-gnu.2.17", "--release"], argv
    said = refused.stdout + refused.stderr
    assert "does not fit manylinux_2_17: it needs GLIBC_2.35 from libm.so.6 (hypot)" in said, said
    assert "abi_cli.build: `abi wheel` failed" in said


@pytest.mark.parametrize(
    "value,shown",
    [('"2.x"', '"2.x"'), ('"banana"', '"banana"'), ("2.28", "2.28"), ('"2.28.1"', '"2.28.1"')],
)
def test_a_glibc_setting_that_is_not_a_version_is_refused_before_building(tmp_path, value, shown):
    crate = make_crate(tmp_path)
    assert abi("init-python", crate).returncode == 0
    set_glibc(crate, value)
    env = backend_env(CARGO=str(tmp_path / "no-cargo"))  # nothing may build
    made = pip_wheel_here(crate, tmp_path / "out", env)
    assert made.returncode != 0
    said = made.stdout + made.stderr
    assert f"abi_cli.build: [tool.abi] glibc = {shown} is not a glibc version" in said, said
    assert "Traceback" not in said and "no-cargo" not in said


@pytest.mark.parametrize("value", ["2.16", "2.12", "2.5"])
def test_a_glibc_older_than_zig_links_for_is_refused_before_building(tmp_path, value):
    crate = make_crate(tmp_path)
    assert abi("init-python", crate).returncode == 0
    set_glibc(crate, f'"{value}"')
    env = backend_env(CARGO=str(tmp_path / "no-cargo"))  # nothing may build
    made = pip_wheel_here(crate, tmp_path / "out", env)
    assert made.returncode != 0
    said = made.stdout + made.stderr
    assert f'abi_cli.build: [tool.abi] glibc = "{value}" is older than the oldest glibc Rust and zig link for (2.17' in said, said


def backend_of_new_crate(tmp_path):
    """A crate made pip-installable by `abi init-python`, and the build backend's module
    (`abi_cli.build`, from the checkout)."""
    crate = make_crate(tmp_path)
    assert abi("init-python", crate).returncode == 0
    sys.path.insert(0, str(BACKEND_SOURCE))
    try:
        import abi_cli.build as backend
    finally:
        sys.path.remove(str(BACKEND_SOURCE))
    return crate, backend


def test_cargo_zigbuild_beside_the_building_python_is_found_off_path(tmp_path, monkeypatch):
    """`venv/bin/pip wheel --no-build-isolation` with the venv not activated: its
    cargo-zigbuild is beside the Python that runs the backend, not on PATH."""
    crate, backend = backend_of_new_crate(tmp_path)
    assert (Path(sys.executable).parent / "cargo-zigbuild").is_file()  # the project venv pins it
    sysroot = subprocess.run(["rustc", "--print", "sysroot"], stdout=subprocess.PIPE, text=True, check=True).stdout.strip()
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    monkeypatch.setenv("CARGO_HOME", str(tmp_path / "empty-cargo-home"))
    monkeypatch.setenv("CARGO_TARGET_DIR", str(tmp_path / "target"))
    env = backend._zigbuild_env("x86_64-unknown-linux-gnu.2.17", f"{sysroot}/bin/cargo", crate / "Cargo.toml")
    kept = Path(env["PATH"].split(os.pathsep)[0]) / "cargo-zigbuild"
    assert kept.is_file() and kept.read_bytes() == (Path(sys.executable).parent / "cargo-zigbuild").read_bytes()


def test_without_zig_the_build_names_what_to_install(tmp_path, clean_venv):
    """With --no-build-isolation pip installs nothing from [build-system] requires: the
    clean venv has neither ziglang nor cargo-zigbuild, and the build must not quietly fall
    back to a narrower `cargo build`."""
    crate = make_crate(tmp_path)
    assert abi("init-python", crate).returncode == 0
    cargo = shutil.which("cargo")
    env = {k: v for k, v in os.environ.items() if not k.startswith("CARGO_ZIGBUILD")}
    env.update(ABI=str(ABI), PYTHONPATH=str(BACKEND_SOURCE), PATH=f"{os.path.dirname(cargo)}:/usr/bin:/bin", CARGO_TARGET_DIR=str(target_dir()))
    assert shutil.which("cargo-zigbuild", path=env["PATH"]) is None and shutil.which("zig", path=env["PATH"]) is None
    failed = pip(clean_venv, "wheel", "--no-build-isolation", "--no-deps", "-w", str(tmp_path / "out"), str(crate), env=env)
    assert failed.returncode != 0
    said = failed.stdout + failed.stderr
    assert "`cargo zigbuild --target x86_64-unknown-linux-gnu.2.17` ([tool.abi] glibc) needs cargo-zigbuild and zig" in said, said
    assert "pip install ziglang cargo-zigbuild" in said and 'glibc = "native"' in said
    assert "Traceback" not in said


def test_cargo_versions_become_pep_440_versions(tmp_path):
    _, backend = backend_of_new_crate(tmp_path)
    spelled = {v: backend._python_version(v) for v in ["0.1.0", "0.2.0-rc.1", "1.0.0-alpha.2", "1.0.0-beta.3", "1.0.0+Build.5"]}
    assert spelled == {"0.1.0": "0.1.0", "0.2.0-rc.1": "0.2.0rc1", "1.0.0-alpha.2": "1.0.0a2", "1.0.0-beta.3": "1.0.0b3", "1.0.0+Build.5": "1.0.0+build.5"}
    with pytest.raises(SystemExit, match="PEP 440 cannot spell"):
        backend._python_version("1.0.0-nightly")


def test_an_installed_wheel_is_found_by_tvm_ffi_load_lib_module(kit_wheel, clean_venv):
    installed = pip(clean_venv, "install", "--quiet", str(kit_wheel))
    assert installed.returncode == 0, installed.stderr
    python = str(clean_venv / "bin" / "python")
    code = textwrap.dedent(
        """
        import numpy as np, tensor_kit, tvm_ffi.libinfo
        print(tensor_kit.row_lengths(np.zeros((2, 5), dtype=np.int64)))
        lib = tvm_ffi.libinfo.load_lib_module("tensor_kit", "tensor_kit")
        print(lib.half_sum(np.ones(4, dtype=np.float16)))
        """
    )
    ran = subprocess.run([python, "-c", code], capture_output=True, text=True)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.splitlines()[1] == "4.0"
    assert pip(clean_venv, "check").returncode == 0


def test_without_abi_the_build_names_the_install_command(tmp_path, clean_venv):
    crate = make_crate(tmp_path)
    assert abi("init-python", crate).returncode == 0
    # The backend from the checkout (no executable there) and no ABI: the backend looks for
    # `abi` before anything else, so the build requirements need not be installed
    # (--no-build-isolation: each isolated install unpacks zig, 400 MB; the isolated route
    # is the one test_a_crate_folder_installs_with_pip_into_a_clean_venv takes).
    env = env_without_abi(PYTHONPATH=str(BACKEND_SOURCE), PATH="/usr/bin:/bin")
    failed = pip(clean_venv, "install", "--no-build-isolation", str(crate), env=env)
    assert failed.returncode != 0
    said = failed.stdout + failed.stderr
    assert "carries no `abi` executable: install the abi-cli wheel for this platform, or set ABI=/path/to/abi" in said, said
    # An ABI that points nowhere is named, not a traceback.
    failed = pip(clean_venv, "install", "--no-build-isolation", str(crate), env=dict(env, ABI=str(tmp_path / "nope" / "abi")))
    assert failed.returncode != 0
    assert "is not an executable file" in failed.stdout + failed.stderr
    assert "FileNotFoundError" not in failed.stdout + failed.stderr


def test_the_backend_takes_the_library_of_the_platform_it_builds_on(tmp_path):
    """cargo names a cdylib libgeokit.so on Linux, libgeokit.dylib on macOS, geokit.dll
    (beside its import library geokit.dll.lib) on Windows."""
    crate, backend = backend_of_new_crate(tmp_path)
    manifest = crate / "Cargo.toml"

    def built(*files, kind="cdylib"):
        message = {"reason": "compiler-artifact", "manifest_path": str(manifest), "package_id": "path+file:///geokit#0.1.0", "target": {"kind": [kind]}, "filenames": list(files)}
        return json.dumps(message) + "\n" + json.dumps({"reason": "build-finished", "success": True})

    for platform, files, want in [
        ("linux", ["/t/release/libgeokit.so"], "/t/release/libgeokit.so"),
        ("darwin", ["/t/release/libgeokit.dylib"], "/t/release/libgeokit.dylib"),
        ("win32", ["C:/t/release/geokit.dll", "C:/t/release/geokit.dll.lib", "C:/t/release/geokit.pdb"], "C:/t/release/geokit.dll"),
    ]:
        libraries, package_id = backend._cdylibs(built(*files), manifest, platform)
        assert [str(p) for p in libraries] == [want] and package_id == "path+file:///geokit#0.1.0", platform
    # Another crate's library, or this crate's rlib, is not taken.
    assert backend._cdylibs(built("/t/release/libgeokit.rlib", kind="rlib"), manifest, "linux") == ([], None)


def test_the_tool_wheel_holds_the_backend_and_the_abi_command(tmp_path, tool_wheelhouse):
    """`abi tool-wheel`: abi-cli's wheel holds the package abi_cli (the backend, the console
    script's launcher) and the executable once, its RECORD checks out, the same input gives
    the same bytes; installed, `abi` and `python -m abi_cli` run the shipped executable,
    which is what abi_cli.binary() names without ABI."""
    (wheel,) = tool_wheelhouse.glob("abi_cli-*.whl")
    assert wheel.name == f"abi_cli-0.1.0-py3-none-{PAIR_2014}.whl"
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        entry_points = z.read("abi_cli-0.1.0.dist-info/entry_points.txt").decode()
        mode = z.getinfo("abi_cli/bin/abi").external_attr >> 16
    assert {"abi_cli/__init__.py", "abi_cli/__main__.py", "abi_cli/build.py", "abi_cli/bin/abi"} <= set(names), names
    assert entry_points == "[console_scripts]\nabi = abi_cli:main\n" and mode & 0o111
    unpacked = subprocess.run([tool("wheel"), "unpack", "-d", str(tmp_path / "ok"), str(wheel)], capture_output=True, text=True)
    assert unpacked.returncode == 0, unpacked.stdout + unpacked.stderr
    again = abi("tool-wheel", target_dir() / "x86_64-unknown-linux-gnu" / "debug" / "abi", "-o", tmp_path / "again")
    assert again.returncode == 0 and (tmp_path / "again" / wheel.name).read_bytes() == wheel.read_bytes()
    where = tmp_path / "venv"
    venv.create(where, with_pip=True)
    env = env_without_abi()
    installed = pip(where, "install", "--no-index", "--find-links", str(tool_wheelhouse), "abi-cli", env=env)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    run = lambda *argv: subprocess.run([str(a) for a in argv], capture_output=True, text=True, env=env)
    assert run(where / "bin" / "abi", "--version").stdout == "abi 0.1.0\n"
    assert run(where / "bin" / "python", "-m", "abi_cli", "--version").stdout == "abi 0.1.0\n"
    shipped = run(where / "bin" / "python", "-c", "import abi_cli; print(abi_cli.binary())").stdout.strip()
    assert shipped.startswith(str(where / "lib")) and shipped.endswith("site-packages/abi_cli/bin/abi"), shipped
    listed = run(where / "bin" / "abi", "inspect", "--no-load", target_dir() / "debug" / "libmathlib.so")
    assert listed.returncode == 0 and "add(a: int, b: int) -> int" in listed.stdout, listed.stderr
    # Bad input: another file, one line and exit 2.
    refused = abi("tool-wheel", sys.executable, "-o", tmp_path / "no")
    assert refused.returncode == 2 and refused.stderr == f"abi: error: {sys.executable} is not an `abi` executable (built from abi-cli)\n"


def test_init_python_keeps_existing_files_and_needs_a_crate(tmp_path):
    crate = make_crate(tmp_path)
    assert abi("init-python", crate).returncode == 0
    again = abi("init-python", crate)
    assert again.returncode == 2 and "exists; pass --force" in again.stderr
    assert abi("init-python", crate, "--force").returncode == 0
    # A crate made by an older init-python: its abi_build.py is named as unused.
    (crate / "abi_build.py").write_text("# the old backend\n")
    forced = abi("init-python", crate, "--force")
    assert forced.returncode == 0 and "abi_build.py (the backend an older init-python wrote) is no longer used" in forced.stderr
    relative = subprocess.run([str(ABI), "init-python", "geokit", "--force"], cwd=tmp_path, capture_output=True, text=True)
    assert relative.stdout.splitlines()[-1] == "next: pip install ./geokit", relative.stderr
    nowhere = abi("init-python", tmp_path / "none")
    assert nowhere.returncode == 2 and "is not a crate folder" in nowhere.stderr
