"""The tensor-kit example (examples/tensor-kit) from numpy: typed tensor parameters get
arrays of their dtype and rank only, refused otherwise with a message naming the function,
the parameter and both types; zero-size arrays pass; tvm_ffi's own reader takes the
published dtype and rank. Strided parameters take transposed, stepped, reversed and
broadcast arrays, and write through strided outs that share no element with another
argument; converting parameters take the dtypes numpy's same_kind casting takes."""

import json

import numpy as np
import pytest
import tvm_ffi

from conftest import load


@pytest.fixture(scope="module")
def tk():
    return load("libtensor_kit.so")


def test_rows_are_scaled_as_numpy_scales_them(tk):
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    w = np.array([1.0, 0.5, -2.0, 10.0], dtype=np.float32)
    out = np.from_dlpack(tk.scale_rows(x, w))
    np.testing.assert_array_equal(out, x * w)
    assert tk.row_lengths(np.zeros((5, 2), dtype=np.int64)) == [2, 2, 2, 2, 2]


def test_results_are_written_into_the_callers_array(tk):
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    w = np.array([1.0, 0.5, -2.0, 10.0], dtype=np.float32)
    out = np.full((3, 4), np.nan, dtype=np.float32)
    assert tk.scale_rows_into(x, w, out) is None
    np.testing.assert_array_equal(out, x * w)
    # Two halves of one buffer share no byte: accepted.
    buf = np.zeros(24, dtype=np.float32)
    buf[:12] = x.ravel()
    tk.scale_rows_into(buf[:12].reshape(3, 4), w, buf[12:].reshape(3, 4))
    np.testing.assert_array_equal(buf[12:].reshape(3, 4), x * w)
    tk.scale_rows_into(np.zeros((0, 4), dtype=np.float32), w, np.zeros((0, 4), dtype=np.float32))


@pytest.mark.parametrize(
    "make_out, shared",
    [
        (lambda x, w, buf: x, "x"),
        (lambda x, w, buf: buf[2:14].reshape(3, 4), "x"),  # overlaps x = buf[:12] by 10 elements
        (lambda x, w, buf: buf[11:23].reshape(3, 4), "x"),  # by its last element only
        (lambda x, w, buf: buf[12:24].reshape(3, 4), "w"),  # w = buf[12:16]
    ],
)
def test_an_out_array_sharing_memory_is_refused_and_untouched(tk, make_out, shared):
    buf = np.arange(24, dtype=np.float32)
    x, w = buf[:12].reshape(3, 4), buf[12:16]
    out = make_out(x, w, buf)
    before = buf.copy()
    with pytest.raises(ValueError) as e:
        tk.scale_rows_into(x, w, out)
    index = {"x": 0, "w": 1}[shared]
    assert f"argument `out` (#2) shares memory with argument `{shared}` (#{index})" in str(e.value)
    np.testing.assert_array_equal(buf, before)


def test_out_array_mismatches_name_the_parameter(tk):
    x, w = np.ones((2, 3), dtype=np.float32), np.ones(3, dtype=np.float32)
    with pytest.raises(TypeError, match=r"argument `out` \(#2\) expected a tensor of dtype float32 and rank 2, got dtype float64"):
        tk.scale_rows_into(x, w, np.zeros((2, 3)))
    with pytest.raises(ValueError, match=r"not contiguous .* \(a StridedTensorMut parameter takes any strides\)"):
        tk.scale_rows_into(x, w, np.zeros((3, 2), dtype=np.float32).T)


def test_float16_arrays_and_zero_size_arrays(tk):
    h = np.array([0.5, 1.25, -3.0, 2048.0], dtype=np.float16)
    assert tk.half_sum(h) == pytest.approx(float(h.astype(np.float32).sum()))
    assert tk.half_sum(np.zeros(0, dtype=np.float16)) == 0.0
    out = np.from_dlpack(tk.scale_rows(np.zeros((0, 3), dtype=np.float32), np.ones(3, dtype=np.float32)))
    assert out.shape == (0, 3)
    assert tk.row_lengths(np.zeros((0, 7), dtype=np.int64)) == []


