"""`abi_cli.load_inline` (issue 53, item 4): Rust source to a loaded package, from numpy,
torch and JAX; the cache (one folder per name and hash, a shared cargo target folder, a
lock two processes wait on); a redefinition, in this process and in a new one; and what
each mistake raises. Every test shares one cache (one cargo target folder: abi-core builds
once per session), in the debug profile."""

import os
import re
import subprocess
import sys
import time

import numpy as np
import pytest

from conftest import ROOT, framework, target_dir

sys.path.insert(0, str(ROOT / "abi-cli" / "python"))

from abi_cli import inline  # noqa: E402
from abi_cli.inline import CompileError, load_inline  # noqa: E402

ABI = target_dir() / "debug" / "abi"
DEPS = {"abi-core": {"path": str(ROOT / "abi-core")}}

KERNEL = """use abi_core::{HostTensor, HostTensorMut, Result};

/// `y = x * k + OFFSET`, elementwise.
#[abi_core::export_fn(op)]
pub fn scale(x: HostTensor<'_, f32, 1>, k: f64, #[abi(out = x)] mut y: HostTensorMut<'_, f32, 1>) -> Result<()> {
    for (o, a) in y.as_mut_slice().iter_mut().zip(x.as_slice()) {
        *o = a * k as f32 + OFFSET;
    }
    Ok(())
}

const OFFSET: f32 = 0.0;
"""


def kernel(offset):
    return KERNEL.replace("OFFSET: f32 = 0.0", f"OFFSET: f32 = {offset:.1f}")


@pytest.fixture(scope="session")
def cache(tmp_path_factory):
    """The session's cache folder (its cargo target folder shared by every test)."""
    assert ABI.exists(), f"{ABI} is missing: run scripts/test.sh (it builds abi-cli)"
    return tmp_path_factory.mktemp("inline-cache")


@pytest.fixture
def env(cache, monkeypatch):
    """This process's and its children's environment: the session's cache and `abi`."""
    monkeypatch.setenv("ABI_INLINE_CACHE", str(cache))
    monkeypatch.setenv("ABI", str(ABI))
    return dict(os.environ, PYTHONPATH=str(ROOT / "abi-cli" / "python"))


