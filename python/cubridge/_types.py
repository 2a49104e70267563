"""The type vocabulary: ``cubridge.float32``, ``cubridge.float32[:, ::1]`` and ``cubridge.void(...)`` are the
C++ types floor's ``Type`` and ``Signature`` objects (``_core.Type``, ``_core.Signature``; one grammar of
spellings, include/cubridge/types/). This module adds what only Python has: slicing a type into an array
type, calling one into a signature, and reading Numba's and NumPy's type objects (``from_numba``,
``from_dtype``); ``typeof`` gives the type of a launch argument.
"""
from __future__ import annotations

import enum as _enum
import sys

from typing import Any

from . import _core, _enums, _records, _scalar_types

Type = _core.Type
Signature = _core.Signature

__all__ = ["Type", "Signature", "UniTuple", "Tuple", "void", "none", "typeof",
           "boolean", "bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "intp",
           "uintp", "float16", "float32", "float64", "complex64", "complex128"]

_BY_NAME = {name: Type.parse(name) for name in _scalar_types.NUMPY_NAMES}  # the table's rows that NumPy has
_BFLOAT16 = Type.parse("bfloat16")  # the one other: ml_dtypes.bfloat16 arrays hold it
boolean = bool_ = _BY_NAME["bool"]
int8, int16, int32, int64 = (_BY_NAME[f"int{b}"] for b in (8, 16, 32, 64))
uint8, uint16, uint32, uint64 = (_BY_NAME[f"uint{b}"] for b in (8, 16, 32, 64))
intp, uintp = int64, uint64
float16, float32, float64 = (_BY_NAME[f"float{b}"] for b in (16, 32, 64))
complex64, complex128 = _BY_NAME["complex64"], _BY_NAME["complex128"]
void = none = Type._none()
_PYTHON_TYPES = {bool: boolean, int: int64, float: float64, complex: complex128}


def _getitem(self: Type, dims) -> Type:
    """``float32[:]``, ``float32[:, ::1]`` (C), ``float32[::1, :]`` (F): an array type, as in Numba."""
    dims = dims if isinstance(dims, tuple) else (dims,)
    ok = all(isinstance(d, slice) and d.start is None and d.stop is None and d.step in (None, 1) for d in dims)
    if not ok or not dims or not (self.is_scalar or self.kind == "record"):
        raise TypeError(f"{self}[{dims!r}]: array types are spelt with ':' and '::1' only, e.g. float32[:], "
                        f"float32[:, ::1] (C order) or float32[::1, :] (F order), of a number or record type")
    contiguous = [i for i, d in enumerate(dims) if d.step == 1]
    n = len(dims)
    layout = "A" if not contiguous else "C" if contiguous == [n - 1] else "F" if contiguous == [0] else None
    if layout is None:
        raise TypeError(f"{self}[...]: '::1' must mark the last dimension (C order) or the first (F order)")
    return Type._array(self, n, layout, False)


def _call(self: Type, *args: Any) -> Signature:
    """``float32(float32, float32)``: a signature returning this type."""
    return Signature._make(self, [as_type(a) for a in args])


Type.__getitem__ = _getitem
Type.__call__ = _call


def UniTuple(dtype: Any, count: int) -> Type:
    return Type._tuple([as_type(dtype)] * count)


def Tuple(*elements: Any) -> Type:
    return Type._tuple([as_type(e) for e in elements])


def _numba_array(t) -> Type:
    """numba.types.Array (and its subclasses, e.g. numba-cuda's CUDAArray): dtype, ndim, layout, mutable; a dtype
    that is a numba extension type of integers and floats is cubridge's foreign type."""
    from ._numba_struct_models import foreign_dtype
    dtype = foreign_dtype(t.dtype)
    return Type._array(from_numba(t.dtype) if dtype is None else dtype, int(t.ndim), t.layout,
                       not getattr(t, "mutable", True))