@pytest.mark.parametrize(
    "x, kind, message",
    [
        (
            np.ones((2, 3), dtype=np.float64),
            TypeError,
            "argument `x` (#0) expected a tensor of dtype float32 and rank 2, got dtype float64 and rank 2 (shape [2, 3])",
        ),
        (
            np.ones(6, dtype=np.float32),
            TypeError,
            "argument `x` (#0) expected a tensor of dtype float32 and rank 2, got dtype float32 and rank 1 (shape [6])",
        ),
        (
            np.ones((3, 2), dtype=np.float32).T,
            ValueError,
            "argument `x` (#0) tensor is not contiguous (row-major compact): shape [2, 3], strides [1, 2] (a "
            "StridedTensor parameter takes any strides)",
        ),
        ([[1.0, 2.0, 3.0]], TypeError, "argument `x` (#0) expected Tensor[f32, 2], got Array"),
    ],
)
def test_mismatches_name_function_parameter_and_both_types(tk, x, kind, message):
    with pytest.raises(kind) as e:
        tk.scale_rows(x, np.ones(3, dtype=np.float32))
    assert str(e.value) == "scale_rows(x: Tensor[f32, 2], w: Tensor[f32, 1]) -> Tensor: " + message


def test_device_tensors_hand_over_the_data_address(tk):
    x = np.arange(4, dtype=np.float32)
    assert tk.launch_site(x) == ("cpu:0", x.ctypes.data)
    with pytest.raises(TypeError, match="expected a tensor of dtype float32 and rank 1, got dtype int32"):
        tk.launch_site(np.arange(4, dtype=np.int32))


def test_tvm_ffi_reads_the_published_dtype_and_rank(tk):
    meta = tk.get_function_metadata("scale_rows")
    schema = json.loads(meta["type_schema"])
    assert schema["named_args"]["params"] == [
        {"type": "ffi.Tensor", "dtype": "float32", "ndim": 2},
        {"type": "ffi.Tensor", "dtype": "float32", "ndim": 1},
    ]
    parsed = tvm_ffi.core.TypeSchema.from_json_str(meta["type_schema"])
    assert "Tensor" in repr(parsed)
    assert meta["iree.abi"]["a"][0] == ["named", "x", ["ndarray", "f32", 2, None, None]]


def test_the_stream_inside_a_call_is_the_callers(tk):
    cuda0, cuda1 = tvm_ffi.device("cuda:0"), tvm_ffi.device("cuda:1")
    assert tk.current_stream(cuda0) == 0
    with tvm_ffi.use_raw_stream(cuda0, 0x1234):
        assert tk.current_stream(cuda0) == 0x1234
        assert tk.current_stream(cuda1) == 0, "per device id"
    assert tk.current_stream(cuda0) == 0, "restored after the block"


def test_results_without_a_framework_allocator_are_rust_allocations(tk):
    np.testing.assert_array_equal(np.from_dlpack(tk.ones(5)), np.ones(5, dtype=np.float32))
    assert np.from_dlpack(tk.ones(0)).shape == (0,)
    np.testing.assert_array_equal(np.from_dlpack(tk.empty_like(np.arange(3, dtype=np.float32))), np.zeros(3))


def test_a_size_no_allocation_can_have_is_a_value_error_one_memory_refuses_a_memory_error(tk):
    # 2**62 float32 elements are 2**64 bytes: no allocation can be that large.
    with pytest.raises(ValueError, match=r"^shape \[4611686018427387904\] of float32 is too large: more than "):
        tk.ones(2**62)
    with pytest.raises(ValueError, match=r"has a negative extent$"):
        tk.ones(-1)
    # 2**60 bytes could be asked for, but no machine has them to give.
    with pytest.raises(MemoryError, match=r"^cannot allocate 1152921504606846976 bytes for a float32 tensor"):
        tk.ones(2**58)


