"""Every supported type through the real tvm_ffi package, exception classes and messages,
metadata and docs, threads, and a soak that holds no memory per call."""

import concurrent.futures
import ctypes
import gc
import json
import sys

import numpy as np
import pytest
import tvm_ffi

from conftest import NO_BIGINT_TEXT, PASSES_BIGINT

INTS = {
    "echo_i8": (-(2**7), 2**7 - 1, "i8"),
    "echo_i16": (-(2**15), 2**15 - 1, "i16"),
    "echo_i32": (-(2**31), 2**31 - 1, "i32"),
    "echo_i64": (-(2**63), 2**63 - 1, "i64"),
    "echo_u8": (0, 2**8 - 1, "u8"),
    "echo_u16": (0, 2**16 - 1, "u16"),
    "echo_u32": (0, 2**32 - 1, "u32"),
    "echo_u64": (0, 2**64 - 1, "u64"),
}


@pytest.mark.parametrize("name", sorted(INTS))
def test_integers_at_their_bounds_and_one_past(interop, name):
    lo, hi, rust = INTS[name]
    fn = interop[name]
    assert fn(lo) == lo and fn(0) == 0
    # Releases without BigInt refuse ints beyond i64 in Python, before any call.
    passes = lambda x: PASSES_BIGINT or -(2**63) <= x < 2**63  # noqa: E731
    if passes(hi):
        assert fn(hi) == hi
    else:
        with pytest.raises(OverflowError, match=NO_BIGINT_TEXT):
            fn(hi)
    # Past i64 Python sends a BigInt object: the message names its value all the same.
    for past in (hi + 1, lo - 1):
        if passes(past):
            refused = pytest.raises(ValueError, match=rf"argument `x` \(#0\) {past} is out of range for {rust}$")
        else:
            refused = pytest.raises(OverflowError, match=NO_BIGINT_TEXT)
        with refused:
            fn(past)


@pytest.mark.skipif(PASSES_BIGINT, reason="this tvm_ffi passes ints beyond i64 as BigInt objects")
def test_integers_beyond_i64_are_refused_by_tvm_ffi_releases_without_bigint(interop):
    for call in (lambda: interop.echo_u64(2**63), lambda: interop.echo_f64(2**64), lambda: interop.echo_u64s([2**63])):
        with pytest.raises(OverflowError, match=NO_BIGINT_TEXT):
            call()


@pytest.mark.skipif(not PASSES_BIGINT, reason="this tvm_ffi refuses ints beyond i64 itself")
def test_integers_beyond_i64_as_python_passes_them(interop):
    # u64 values past i64::MAX come back as the same Python int (a BigInt made in Rust).
    for x in (2**63, 2**63 + 1, 2**64 - 1):
        assert interop.echo_u64(x) == x and type(interop.echo_u64(x)) is int
    with pytest.raises(ValueError, match=r"argument `x` \(#0\) 9223372036854775808 is out of range for i64$"):
        interop.echo_i64(2**63)
    with pytest.raises(ValueError, match=rf"\(#0\) {-(2**70)} is out of range for u64$"):
        interop.echo_u64(-(2**70))
    with pytest.raises(ValueError, match=r"\(#0\) an integer of 1001 bits is out of range for i32$"):
        interop.echo_i32(2**1000)
    # A float parameter takes them rounded to nearest, as float(int) does, up to its range.
    assert interop.echo_f64(2**64) == 2.0**64
    assert interop.echo_f64(-(2**200) - 1) == float(-(2**200) - 1)
    with pytest.raises(ValueError, match=rf"\(#0\) {2**128} is out of range for f32$"):
        interop.echo_f32(2**128)
    with pytest.raises(ValueError, match=r"\(#0\) an integer of 1025 bits is out of range for f64$"):
        interop.echo_f64(2**1024)
    # Inside containers and options alike.
    assert interop.echo_opt_u64(2**64 - 1) == 2**64 - 1 and interop.echo_opt_u64(None) is None
    assert list(interop.echo_u64s([2**63, 1, 2**64 - 1])) == [2**63, 1, 2**64 - 1]
    with pytest.raises(ValueError, match=r"element 1: 18446744073709551616 is out of range for u64$"):
        interop.echo_u64s([0, 2**64])


def test_floats_bools_and_halves(interop):
    assert interop.echo_f64(1.5) == 1.5
    assert interop.echo_f64(3) == 3.0  # an int where a float is declared, as tvm-ffi C++ accepts
    assert interop.echo_f64(float("inf")) == float("inf")
    assert np.isnan(interop.echo_f64(float("nan")))
    assert np.copysign(1.0, interop.echo_f64(-0.0)) == -1.0
    assert interop.echo_f32(0.1) == np.float32(0.1)
    with pytest.raises(ValueError, match="out of range for f32"):
        interop.echo_f32(1e300)
    assert interop.echo_f16(0.5) == 0.5
    assert interop.echo_bf16(2.0) == 2.0
    assert interop.echo_bool(True) is True and interop.echo_bool(0) is False