def _numba_named_tuple(t) -> Type:
    """numba.types.NamedTuple / NamedUniTuple: the class's name, its fields and their types."""
    return Type._named_tuple(t.instance_class.__name__, list(t.fields), [from_numba(e) for e in t.types])


# Numba type classes converted by structure, found through the type's MRO (so a subclass such as
# numba-cuda's CUDAArray converts as its base). Scalars convert by name. A new kind adds one entry.
_NUMBA_TYPE_CONVERTERS: dict[str, Any] = {
    "Array": _numba_array,
    "UniTuple": lambda t: UniTuple(from_numba(t.dtype), int(t.count)),
    "Tuple": lambda t: Tuple(*(from_numba(e) for e in t.types)),
    "NamedUniTuple": lambda t: _numba_named_tuple(t),
    "NamedTuple": lambda t: _numba_named_tuple(t),
    "NoneType": lambda t: void,
    "CPointer": lambda t: Type._pointer(from_numba(t.dtype), False),
    "RawPointer": lambda t: Type._pointer(void, False),  # numba's voidptr
    "Record": lambda t: Type.parse(str(t)),  # numba's str() of a Record is its spelling in our grammar
    "NPDatetime": lambda t: Type.parse(str(t)),  # "datetime64[D]", "datetime64[]": our grammar too
    "NPTimedelta": lambda t: Type.parse(str(t)),
}


def from_numba(t) -> Type:
    """The Type of a Numba type object (numba.float32, numba.float32[:, ::1], types.UniTuple(...), ...)."""
    for klass in type(t).__mro__:
        convert = _NUMBA_TYPE_CONVERTERS.get(klass.__name__)
        if convert is not None and klass.__module__.startswith("numba"):
            return convert(t)
    name = getattr(t, "name", None)
    if type(t).__module__.startswith("numba") and isinstance(name, str) and name in _BY_NAME:
        return _BY_NAME[name]
    from ._numba_struct_models import _is_opaque_model, foreign_type
    if _is_opaque_model(t):  # a user's type numba holds as an opaque pointer: a kernel parameter as numba passes it
        return foreign_type(t)
    raise TypeError(_not_a_type(t))


def from_dtype(dtype) -> Type:
    """The Type of a NumPy dtype (or scalar type such as numpy.float32): a number, or a record for a
    structured dtype, as numba.from_dtype reads it."""
    np = __import__("numpy")
    dtype = np.dtype(dtype)
    if _scalar_types.is_ml_dtypes_bfloat16(dtype):
        return _BFLOAT16
    if dtype.fields is not None:
        return Type.parse(_records.record_name(dtype, "from_dtype"))
    if dtype.kind in _scalar_types.DATETIME_NAMES and _scalar_types.datetime_name(dtype.str):
        return Type.parse(_scalar_types.datetime_name(dtype.str))
    name = _scalar_types.NAME_OF_NUMPY.get((dtype.kind, dtype.itemsize))
    if name is None or not dtype.isnative:
        raise TypeError(f"from_dtype: {dtype!r} is no type of cubridge's; accepted: the native-endian dtypes of "
                        f"{', '.join(_scalar_types.NUMPY_NAMES)} and structured dtypes")
    return _BY_NAME[name]


Type.from_numba = staticmethod(from_numba)
Type.from_dtype = staticmethod(from_dtype)


def _not_a_type(t) -> str:
    return (f"{t!r} is not a type the compiler accepts; use cubridge.int32, ..., cubridge.complex128, "
            f"cubridge.float32[:] (arrays), cubridge.UniTuple/Tuple, a Numba type (numba.float32, "
            f"numba.float32[:, ::1], numba.types.Array(numba.float32, 2, 'C'), numba.types.UniTuple(...)), "
            f"a NumPy scalar type or a type name such as 'float32'")