def test_ctrl_c_interrupts_a_long_call(tk):
    """A SIGINT during the call (a timer thread sends it) surfaces as KeyboardInterrupt."""
    import os
    import signal
    import threading
    import time

    assert tk.spin(10_000) == 10_000
    # Python's own handler, whatever the suite was started with: a shell running it in the
    # background (`cmd &` without job control) ignores SIGINT, and an ignored SIGINT would
    # never reach the call.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        timer = threading.Timer(0.2, lambda: os.kill(os.getpid(), signal.SIGINT))
        timer.start()
        start = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            # Seconds to minutes of counting without an interrupt (a failure, not a hang).
            tk.spin(10**11)
        assert time.monotonic() - start < 30
    finally:
        timer.join()
        signal.signal(signal.SIGINT, previous)
    assert tk.spin(3) == 3, "the library stays usable"


X = np.arange(12, dtype=np.float64).reshape(3, 4)


@pytest.mark.parametrize(
    "view",
    [
        X,
        X.T,
        X[::-1],
        X[:, ::2],
        X[::-1, ::-3],
        X[1:, 1:3],
        # Stride 0 (np.broadcast_to's, writeable: tvm_ffi refuses to export read-only arrays).
        np.lib.stride_tricks.as_strided(np.arange(4.0), shape=(3, 4), strides=(0, 8)),
        X[:0],
        np.asfortranarray(X),
    ],
    ids=["compact", "T", "rows_reversed", "every_other_column", "both_reversed", "slice", "broadcast", "empty", "F"],
)
def test_strided_arrays_are_read_with_their_strides(tk, view):
    np.testing.assert_array_equal(tk.strided_row_sums(view), view.sum(axis=1))


def test_a_strided_out_is_written_through_its_strides(tk):
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    out = np.zeros((3, 2), dtype=np.float32)
    assert tk.scale_strided_into(x, 2.0, out.T) is None
    np.testing.assert_array_equal(out.T, 2 * x)
    buf = np.zeros((2, 6), dtype=np.float32)
    tk.scale_strided_into(x.T[::-1].T, -1.0, buf[::-1, ::2])  # negative strides on both sides
    np.testing.assert_array_equal(buf[::-1, ::2], -x[:, ::-1])
    np.testing.assert_array_equal(buf[:, 1::2], 0)


def test_interleaved_views_of_one_array_are_not_an_overlap(tk):
    buf = np.arange(24, dtype=np.float32).reshape(4, 6)
    odd = buf[:, 1::2].copy()
    tk.scale_strided_into(buf[:, 1::2], 10.0, buf[:, ::2])
    np.testing.assert_array_equal(buf[:, ::2], 10 * odd)
    np.testing.assert_array_equal(buf[:, 1::2], odd, "the read view is untouched")


@pytest.mark.parametrize(
    "x, out, shared",
    [
        (lambda b: b[:, ::2], lambda b: b[:, ::2], "the same elements"),
        (lambda b: b[:, 2:5], lambda b: b[:, ::2], "columns 2 and 4"),
        (lambda b: b[:3, :3], lambda b: b[:3, :3].T, "a square block and its transpose"),
        (lambda b: b[::-1, ::2], lambda b: b[:, ::2], "reversed rows of the same columns"),
    ],
)
def test_strided_outs_sharing_an_element_are_refused_and_untouched(tk, x, out, shared):
    buf = np.arange(24, dtype=np.float32).reshape(4, 6)
    before = buf.copy()
    with pytest.raises(ValueError, match=r"argument `out` \(#2\) shares memory with argument `x` \(#0\)"):
        tk.scale_strided_into(x(buf), 2.0, out(buf))
    np.testing.assert_array_equal(buf, before, shared)


