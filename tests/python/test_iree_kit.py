"""The iree-kit example from a TVM FFI host: the functions its IREE module serves are
ordinary exports too, with the same results and errors, and their metadata carries the
`iree.abi` record (scripts/test-iree.sh runs the IREE side)."""

import pytest

from conftest import load


@pytest.fixture(scope="module")
def kit():
    return load("libiree_kit.so")


def test_the_iree_functions_are_tvm_ffi_exports(kit):
    assert kit.add_i32(40, 2) == 42
    assert tuple(kit.mix(3, 10, 1.5)) == (4.5, 13)
    assert kit.checked(5) == 5
    assert kit.pick(2) == 2.5
    assert kit.widen(-3, 300, True) == -297
    assert kit.is_positive(0.5) is True
    assert tuple(kit.pair()) == (7, -7)
    before = kit.ticks()
    kit.tick()
    assert kit.ticks() == before + 1


def test_errors_keep_their_kinds(kit):
    with pytest.raises(ValueError, match="x must not be negative, got -7"):
        kit.checked(-7)
    with pytest.raises(IndexError, match="index 9 is out of range"):
        kit.pick(9)
    with pytest.raises(KeyError, match="no value under key 7"):
        kit.lookup(7)
    with pytest.raises(RuntimeError, match="unlucky panicked: 13 is unlucky"):
        kit.unlucky(13)
    # Packed calls check widths too: an i8 parameter refuses 300.
    with pytest.raises(ValueError, match=r"argument `a` \(#0\) 300 is out of range for i8"):
        kit.widen(300, 0, False)


def test_metadata_carries_the_iree_record(kit):
    meta = kit.get_function_metadata("mix")
    assert meta["arg_names"] == ["a", "b", "c"]
    # The export's record keeps the tuple as one result (a packed call returns one Array);
    # the IREE module's own `iree.abi` attribute lists two results (tests/iree_module.rs).
    assert meta["iree.abi"] == {
        "a": [["named", "a", "i32"], ["named", "b", "i64"], ["named", "c", "f32"]],
        "r": [["stuple", "f32", "i64"]],
        "v": 1,
    }


def test_the_tensor_functions_take_numpy_arrays(kit):
    # The same functions an IREE program passes tensors to take DLPack tensors here.
    np = pytest.importorskip("numpy")
    assert kit.total(np.array([1.0, 2.0, 3.5], dtype=np.float32)) == 6.5
    assert kit.total(np.zeros(0, dtype=np.float32)) == 0.0
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(np.from_dlpack(kit.scaled(x, 2.0)), x * 2)
    sums, rows = kit.row_sums(np.array([[1, 2], [3, 4], [5, 6]], dtype=np.int32))
    np.testing.assert_array_equal(np.from_dlpack(sums), np.array([3, 7, 11], dtype=np.int64))
    assert rows == 3
    with pytest.raises(TypeError, match=r"argument `x` \(#0\).*expected a tensor of dtype float32 and rank 1"):
        kit.total(np.zeros((2, 2), dtype=np.float32))
