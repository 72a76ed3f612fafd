"""Arrays the door and the tvm_ffi route must treat alike (tests/python/test_door.py runs this
with ABI_PYTHON_DOOR=1 and =0): read-only, broadcast, non-contiguous and released ones, for
tensor-kit's parameters that only read (`scale_rows`, `strided_row_sums`) and one that may
write (`scale_rows_into`'s `out`). Prints the route, then one outcome per case."""

import os
import tempfile

import numpy as np
import tensor_kit as tk


def outcome(f, *args):
    try:
        return "ok " + repr(np.asarray(f(*args)).tolist())
    except Exception as e:
        return f"{type(e).__name__}: {str(e).splitlines()[0]}"


w = np.array([1, 2, 3], np.float32)
x = np.arange(6, dtype=np.float32).reshape(2, 3)
path = os.path.join(tempfile.mkdtemp(), "x.f32")
x.tofile(path)
mapped = np.memmap(path, np.float32, "r", shape=(2, 3))
frozen = x.copy()
frozen.setflags(write=False)
released = memoryview(x.copy())
released.release()
cases = {
    "broadcast, compact parameter": (tk.scale_rows, np.broadcast_to(w, (2, 3)), w),
    "broadcast, strided parameter": (tk.strided_row_sums, np.broadcast_to(np.arange(3.0), (2, 3))),
    "frombuffer": (tk.scale_rows, np.frombuffer(x.tobytes(), np.float32).reshape(2, 3), w),
    "read-only memmap": (tk.scale_rows, mapped, w),
    "read-only for a parameter written": (tk.scale_rows_into, x, w, frozen),
    "memmap for a parameter written": (tk.scale_rows_into, x, w, mapped),
    "transposed, compact parameter": (tk.scale_rows, np.ones((3, 2), np.float32).T, w),
    "strided memoryview, compact parameter": (tk.scale_rows, memoryview(np.ones((2, 6), np.float32)[:, ::2]), w),
    "released memoryview": (tk.scale_rows, released, w),
}
print(type(tk.scale_rows).__module__)
for name, (f, *args) in cases.items():
    print(f"{name}: {outcome(f, *args)}")
os.remove(path)
