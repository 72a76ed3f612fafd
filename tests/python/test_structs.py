"""#[derive(AbiStruct)] from the real tvm_ffi client: structs are tuples of their fields in
declaration order (Python tuples, lists and tvm_ffi.Array all work), expanded structs
take one argument per leaf, wrong shapes are TypeErrors naming the struct and field."""

import json
import pytest
import tvm_ffi



@pytest.mark.parametrize("make", [tuple, list, lambda xs: tvm_ffi.Array(xs)])
def test_struct_from_tuple_list_and_array(mathlib, make):
    assert mathlib.norm(make([3.0, 4.0])) == 5.0
    assert mathlib.norm(make([3, 4])) == 5.0  # ints accepted where floats are declared


def test_expanded_struct_takes_one_argument_per_field(mathlib):
    assert mathlib.norm_flat(3.0, 4.0) == 5.0
    with pytest.raises(TypeError, match=r"norm_flat\(p\.x: float, p\.y: float\) -> float takes 2 arguments, got 1"):
        mathlib.norm_flat((3.0, 4.0))


def test_nested_struct_round_trip_keeps_declaration_order(mathlib):
    out = mathlib.move_marker(("pin", (1.0, 2.0), 7), 0.5, -1.0, None)
    assert len(out) == 3
    assert out[0] == "pin" and tuple(out[1]) == (1.5, 1.0) and out[2] == 7
    renamed = mathlib.move_marker(("pin", (1.0, 2.0), 7), 0.0, 0.0, "a much longer label")
    assert renamed[0] == "a much longer label"


def test_vec_and_option_of_structs(mathlib):
    c = mathlib.centroid([(0.0, 0.0), [2.0, 4.0], tvm_ffi.Array([4.0, 8.0])])
    assert tuple(c) == (2.0, 4.0)
    assert mathlib.centroid([]) is None


def test_wrong_shapes_are_type_errors(mathlib):
    with pytest.raises(TypeError, match=r"argument `p` \(#0\) expected Point of length 2, got length 3"):
        mathlib.norm((1.0, 2.0, 3.0))
    with pytest.raises(TypeError, match=r"argument `p` \(#0\) Point.y: expected float, got str"):
        mathlib.norm((1.0, "two"))
    with pytest.raises(TypeError, match=r"argument `m` \(#0\) Marker.at: Point.x: expected float, got str"):
        mathlib.move_marker(("pin", ("x", 2.0), 7), 0.0, 0.0, None)
    with pytest.raises(TypeError, match=r"expected Point, got int"):
        mathlib.norm(5)


def test_struct_reflection(mathlib):
    meta = mathlib.get_function_metadata("move_marker")
    assert meta["iree.abi"]["a"][0] == [
        "named", "m", ["sdict", ["label", "str"], ["at", ["sdict", ["x", "f64"], ["y", "f64"]]], ["w", "i32"]]
    ]
    schema = json.loads(meta["type_schema"])
    point = {"type": "Tuple", "args": [{"type": "float"}, {"type": "float"}], "abi.struct": "Point", "abi.fields": ["x", "y"]}
    assert schema["named_args"]["params"][0] == {
        "type": "Tuple",
        "args": [{"type": "ffi.String"}, point, {"type": "int"}],
        # A named struct says its name and fields; tvm_ffi's readers skip the keys.
        "abi.struct": "Marker",
        "abi.fields": ["label", "at", "w"],
    }
    flat = mathlib.get_function_metadata("norm_flat")
    assert flat["arg_names"] == ["p.x", "p.y"]
    assert mathlib.get_function_doc("norm_flat") == "Distance of `p` from the origin; `p` arrives as two arguments `x, y`."