@pytest.mark.parametrize("s", ["", "a", "1234567", "12345678", "héllo", "日本語のテキスト", "emoji 🎉 here", "x" * 10_000])
def test_strings_at_the_inline_boundary_and_unicode(interop, s):
    assert interop.echo_string(s) == s
    assert interop.greet(s) == f"hello, {s}"


@pytest.mark.parametrize("b", [b"", b"\x00", b"1234567", b"12345678", b"a\x00b\x00c" * 10, bytes(range(256))])
def test_bytes_with_nuls(interop, b):
    assert interop.echo_bytes(b) == b
    assert interop.byte_len(b) == len(b)


def test_containers(interop):
    assert interop.echo_opt(None) is None and interop.echo_opt(5) == 5
    pair = interop.echo_pair((7, "seven"))
    assert (pair[0], pair[1]) == (7, "seven")
    assert list(interop.echo_ints([1, 2, 3])) == [1, 2, 3]
    assert list(interop.echo_strs(["a", "a longer string"])) == ["a", "a longer string"]
    m = interop.echo_map({"a": 1, "bb": 2})
    assert dict(m.items()) == {"a": 1, "bb": 2}
    assert interop.echo_any(5) == 5 and interop.echo_any("x") == "x"
    assert list(interop.make_shape([2, 3])) == [2, 3]
    assert list(interop.echo_shape(interop.make_shape([4]))) == [4]
    assert interop.zero_args() == 42


def test_dtype_and_device(interop):
    assert str(interop.echo_dtype(tvm_ffi.dtype("float32"))) == "float32"
    dev = interop.echo_device(tvm_ffi.device("cpu", 0))
    assert dev.dlpack_device_type() == 1


def test_tensors_zero_copy_and_back_to_numpy(interop, kit):
    a = np.arange(6, dtype=np.float64).reshape(2, 3)
    assert interop.tensor_sum(a) == 15.0
    kit.scale_inplace(a, 2.0)  # written in place, seen by numpy
    assert a.tolist() == [[0, 2, 4], [6, 8, 10]]
    f = np.array([-5.0, 0.5, 5.0], dtype=np.float32)
    assert kit.clamp_inplace(f, -1.0, 1.0) == 2 and f.tolist() == [-1.0, 0.5, 1.0]
    out = np.from_dlpack(kit.moving_average(np.array([1.0, 2.0, 3.0, 4.0], dtype=np.float32), None))
    assert out.dtype == np.float32 and out.tolist() == [2.0, 3.0]
    img = np.zeros((2, 2, 3), dtype=np.uint8)
    img[0, 0] = (255, 255, 255)
    gray = np.from_dlpack(kit.to_grayscale(img))
    assert gray.dtype == np.uint8 and gray.shape == (2, 2) and gray[0, 0] == 255 and gray[1, 1] == 0
    h = np.from_dlpack(kit.to_half(np.array([1.5, -2.0])))
    assert h.dtype == np.float16 and h.tolist() == [1.5, -2.0]
    n = np.from_dlpack(kit.normalize(np.array([1.0, 2.0, 3.0])))
    assert n.dtype == np.float32 and abs(float(n.mean())) < 1e-6
    blurred = np.from_dlpack(kit.box_blur(np.ones((3, 4), dtype=np.float32), (1, 2)))
    assert blurred.shape == (3, 4) and np.allclose(blurred, 1.0)
    t = interop.echo_tensor(np.arange(4, dtype=np.int64))
    assert np.from_dlpack(t).tolist() == [0, 1, 2, 3]


@pytest.mark.parametrize(
    "make",
    [lambda: np.zeros(0), lambda: np.empty(0), lambda: np.array([]), lambda: np.zeros((0, 3)), lambda: np.zeros((3, 0)),
     lambda: np.arange(5.0)[:0], lambda: np.zeros((2, 0, 4))[:, :, ::2]],
)
def test_zero_size_arrays_are_contiguous_whatever_their_strides(interop, make):
    # numpy 2 exports some of these with stride 0: DLPack's zero-extent rule accepts them.
    assert interop.tensor_sum(make()) == 0.0