def child(name, source, code, env):
    """A new Python process loading `source` as `name` and printing `code`'s value (`mod` is
    the module); started, not waited for: stdout and stderr are pipes."""
    script = f"from abi_cli.inline import load_inline\nmod = load_inline({name!r}, {source!r}, {DEPS!r}, profile='debug')\nprint({code})\n"
    return subprocess.Popen([sys.executable, "-c", script], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_a_kernel_is_built_cached_and_called_from_numpy(env, cache, capfd):
    mod = load_inline("inline_numpy", kernel(0), DEPS, profile="debug")
    x = np.arange(4, dtype=np.float32)
    np.testing.assert_array_equal(mod.scale(x, 2.0), [0, 2, 4, 6])
    assert "y = x * k + OFFSET" in mod.scale.__doc__
    # cargo's progress came through sys.stderr.
    assert "Compiling inline_numpy" in capfd.readouterr().err
    # Under its name and hash, the library beside the package `abi stubs` wrote.
    (entry,) = [p for p in (cache / "inline_numpy").iterdir() if p.is_dir()]
    assert (entry / "libinline_numpy.so").is_file() and (entry / "crate" / "src" / "lib.rs").read_text() == kernel(0)
    assert mod.__file__ == str(entry / "python" / "inline_numpy" / "__init__.py")
    assert sys.modules["inline_numpy"] is mod
    # The same source again: the same module, nothing built.
    assert load_inline("inline_numpy", kernel(0), DEPS, profile="debug") is mod
    assert "Compiling" not in capfd.readouterr().err


def test_torch_and_jax_call_it_and_a_redefinition_in_this_process_is_a_new_module(env):
    torch = framework("torch")
    jax = framework("jax")
    first = load_inline("inline_torch", kernel(0), DEPS, profile="debug")
    x = torch.arange(4, dtype=torch.float32)
    assert first.torch.scale(x, 2.0).tolist() == [0, 2, 4, 6]
    assert torch.ops.inline_torch.scale(x, 3.0).tolist() == [0, 3, 6, 9]
    assert first.jax.scale(jax.numpy.arange(4, dtype=jax.numpy.float32), 2.0).tolist() == [0, 2, 4, 6]
    # A new source under the same name: a new library as `inline_torch_v1`, its torch ops
    # beside the first module's, which keeps its own.
    second = load_inline("inline_torch", kernel(1), DEPS, profile="debug")
    assert second is not first and second.__name__ == "inline_torch_v1"
    assert second.torch.scale(x, 2.0).tolist() == [1, 3, 5, 7]
    assert torch.ops.inline_torch_v1.scale(x, 2.0).tolist() == [1, 3, 5, 7]
    assert first.torch.scale(x, 2.0).tolist() == [0, 2, 4, 6]
    assert sys.modules["inline_torch"] is first


def test_a_redefinition_in_a_new_process_runs_the_new_code(env):
    code = "mod.scale(__import__('numpy').arange(3, dtype='float32'), 2.0).tolist()"
    load_inline("inline_again", kernel(0), DEPS, profile="debug")
    for offset, want in [(0, "[0.0, 2.0, 4.0]"), (5, "[5.0, 7.0, 9.0]")]:
        out, err = child("inline_again", kernel(offset), code, env).communicate(timeout=300)
        assert out.strip() == want, err


def test_two_processes_building_one_source_build_it_once(env, cache):
    # This process holds the shared target folder's lock: one child takes the entry's lock
    # and waits for it, the other waits for the entry's lock; both go on when it is let go.
    source = kernel(2)
    with inline._locked(cache / "target.lock", "the test"):
        children = [child("inline_locked", source, "mod.scale(__import__('numpy').ones(2, 'float32'), 1.0).tolist()", env) for _ in range(2)]
        errs = ["", ""]
        deadline = time.monotonic() + 60
        while not all("waiting for" in e for e in errs):
            assert time.monotonic() < deadline, errs
            for i, c in enumerate(children):
                errs[i] += os.read(c.stderr.fileno(), 65536).decode() if _readable(c.stderr) else ""
    results = [c.communicate(timeout=300) for c in children]
    err = "".join(errs) + "".join(e for _, e in results)
    assert [out.strip() for out, _ in results] == ["[3.0, 3.0]", "[3.0, 3.0]"], err
    assert err.count("Compiling inline_locked") == 1, err
    assert "waiting for another process building inline_locked" in err, err
    assert "waiting for another load_inline build" in err, err


def _readable(pipe):
    import select

    return bool(select.select([pipe], [], [], 0.05)[0])


def test_a_compile_error_is_rustcs_diagnostics_at_the_users_line(env, capfd):
    source = kernel(0).replace("Ok(())", "Ok(()) + 1")
    line = source.splitlines().index("    Ok(()) + 1") + 1
    with pytest.raises(CompileError) as raised:
        load_inline("inline_broken", source, DEPS, profile="debug")
    message = str(raised.value)
    assert isinstance(raised.value, RuntimeError)
    assert f"--> src/lib.rs:{line}:" in message and "error[E0369]" in message, message
    assert "Compiling" not in message  # cargo's progress went to stderr, not into the message
    assert f"src/lib.rs:{line}:" in capfd.readouterr().err
    assert "inline_broken" not in sys.modules


def test_a_dependency_cargo_refuses_is_one_exception_with_its_message(env):
    with pytest.raises(CompileError, match="ndarray") as raised:
        load_inline("inline_bad_dep", kernel(0), {**DEPS, "ndarray": "not a version"}, profile="debug")
    assert "not a version" in str(raised.value)
    with pytest.raises(TypeError, match="ndarray"):
        load_inline("inline_bad_dep", kernel(0), {**DEPS, "ndarray": 0.16}, profile="debug")


def test_abi_core_not_given_by_path_says_how_to_give_it(env, monkeypatch):
    """abi-core is not on crates.io: without a path, cargo finds no such package, and the
    message says how to name the checkout's (offline, so the test asks no index)."""
    monkeypatch.setenv("CARGO_NET_OFFLINE", "true")
    with pytest.raises(CompileError) as raised:
        load_inline("inline_no_core", kernel(0), {}, profile="debug")
    said = str(raised.value)
    assert re.search(r"no matching package named .?abi-core.? found", said), said
    assert said.endswith('abi-core is not on crates.io yet: give it by path, dependencies={"abi-core": {"path": "/path/to/abi/abi-core"}}')


def test_without_tvm_ffi_it_says_which_extra_to_install(env, monkeypatch):
    """The package load_inline builds imports tvm_ffi: checked before anything compiles."""
    real = inline.importlib.util.find_spec
    monkeypatch.setattr(inline.importlib.util, "find_spec", lambda name, *a: None if name == "tvm_ffi" else real(name, *a))
    monkeypatch.setenv("CARGO", "/nonexistent/cargo")  # nothing may build
    with pytest.raises(ImportError, match=r"apache-tvm-ffi, which this Python lacks: pip install 'abi-cli\[inline\]'"):
        load_inline("inline_no_tvm_ffi", kernel(0), DEPS, profile="debug")


@pytest.mark.parametrize("name", ["my-ops", "1ops", "", "ops.sub", "numpy"])
def test_a_name_that_is_no_identifier_or_another_modules_is_refused(env, name):
    with pytest.raises(ValueError, match="load_inline: the name"):
        load_inline(name, kernel(0), DEPS, profile="debug")


def test_an_unwritable_cache_names_the_folder_and_the_variable(env, tmp_path, monkeypatch):
    (tmp_path / "a-file").write_text("")
    folder = tmp_path / "a-file" / "cache"
    monkeypatch.setenv("ABI_INLINE_CACHE", str(folder))
    with pytest.raises(OSError) as raised:
        load_inline("inline_nowhere", kernel(0), DEPS, profile="debug")
    assert str(folder) in str(raised.value) and "ABI_INLINE_CACHE" in str(raised.value)


def test_no_rust_toolchain_says_how_to_install_one(env, monkeypatch, tmp_path):
    monkeypatch.setenv("CARGO", str(tmp_path / "no-cargo"))
    with pytest.raises(RuntimeError, match=r"https://rustup\.rs"):
        load_inline("inline_no_rust", kernel(0), DEPS, profile="debug")


def test_the_cache_follows_the_platforms_convention(monkeypatch, tmp_path):
    monkeypatch.delenv("ABI_INLINE_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert inline.cache_dir() == tmp_path / "abi-cli" / "inline"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative")  # not absolute: ignored, as the spec says
    assert inline.cache_dir() == inline.Path.home() / ".cache" / "abi-cli" / "inline"
    monkeypatch.setenv("ABI_INLINE_CACHE", str(tmp_path / "here"))
    assert inline.cache_dir() == tmp_path / "here"
