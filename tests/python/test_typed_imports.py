"""Typed imports from Rust, driven by the real tvm_ffi: Python functions registered with
tvm_ffi.register_global_func and Python lambdas are called through typed wrappers from
Rust code in a cdylib (examples/mathlib)."""

import pytest
import tvm_ffi



def test_registered_python_function_called_through_typed_import(mathlib):
    calls = []

    def square(x):
        calls.append(x)
        return x * x

    tvm_ffi.register_global_func("mathlib_square", square, override=True)
    assert mathlib.sum_of_squares([1, 2, 3]) == 14
    assert calls == [1, 2, 3]


def test_python_exception_in_registered_function_comes_back(mathlib):
    def square(x):
        raise KeyError(f"no square for {x}")

    tvm_ffi.register_global_func("mathlib_square", square, override=True)
    with pytest.raises(KeyError, match="no square for 4"):
        mathlib.sum_of_squares([4])


def test_wrong_result_type_from_python_is_a_type_error(mathlib):
    tvm_ffi.register_global_func("mathlib_square", lambda x: "not an int", override=True)
    with pytest.raises(TypeError, match=r"the result expected int, got str"):
        mathlib.sum_of_squares([1])


def test_optional_global_absent_then_present(mathlib):
    assert mathlib.describe(2.5, "kg") == "2.5 kg"
    tvm_ffi.register_global_func("mathlib_describe", lambda x, unit: f"{x:.1f}{unit}!", override=True)
    long_unit = "kilograms per cubic metre, measured at sea level"
    assert mathlib.describe(2.5, long_unit) == f"2.5{long_unit}!"


def test_lambda_passed_as_typed_callback(mathlib):
    assert list(mathlib.map_ints([1, 2, 3], lambda x: x + 100)) == [101, 102, 103]
    with pytest.raises(ValueError, match="bad element 2"):
        mathlib.map_ints([1, 2], lambda x: (_ for _ in ()).throw(ValueError(f"bad element {x}")) if x == 2 else x)


def test_callback_result_out_of_range_is_value_error(mathlib):
    with pytest.raises(ValueError, match="out of range"):
        mathlib.map_ints([1], lambda x: 2**63)


def test_panic_in_rust_callback_called_from_rust_called_from_python(mathlib):
    cb = mathlib.panicking_callback()
    with pytest.raises(RuntimeError, match="panicked: callback refused 7"):
        mathlib.map_ints([7], cb)
    # The process and the library keep working afterwards.
    assert list(mathlib.map_ints([1], lambda x: x)) == [1]