@pytest.mark.parametrize("view,shape,strides", [(lambda a: a[::-1], [4], [-1]), (lambda a: a.reshape(2, 2)[:, ::2], [2, 1], [2, 2])])
def test_strided_views_are_refused_with_their_shape_and_strides(interop, view, shape, strides):
    with pytest.raises(ValueError) as e:
        interop.tensor_sum(view(np.arange(4.0)))
    # A check in the body names the function and the argument, as conversion errors do.
    sig = "tensor_sum(x: Tensor) -> float"
    assert str(e.value) == f"{sig}: argument `x` (#0) tensor is not contiguous (row-major compact): shape {shape}, strides {strides}"


def test_signal_kit_domain_errors_and_callbacks(kit):
    with pytest.raises(ValueError, match=r"to_grayscale needs an H x W x 3 image, got shape \[4, 4\]"):
        kit.to_grayscale(np.zeros((4, 4), dtype=np.uint8))
    with pytest.raises(ValueError, match="window 9 does not fit 3 samples"):
        kit.moving_average(np.ones(3), 9)
    with pytest.raises(TypeError) as e:
        kit.apply(np.ones(2, dtype=np.float32), lambda v: v)
    sig = "apply(x: Tensor, f: Callable[[float], float]) -> Tensor"
    assert str(e.value) == f"{sig}: argument `x` (#0) expected a tensor of float64, got float32"
    assert np.from_dlpack(kit.apply(np.array([1.0, 2.0]), lambda v: v * 10)).tolist() == [10.0, 20.0]
    seen = []
    assert kit.chunked_sum(np.arange(10, dtype=np.float64), 4, lambda done, total: seen.append((done, total))) == 45.0
    assert seen == [(4, 10), (8, 10), (10, 10)]
    assert kit.chunked_sum(np.ones(3), 2, None) == 3.0
    assert kit.checksum(b"Wikipedia") == 0x11E60398
    assert kit.histogram_summary(np.array([0.0, 1.0, 1.0]), 2) == "n=3 min=0 max=1 hist=[1, 2]"
    with pytest.raises(ValueError, match=r"bins must be in 1..=4096, got 9223372036854775807"):
        kit.histogram_summary(np.ones(3), 2**63 - 1)
    with pytest.raises(ValueError, match=r"passes must be in 0..=64, got \(1, 65\)"):
        kit.box_blur(np.ones((2, 2), dtype=np.float32), (1, 65))
    image = np.arange(12, dtype=np.float32).reshape(3, 4)
    huge = np.from_dlpack(kit.box_blur(image, (2**62, 1)))
    assert np.allclose(huge, np.full((3, 4), image.mean()))  # a radius past the image averages all of it


def test_exception_classes_and_messages(interop):
    for kind, exc in [("ValueError", ValueError), ("TypeError", TypeError), ("KeyError", KeyError),
                      ("IndexError", IndexError), ("AttributeError", AttributeError), ("RuntimeError", RuntimeError)]:
        with pytest.raises(exc) as info:
            interop.raise_kind(kind, f"a {kind}")
        assert f"a {kind}" in str(info.value)
    with pytest.raises(RuntimeError) as info:
        interop.raise_kind("MyCustomError", "custom")
    assert info.value.__tvm_ffi_error__.kind == "MyCustomError"
    with pytest.raises(TypeError, match=r"^add\(a: int, b: int\) -> int: argument `b` \(#1\) expected int, got str$"):
        interop.add(1, "2")
    with pytest.raises(TypeError, match=r"^add\(a: int, b: int\) -> int takes 2 arguments, got 3$"):
        interop.add(1, 2, 3)
    with pytest.raises(RuntimeError, match="panics panicked: boom"):
        interop.panics("boom")
    assert interop.add(2, 3) == 5  # still alive after the panic


def test_python_callbacks_including_one_that_raises(interop):
    assert interop.call_fn(lambda x: x * 3, 5) == 15

    def bad_value(x):
        raise ValueError(f"bad {x}")

    with pytest.raises(ValueError, match="^bad 4"):
        interop.call_fn(bad_value, 4)

    # A custom class comes back as itself once registered with tvm_ffi (the wheel maps
    # error kinds to classes by name); unregistered ones keep their message.
    @tvm_ffi.register_error("AbiTestCallbackError")
    class AbiTestCallbackError(RuntimeError):
        pass

    def bad_custom(x):
        raise AbiTestCallbackError(f"custom {x}")

    with pytest.raises(AbiTestCallbackError, match="^custom 7"):
        interop.call_fn(bad_custom, 7)

    class Unregistered(Exception):
        pass

    def bad_unregistered(x):
        raise Unregistered(f"plain {x}")

    with pytest.raises(RuntimeError, match="^plain 9"):
        interop.call_fn(bad_unregistered, 9)
    assert interop.call_fn(lambda x: x + 1, 1) == 2  # nothing left raised