def test_strided_outs_that_repeat_elements_are_refused(tk):
    x = np.ones((2, 3), dtype=np.float32)
    row = np.zeros(3, dtype=np.float32)
    broadcast = np.lib.stride_tricks.as_strided(row, shape=(2, 3), strides=(0, 4))  # writeable, stride 0
    with pytest.raises(ValueError) as e:
        tk.scale_strided_into(x, 2.0, broadcast)
    assert str(e.value) == (
        "scale_strided_into(x: Tensor[f32, 2], factor: float, out: Tensor[f32, 2]) -> None: argument `out` (#2) "
        "tensor written in place repeats elements: shape [2, 3], strides [0, 1] has stride 0 along dimension 0 "
        "(a broadcast array); pass a copy"
    )
    buf = np.zeros(8, dtype=np.float32)
    rows = np.lib.stride_tricks.as_strided(buf, shape=(2, 3), strides=(8, 4))  # rows overlap by one
    with pytest.raises(ValueError, match=r"may repeat elements: shape \[2, 3\], strides \[2, 1\] do not nest"):
        tk.scale_strided_into(x, 2.0, rows)
    np.testing.assert_array_equal(row, 0)
    np.testing.assert_array_equal(buf, 0)


@pytest.mark.parametrize("shape", [(0, 3), (2, 0), (0, 0)])
def test_strided_outs_with_no_element_are_taken(tk, shape):
    """numpy states strides [3, 1] for zeros((0, 3)) and [0, 1] for zeros((2, 0)): nothing
    repeats in a tensor with no element, as HostTensorMut takes them too."""
    tk.scale_strided_into(np.ones(shape, dtype=np.float32), 2.0, np.zeros(shape, dtype=np.float32))
    tk.scale_rows_into(np.ones(shape, dtype=np.float32), np.ones(shape[1], dtype=np.float32), np.zeros(shape, dtype=np.float32))


def test_np_arange_float64_goes_into_a_float32_kernel(tk):
    out = np.from_dlpack(tk.scale_as_f32(np.arange(6.0), 0.5))
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, np.arange(6.0, dtype=np.float32) * 0.5)
    # Strided and reversed float64, and the exact dtype, too.
    np.testing.assert_array_equal(np.from_dlpack(tk.scale_as_f32(np.arange(6.0)[::-2], 1.0)), [5, 3, 1])
    np.testing.assert_array_equal(np.from_dlpack(tk.scale_as_f32(np.ones(2, dtype=np.float32), 3.0)), [3, 3])


VALUES = np.array([0, 1, -1, 127, 300, -129, 70_000, 2**40 + 3, 2**53 + 1])
DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
DTYPES += [np.float16, np.float32, np.float64, np.complex64]


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("target, kernel", [(np.float32, "scale_as_f32"), (np.int32, "as_i32")])
def test_conversions_are_numpys_same_kind_casts(tk, dtype, target, kernel):
    with np.errstate(over="ignore"), __import__("warnings").catch_warnings():
        __import__("warnings").simplefilter("ignore")
        x = VALUES.astype(dtype)
        want = x.astype(target)
    call = (lambda a: getattr(tk, kernel)(a, 1.0)) if kernel == "scale_as_f32" else getattr(tk, kernel)
    if np.can_cast(dtype, target, "same_kind"):
        np.testing.assert_array_equal(np.from_dlpack(call(x)), want)
    else:
        with pytest.raises(TypeError) as e:
            call(x)
        assert f"expected a tensor of dtype {np.dtype(target).name} or one numpy's same_kind casting takes to it" in str(e.value)
        assert f"got dtype {np.dtype(dtype).name} and rank 1" in str(e.value)


def test_a_converting_parameter_publishes_its_casting(tk):
    meta = tk.get_function_metadata("scale_as_f32")
    schema = json.loads(meta["type_schema"])
    assert schema["named_args"]["params"][0] == {"type": "ffi.Tensor", "dtype": "float32", "ndim": 1, "cast": "same_kind"}
    assert "Tensor" in repr(tvm_ffi.core.TypeSchema.from_json_str(meta["type_schema"])), "tvm_ffi's reader skips the key"
    strided = json.loads(tk.get_function_metadata("scale_strided_into")["type_schema"])["named_args"]["params"]
    assert strided[2] == {"type": "ffi.Tensor", "dtype": "float32", "ndim": 2}, "strided forms publish dtype and rank"
