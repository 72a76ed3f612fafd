"""The Python door, written into the package by `abi stubs`: binds the package's plain
functions to native callables of the library (`abi_python_door_*`, docs/ABI.md "The
Python door") that convert Python values straight to packed arguments and call the
export's shim, with no `def` and no `tvm_ffi` dispatch in between. What a callable does not
convert goes, unchanged, to the function it replaces (the `tvm_ffi` route), so results and
errors are the same either way. ABI_PYTHON_DOOR=0 keeps every call on the `tvm_ffi` route.
"""

import array
import ctypes
import functools
import os
import sys
import sysconfig

# The handshake this package speaks; a library answering another keeps the tvm_ffi route.
VERSION = 2
# The environment variable that keeps every call on the tvm_ffi route when "0" (or "false",
# "off", "no").
OFF = "ABI_PYTHON_DOOR"

# The buffer types the door reads as tensors, as the package's tvm_ffi route does
# (`_buffer_arrays`): other objects with the buffer protocol take the tvm_ffi route.
BUFFERS = (memoryview, bytearray, array.array)

# The table the library reads (abi-core's `PyApi`), in its order: objects, then functions.
_OBJECTS = (
    "none",
    "true",
    "false",
    "int",
    "float",
    "str",
    "bytes",
    "ndarray",
    "numpy_api",
    "from_dlpack",
    "TypeError",
    "parked",
    "memoryview",
    "bytearray",
    "array",
    "torch_tensor",
)
_FUNCTIONS = (
    "Py_IncRef",
    "Py_DecRef",
    "PyLong_AsLongLongAndOverflow",
    "PyLong_FromLongLong",
    "PyFloat_AsDouble",
    "PyFloat_FromDouble",
    "PyUnicode_AsUTF8AndSize",
    "PyUnicode_FromStringAndSize",
    "PyUnicode_InternFromString",
    "PyBytes_AsStringAndSize",
    "PyBytes_FromStringAndSize",
    "PyErr_Clear",
    "PyErr_SetString",
    "PyObject_Vectorcall",
    "PyVectorcall_Call",
    "PyEval_SaveThread",
    "PyEval_RestoreThread",
    "PyType_FromSpec",
    "PyType_GenericAlloc",
    "PyType_IsSubtype",
    "PyObject_Free",
    "PyObject_ClearWeakRefs",
    "PyCapsule_New",
    "PyCapsule_GetPointer",
    "PyTuple_New",
    "PyList_New",
    "PyObject_GetBuffer",
    "PyBuffer_Release",
    "PyObject_GetAttrString",
)


class _Api(ctypes.Structure):
    _fields_ = [(name, ctypes.c_void_p) for name in _OBJECTS + _FUNCTIONS]


def serves():
    """Whether the door serves this interpreter: CPython 3.10 or newer, a GIL-enabled
    release build (the door reads object headers, whose layout free-threaded and debug
    builds change), 64-bit. Anything else takes the tvm_ffi route."""
    return (
        sys.implementation.name == "cpython"
        and sys.version_info >= (3, 10)
        and not _free_threaded()
        and not hasattr(sys, "gettotalrefcount")
        and ctypes.sizeof(ctypes.c_void_p) == 8
    )


def _free_threaded():
    """Whether this is a free-threaded build (3.13t, 3.14t), even with its GIL enabled."""
    try:
        return bool(sysconfig.get_config_var("Py_GIL_DISABLED"))
    except Exception:  # sysconfig cannot read this build's configuration
        return "t" in getattr(sys, "abiflags", "")


# The opened libraries, by path: (entry point, what must stay alive).
_OPENED = {}