def test_metadata_and_docs(interop, kit):
    meta = interop.get_function_metadata("add")
    assert json.loads(meta["type_schema"]) == {
        "type": "ffi.Function",
        "named_args": {"return": [{"type": "int"}], "params": [{"type": "int"}, {"type": "int"}]},
    }
    assert meta["arg_names"] == ["a", "b"]
    assert meta["iree.abi"] == {"a": [["named", "a", "i64"], ["named", "b", "i64"]], "r": ["i64"], "v": 1}
    assert interop.get_function_doc("add") == "Adds two integers."
    bm = kit.get_function_metadata("box_blur")
    assert bm["iree.abi"]["a"][1] == ["named", "params", ["sdict", ["radius", "i64"], ["passes", "i64"]]]
    assert kit.get_function_doc("checksum") == "Adler-32 checksum of `data`."


def test_eight_threads_at_once(interop):
    def work(t):
        for i in range(2000):
            assert interop.add(t, i) == t + i
            with pytest.raises(ValueError, match=f"thread {t} call {i}"):
                interop.raise_kind("ValueError", f"thread {t} call {i}")
        return t

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        assert sorted(pool.map(work, range(8))) == list(range(8))


class _MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in
                ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")]


_libc = ctypes.CDLL(None)
_libc.mallinfo2.restype = _MallInfo2
_libc.malloc.restype = ctypes.c_void_p
_libc.malloc.argtypes = [ctypes.c_size_t]


def live_heap():
    """Bytes in use in the C heap (Rust, libtvm_ffi and Python's large objects all use
    malloc) and Python's live object-allocator blocks: exact counts, not pages."""
    gc.collect()
    return _libc.mallinfo2().uordblks, sys.getallocatedblocks()


def growth_per_call(batch, short=4_000, long=24_000):
    """Heap bytes and Python blocks still held per call: the difference between two run
    lengths, so one-off growth (caches, pools, interned names) cancels."""
    batch(2_000)  # warm up caches and allocator pools

    def held(n):
        before = live_heap()
        batch(n)
        after = live_heap()
        return after[0] - before[0], after[1] - before[1]

    a, b = held(short), held(long)
    return (b[0] - a[0]) / (long - short), (b[1] - a[1]) / (long - short)


def soak_batch(interop, extra=lambda: None):
    def batch(n):
        for i in range(n):
            interop.greet("a name long enough to be a heap string")
            interop.echo_ints([i, i + 1])
            try:
                interop.add("x", i)
            except TypeError:
                pass
            extra()

    return batch


# The smallest object anyone could leak per call: a 16-byte payload (a glibc chunk of 32).
ONE_SMALL_OBJECT = 16


def test_soak_detects_one_leaked_small_object_per_call(interop):
    heap, _ = growth_per_call(soak_batch(interop, lambda: _libc.malloc(ONE_SMALL_OBJECT)))
    assert heap >= ONE_SMALL_OBJECT, f"a 16-byte leak per call measured as {heap:.2f} bytes per call"
    _, blocks = growth_per_call(soak_batch(interop, lambda: LEAKED.append(object())))
    LEAKED.clear()
    assert blocks >= 1, f"one leaked Python object per call measured as {blocks:.3f} blocks per call"


LEAKED = []


def test_calls_mixing_success_and_failure_hold_no_memory(interop):
    heap, blocks = growth_per_call(soak_batch(interop))
    # Well under one small object per call: nothing a call allocates outlives it.
    assert heap < 1, f"the C heap grows by {heap:.2f} bytes per call"
    assert blocks < 0.05, f"Python holds {blocks:.3f} more blocks per call"


def test_trailing_defaults_may_be_omitted_through_tvm_ffi(mathlib):
    # No generated package: tvm_ffi's Function passes what it is given; the shim fills the rest.
    assert mathlib.show(2.5) == "2.50"
    assert mathlib.show(2.5, 0, 2.0, "m", True) == "+5m"
    assert list(mathlib.window_sums([1.0, 2.0, 3.0, 4.0])) == [6.0, 9.0]
    assert list(mathlib.window_sums([1.0, 2.0], None)) == [3.0]
    with pytest.raises(TypeError, match=r"takes 1 to 6 arguments, got 0: missing `x` \(#0\)$"):
        mathlib.show()
    with pytest.raises(TypeError, match=r"takes 1 to 2 arguments, got 3$"):
        mathlib.window_sums([1.0], 2, 3)
    meta = mathlib.get_function_metadata("show")
    assert meta["abi.defaults"] == {"digits": 2, "scale": 1.0, "unit": "", "plus": False, "label": None}
