"""One check of examples/cuda-kit on a GPU, run by scripts/gpu-check.sh in a process of its
own (each with its own timeout): `python3 gpu_check.py CHECK LIBRARY`. The last line it
prints is one JSON object: {"check", "status" (ok | fail | skip | err), "message",
"figures"}. ok: checked and right; fail: checked and wrong; skip: what it needs is not
installed; err: it could not check (no GPU, an import or a call failed)."""

import json
import math
import os
import sys
import time
import traceback

CHECKS = {}
# What the running check measured so far: reported whatever its status.
FIGURES = {}


def check(fn):
    CHECKS[fn.__name__] = fn
    return fn


class Skip(Exception):
    pass


class Fail(Exception):
    pass


def need(module):
    """Imports `module`, or skips the check when it is not installed."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise Skip(f"{module} is not installed ({e})") from None


def torch_gpu():
    torch = need("torch")
    if not torch.cuda.is_available():
        raise RuntimeError("torch sees no CUDA device")
    return torch, torch.device("cuda:0")


def expect(cond, message):
    if not cond:
        raise Fail(message)


def exchange_route(torch):
    """How torch.Tensor got `__dlpack_c_exchange_api__` (what gives tvm_ffi torch's stream
    and allocator): torch itself, torch-c-dlpack-ext, tvm_ffi's JIT-built addon, or none."""
    if not hasattr(torch.Tensor, "__dlpack_c_exchange_api__"):
        return "none"
    if os.environ.get("GPU_CHECK_TORCH_NATIVE") == "1":
        return "native"
    if "torch_c_dlpack_ext" in sys.modules and getattr(sys.modules["torch_c_dlpack_ext"].core, "_lib", None) is not None:
        return "torch-c-dlpack-ext"
    return "tvm_ffi JIT addon"


@check
def env(ck):
    import tvm_ffi

    torch = need("torch")
    figures = FIGURES
    figures.update({
        "python": sys.version.split()[0],
        "torch": torch.__version__,
        "torch_cuda": torch.version.cuda,
        "tvm_ffi": tvm_ffi.__version__,
        "exchange_api": exchange_route(torch),
    })
    if torch.cuda.is_available():
        props = torch.cuda.get_device_properties(0)
        figures.update(gpu=props.name, capability=f"{props.major}.{props.minor}", devices=torch.cuda.device_count())
        import ctypes

        version = ctypes.c_int()
        ctypes.CDLL("libcuda.so.1").cuDriverGetVersion(ctypes.byref(version))
        figures["driver_cuda"] = f"{version.value // 1000}.{version.value % 1000 // 10}"
    from importlib import metadata

    # Versions from the installed distributions (jax_tvm_ffi has no __version__).
    for name, dist in (("jax", "jax"), ("jaxlib", "jaxlib"), ("cupy", "cupy-cuda13x"), ("jax_tvm_ffi", "jax-tvm-ffi")):
        try:
            figures[name] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            try:
                figures[name] = __import__(name).__version__
            except Exception as e:  # noqa: BLE001 (reported, not raised)
                figures[name] = f"unavailable: {type(e).__name__}"
    expect(torch.cuda.is_available(), "torch sees no CUDA device")
    expect(figures["exchange_api"] != "none", "torch.Tensor has no __dlpack_c_exchange_api__: no stream or allocator for tvm_ffi")
    return f"{figures['gpu']}, exchange API: {figures['exchange_api']}"


@check
def torch_results(ck):
    torch, dev = torch_gpu()
    g = torch.Generator(device=dev).manual_seed(0)
    sizes = FIGURES["sizes"] = [0, 1, 255, 256, 257, 1000, 1 << 20, (1 << 22) + 3]
    for n in sizes:
        x, y = torch.randn(n, device=dev, generator=g), torch.randn(n, device=dev, generator=g)
        out = ck.add(x, y)
        expect(isinstance(out, torch.Tensor), f"add returned {type(out).__name__}, not a torch.Tensor")
        expect(out.device == dev and out.shape == x.shape and out.dtype == torch.float32, f"add: {out.device} {out.shape} {out.dtype}")
        expect(torch.equal(out, x + y), f"add differs from torch for n={n}")
        into = torch.full_like(x, float("nan"))
        ck.add_into(x, y, into)
        expect(torch.equal(into, x + y), f"add_into differs from torch for n={n}")
        if n > 1:
            expect(torch.equal(ck.add(x[1:], y[:-1]), x[1:] + y[:-1]), f"add of offset slices differs for n={n}")
        s = ck.sum(x)
        expect(s.shape == () and s.device == dev, f"sum: shape {tuple(s.shape)} on {s.device}")
        ref = x.double().sum()
        bound = 1e-6 * float(x.abs().double().sum()) + 1e-6
        expect(abs(float(s) - float(ref)) <= bound, f"sum of {n}: {float(s)} vs {float(ref)} (bound {bound:.3g})")
        expect(torch.equal(ck.sum(x), s), f"sum of {n} is not deterministic")
    return f"add, add_into, sum equal torch's for sizes {sizes}"