def as_type(t: Any) -> Type:
    """A Type from ours, a spelling, a Numba type, a NumPy dtype/scalar type or Python's bool/int/float/complex."""
    if isinstance(t, Type):
        return t
    if t is None:
        return void
    if isinstance(t, type) and t in _PYTHON_TYPES:
        return _PYTHON_TYPES[t]
    if isinstance(t, str):
        return Type.parse(t)
    if isinstance(t, tuple):
        return Tuple(*t)
    if any(k.__module__.startswith("numba") for k in type(t).__mro__):  # numba's types and their subclasses
        return from_numba(t)
    if type(t).__module__.startswith("numpy") or getattr(t, "__module__", None) in ("numpy", "ml_dtypes"):
        try:
            return from_dtype(t)
        except TypeError:
            pass
    raise TypeError(_not_a_type(t))


def as_signature(sig: Any) -> Signature:
    """A Signature from ours (float32(float32)), a spelling ('float32(float32)'), Numba's
    (numba.void(numba.float32[::1])), one type (an argument) or a tuple/list of argument types."""
    if isinstance(sig, Signature):
        return sig
    if isinstance(sig, str):
        return Signature.parse(sig)
    if isinstance(sig, (tuple, list)):
        return Signature._make(None, [as_type(a) for a in sig])
    args = getattr(sig, "args", None)  # numba.core.typing.templates.Signature
    if isinstance(args, tuple) and hasattr(sig, "return_type"):
        rt = sig.return_type
        return Signature._make(None if rt is None else as_type(rt), [as_type(a) for a in args])
    try:
        return Signature._make(None, [as_type(sig)])
    except TypeError:
        raise TypeError(f"sig must be a signature string such as 'float32(float32, float32)', a tuple of argument "
                        f"types or a signature object like float32(float32, float32) or "
                        f"numba.void(numba.float32[::1]); got {sig!r}") from None


_NATIVE_ORDER = "<" if sys.byteorder == "little" else ">"


def _host_array_type(iface: dict, arg) -> Type:
    """The Type of a host array (``__array_interface__``) or of a CAI the C++ reader left to Python
    (arrays of records)."""
    typestr = iface["typestr"]
    kind, size = typestr[1:2], int(typestr[2:]) if typestr[2:].isdigit() else 0
    if kind == "V" and size == 2 and _is_ndarray(arg) and _scalar_types.is_ml_dtypes_bfloat16(arg.dtype):
        dtype = _BFLOAT16  # NumPy arrays of ml_dtypes.bfloat16, typed by their dtype as numba-cuda does
    elif kind == "V" and size:  # a structured array: numba-cuda's Record type of its dtype
        dtype = Type.parse(_records.record_name(_records.structured_dtype(arg, iface)))
    elif (kind, size) in _scalar_types.NAME_OF_NUMPY:
        dtype = _BY_NAME[_scalar_types.NAME_OF_NUMPY[(kind, size)]]
    elif kind in _scalar_types.DATETIME_NAMES and _scalar_types.datetime_name(typestr):
        dtype = Type.parse(_scalar_types.datetime_name(typestr))
        size = 8
    elif kind in _scalar_types.CHAR_SEQ_NAMES and size and (kind == "S" or typestr[0] in "=|" + _NATIVE_ORDER):
        dtype = Type.parse(_scalar_types.char_seq_name(kind, size))
    else:
        why = _scalar_types.UNSUPPORTED_KINDS.get(kind)
        raise TypeError(f"typeof: arrays of typestr {typestr!r} cannot be kernel arguments" + (f": {why}" if why else ""))
    shape = tuple(iface["shape"])
    ndim = len(shape)
    strides = iface.get("strides")
    c = [size] * ndim
    for i in range(ndim - 2, -1, -1):
        c[i] = c[i + 1] * shape[i + 1]
    f = [size] * ndim
    for i in range(1, ndim):
        f[i] = f[i - 1] * shape[i - 1]
    live = [i for i in range(ndim) if shape[i] != 1]  # extents of 1 may carry any stride
    layout = "A"
    if strides is None or all(strides[i] == c[i] for i in live):
        layout = "C"
    elif all(strides[i] == f[i] for i in live):
        layout = "F"
    return Type._array(dtype, ndim, layout, bool(iface["data"][1]))