def _open(path, arrays):
    """The library's door entry, opened with this interpreter's C API; None when the door
    is off, does not serve this interpreter, or the library has none of this version."""
    if os.environ.get(OFF, "").strip().lower() in ("0", "false", "off", "no") or not serves():
        return None
    if path in _OPENED:
        return _OPENED[path][0]
    lib = ctypes.PyDLL(path)
    try:
        open_door, function, parked = lib.abi_python_door_open, lib.abi_python_door_function, lib.abi_python_door_parked
    except AttributeError:
        return None
    import tvm_ffi

    ndarray, numpy_api, from_dlpack = _numpy() if arrays else (None, None, None)
    # What the door hands back through tvm_ffi: a failed call's error, a result it does not
    # convert itself.
    through_tvm_ffi = tvm_ffi.Function.__from_extern_c__(ctypes.cast(parked, ctypes.c_void_p).value)
    objects = (None, True, False, int, float, str, bytes)
    api = _Api(
        *(id(o) for o in objects),
        id(ndarray) if ndarray is not None else None,
        numpy_api,
        id(from_dlpack) if from_dlpack is not None else None,
        id(TypeError),
        id(through_tvm_ffi),
        *(id(t) for t in BUFFERS),
        _torch_tensor(),
        *(ctypes.cast(getattr(ctypes.pythonapi, f), ctypes.c_void_p).value for f in _FUNCTIONS),
    )
    open_door.argtypes = [ctypes.c_uint32, ctypes.c_void_p, ctypes.c_size_t]
    open_door.restype = ctypes.c_uint32
    if open_door(VERSION, ctypes.addressof(api), ctypes.sizeof(api)) != 0:
        return None
    function.argtypes = [ctypes.c_char_p, ctypes.py_object, ctypes.py_object]
    function.restype = ctypes.py_object
    _OPENED[path] = (function, (api, through_tvm_ffi, lib, from_dlpack))
    return function


def _torch_tensor():
    """The address of `torch.Tensor` when torch is imported (tvm_ffi imports it where it is
    installed), else None: ops take torch tensors of that exact type through the door."""
    torch = sys.modules.get("torch")
    return id(torch.Tensor) if torch is not None else None


def _numpy():
    """numpy's array type, the address of its C API table (`_ARRAY_API`) and
    `numpy.from_dlpack`; Nones without numpy."""
    try:
        import numpy
    except ImportError:
        return None, None, None
    try:
        from numpy._core import _multiarray_umath as umath  # numpy 2
    except ImportError:
        from numpy.core import _multiarray_umath as umath  # numpy 1
    get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    get_pointer.restype, get_pointer.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    return numpy.ndarray, get_pointer(umath._ARRAY_API, None), numpy.from_dlpack


def _reduce(self):
    # Pickled by name, as a module-level function is.
    return self.__qualname__


def _repr(self):
    return f"<function {self.__qualname__} at {id(self):#x}>"


def bind(namespace, path, names, arrays):
    """Replaces each function `names` names in `namespace` (the package's globals) by its
    door callable, which keeps the function's name, docs, signature (`__wrapped__`) and
    module, and calls it for whatever it does not convert itself."""
    try:
        function = _open(str(path), arrays)
    except (OSError, ValueError, TypeError):
        function = None
    if function is None:
        return
    for name in names:
        fallback = namespace[name]
        try:
            # Its defaults fill the parameters a call's keywords skip.
            door = function(name.encode(), fallback, getattr(fallback, "__defaults__", None))
        except (ValueError, TypeError):
            continue
        if door is None:
            continue
        kind = type(door)
        if kind.__repr__ is not _repr:
            kind.__repr__, kind.__reduce__ = _repr, _reduce
            # torch.compile traces the function a door callable replaces (an op's def
            # reaches `pkg.torch.op` inside a graph): Dynamo follows `__original_fn` of an
            # object whose type says `__script_if_tracing_wrapper`, as it does for
            # torch.jit's script_if_tracing wrappers (checked with torch 2.15; any other
            # object is opaque to it, a graph break).
            setattr(kind, "__script_if_tracing_wrapper", True)
        setattr(door, "__original_fn", fallback)
        namespace[name] = functools.update_wrapper(door, fallback, updated=())