@check
def torch_stream(ck):
    torch, dev = torch_gpu()
    n = 1 << 20
    x, y = torch.ones(n, device=dev), torch.ones(n, device=dev)
    default = ck.launches("add", x)[0]
    expect(default.endswith(", 0x0>>>"), f"outside a stream context: {default} (torch's default stream is the legacy one, 0)")
    torch.cuda.synchronize()
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        planned = ck.launches("add", x)[0]
        FIGURES.update(stream=hex(side.cuda_stream), planned=planned)
        torch.cuda._sleep(200_000_000)  # a long op on `side` (about 0.1 s)
        x.fill_(5.0)  # queued after it
        out = ck.add(x, y)  # right only if queued after the fill, on `side`
        done = torch.cuda.Event()
        done.record(side)
    done.synchronize()  # waits for `side` only: no synchronize of the default stream
    expect(planned.endswith(f", {side.cuda_stream:#x}>>>"), f"planned {planned}, torch's stream is {side.cuda_stream:#x}")
    got = float(out[0]), float(out[-1])
    expect(got == (6.0, 6.0), f"the kernel did not run after the fill on torch's stream: out = {got} (6 expected)")
    return f"launched on torch.cuda.Stream {side.cuda_stream:#x}, ordered after a long op there"


@check
def torch_allocator(ck):
    torch, dev = torch_gpu()
    n = 1 << 20
    x, y = torch.randn(n, device=dev), torch.randn(n, device=dev)
    torch.cuda.synchronize()
    before = torch.cuda.memory_allocated()
    out = ck.add(x, y)
    grown = FIGURES["grown_bytes"] = torch.cuda.memory_allocated() - before
    expect(grown >= 4 * n, f"torch.cuda.memory_allocated grew by {grown} bytes for a {4 * n}-byte result")
    del out
    freed = torch.cuda.memory_allocated() - before
    expect(freed == 0, f"{freed} bytes still allocated after the result was dropped")
    s = ck.sum(x)
    kept = torch.cuda.memory_allocated() - before
    expect(0 < kept < 4096, f"after sum, {kept} bytes allocated (its 0-d result only; the partial sums freed)")
    del s
    return f"results from torch's caching allocator ({grown} bytes for {n} floats), freed with them"


@check
def cupy(ck):
    cp = need("cupy")
    n = (1 << 20) + 7
    x, y = cp.arange(n, dtype=cp.float32), cp.ones(n, dtype=cp.float32)
    out = cp.full(n, cp.nan, dtype=cp.float32)
    ck.add_into(x, y, out)
    cp.cuda.Device().synchronize()
    expect(bool((out == x + y).all()), "add_into differs from CuPy's x + y")
    try:
        r = ck.add(x, y)
        allocating = f"add worked too ({type(r).__name__})"
    except RuntimeError as e:
        expect("needs the caller's tensor allocator" in str(e), f"add failed otherwise: {e}")
        allocating = "add (which allocates) refused: CuPy lends no allocator"
    FIGURES["add"] = allocating
    return f"add_into right on CuPy arrays; {allocating}"


@check
def jax(ck):
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    jax = need("jax")
    jax_tvm_ffi = need("jax_tvm_ffi")
    import jax.numpy as jnp
    import numpy as np

    expect(jax.devices()[0].platform == "gpu", f"JAX runs on {jax.devices()[0].platform}, not the GPU")
    jax_tvm_ffi.register_ffi_target("cuda_kit.add_into_on", ck.add_into_on, arg_spec=["ctx.stream", "args", "rets"], platform="gpu")
    n = (1 << 20) + 3
    x, y = jnp.arange(n, dtype=jnp.float32), jnp.ones(n, dtype=jnp.float32)
    call = jax.ffi.ffi_call("cuda_kit.add_into_on", jax.ShapeDtypeStruct(x.shape, x.dtype))
    eager = np.asarray(call(x, y))
    expect(np.array_equal(eager, np.asarray(x + y)), "eager: differs from x + y")
    jitted = np.asarray(jax.jit(lambda a, b: call(a * 2, b) - b)(x, y))
    expect(np.array_equal(jitted, np.asarray(x * 2)), "under jit: differs from 2x")
    FIGURES["jax"] = jax.__version__
    return "add_into_on right under eager and jit; env::stream equalled ctx.stream on every call"


@check
def cost(ck):
    torch, dev = torch_gpu()
    x, y = torch.randn(1024, device=dev), torch.randn(1024, device=dev)
    out = torch.empty_like(x)

    def per_call_us(f, reps=2000, rounds=5):
        for _ in range(200):
            f()
        torch.cuda.synchronize()
        best = math.inf
        for _ in range(rounds):
            t0 = time.perf_counter()
            for _ in range(reps):
                f()
            torch.cuda.synchronize()
            best = min(best, (time.perf_counter() - t0) / reps * 1e6)
        return round(best, 2)

    figures = FIGURES
    figures.update({
        "add_us": per_call_us(lambda: ck.add(x, y)),
        "torch_add_us": per_call_us(lambda: torch.add(x, y)),
        "add_into_us": per_call_us(lambda: ck.add_into(x, y, out)),
        "torch_add_out_us": per_call_us(lambda: torch.add(x, y, out=out)),
        "sum_us": per_call_us(lambda: ck.sum(x)),
        "torch_sum_us": per_call_us(lambda: torch.sum(x)),
    })
    line = ", ".join(f"{k[:-3]} {v} us" for k, v in figures.items())
    return f"1024 floats, per call (best of 5 x 2000): {line}"


def main():
    name, lib = sys.argv[1], sys.argv[2]
    result = {"check": name, "status": "ok", "message": "", "figures": FIGURES}
    try:
        import tvm_ffi

        result["message"] = CHECKS[name](tvm_ffi.load_module(lib))
    except Skip as e:
        result.update(status="skip", message=str(e))
    except Fail as e:
        result.update(status="fail", message=str(e))
    except Exception as e:  # noqa: BLE001 (every error is the check's result)
        traceback.print_exc()
        result.update(status="err", message=f"{type(e).__name__}: {e}".splitlines()[0])
    print(json.dumps(result, default=str))


if __name__ == "__main__":
    main()