def _is_ndarray(arg) -> bool:
    """A NumPy array (a 0-d one is an array for numba, a NumPy scalar is a number), without importing NumPy."""
    return any(k.__name__ == "ndarray" and k.__module__ == "numpy" for k in type(arg).__mro__)


def typeof(arg) -> Type:
    """The kernel parameter type of a launch argument: ``array(float32, 2d, C)`` (``float32[:, ::1]``) for a
    C-contiguous 2-d float32 array (``readonly array(...)`` when read-only), int64 for a Python int,
    numba's Record type for one structured scalar (NumPy's, or a device record such as from_record_like gives),
    ``array(int64, 0d, C)`` for a 0-d NumPy array (numba's 0-d arrays; a NumPy scalar is a number),
    ``Enum<int64>(module.Color)`` / ``IntEnum<int64>(module.Shape)`` for a member of an Enum / IntEnum class
    (numba's EnumMember / IntEnumMember: the class is part of the type; the launch passes the member's value),
    ... A Type compares equal to any spelling of itself: ``typeof(a) == "float32[:, ::1]"``."""
    t = _PYTHON_TYPES.get(type(arg))  # the launch's common case, by one lookup
    if t is not None:
        return t
    if isinstance(arg, _enum.Enum):  # numba's EnumMember / IntEnumMember (an IntEnum's member is an int too)
        return _enums.member_type(arg)
    for python_type in (bool, int, float, complex):  # subclasses (bool first: it is an int)
        if isinstance(arg, python_type):
            return _PYTHON_TYPES[python_type]
    if isinstance(arg, tuple):  # numba-cuda's UniTuple/Tuple of its elements' types, passed element by element
        fields = getattr(type(arg), "_fields", None)
        if type(arg) is not tuple and isinstance(fields, tuple):  # a namedtuple: NamedTuple/NamedUniTuple
            return Type._named_tuple(type(arg).__name__, list(fields), [typeof(e) for e in arg])
        return Type._tuple([typeof(e) for e in arg])
    t = _core._array_param(arg)  # GPU arrays, read as a launch reads them (C++ picks the protocol)
    if t is not None:
        return t
    iface = getattr(arg, "__cuda_array_interface__", None)  # records, host arrays, NumPy scalars
    if iface is None:
        iface = getattr(arg, "__array_interface__", None)
    if iface is None and hasattr(arg, "__dlpack__"):
        iface = _core.as_cuda_array(arg).__cuda_array_interface__
    if iface is not None and (len(iface.get("shape", ())) > 0 or _is_ndarray(arg)):
        return _host_array_type(iface, arg)  # a 0-d NumPy array too: array(T, 0d, C), as numba types it
    if iface is not None and iface["typestr"][1:2] == "V":  # one record: a structured scalar or a device record
        return Type.parse(_records.record_name(_records.structured_dtype(arg, iface)))
    dtype = getattr(arg, "dtype", None)  # NumPy scalars
    if dtype is not None and getattr(dtype, "kind", None) in _scalar_types.DATETIME_NAMES:  # np.datetime64(...)
        name = _scalar_types.datetime_name(dtype.str)
        if name is not None:
            return Type.parse(name)
    if dtype is not None and (dtype.kind, dtype.itemsize) in _scalar_types.NAME_OF_NUMPY:
        return _BY_NAME[_scalar_types.NAME_OF_NUMPY[(dtype.kind, dtype.itemsize)]]
    raise TypeError(f"typeof: {arg!r} ({type(arg).__name__}) cannot be a kernel argument; pass GPU arrays "
                    "(CUDA Array Interface or DLPack), NumPy arrays or numbers")
