"""The arrays face: CUDA Array Interface v3 and DLPack 1.x, both directions (see DESIGN.md).

The hot paths (`as_cuda_array`, `from_cuda_array_interface`, `DeviceArray.__cuda_array_interface__`)
are C++ (src/array/, python/src/py_*.hpp); this module adds the NumPy-facing conveniences.
"""
from __future__ import annotations

from . import _core
from ._core import (ArrayInterfaceError, DeviceArray, array_options, as_cuda_array, from_cuda_array_interface,
                    from_dlpack)

__all__ = ["ArrayInterfaceError", "DeviceArray", "as_cuda_array", "from_cuda_array_interface", "from_dlpack",
           "from_record_like", "device_array", "device_array_like", "to_device", "is_cuda_array", "array_options"]


def _np():
    import numpy  # imported on first use: importing cubridge must stay cheap
    return numpy


def is_cuda_array(obj) -> bool:
    """True when `obj` exposes `__cuda_array_interface__` (numba.cuda.is_cuda_array)."""
    return hasattr(obj, "__cuda_array_interface__")


device_array = _core.device_array  # whole in C++: it is the allocation hot path from Python


def device_array_like(ary, stream=None, *, device=None) -> DeviceArray:
    """An uninitialised array with `ary`'s shape, dtype and (C or F) order (on `device`: an ordinal or a
    cubridge.Device; None is the current device)."""
    np = _np()
    host = ary if hasattr(ary, "dtype") else np.asarray(ary)
    f = bool(getattr(getattr(host, "flags", None), "f_contiguous", False)) and not \
        bool(getattr(getattr(host, "flags", None), "c_contiguous", True))
    return device_array(host.shape, host.dtype, "F" if f else "C", stream, device=device)


def to_device(obj, stream=None, copy=True, to=None, *, device=None) -> DeviceArray:
    """Copies a host array (anything numpy.asarray accepts) to the GPU (numba.cuda.to_device).
    C- and Fortran-ordered arrays keep their order; other layouts are made C-contiguous first.
    `device` (an ordinal or a cubridge.Device; None is the current device) places the new array."""
    np = _np()
    host = np.asarray(obj)
    if not (host.flags.c_contiguous or host.flags.f_contiguous):
        host = np.ascontiguousarray(host)
    order = "F" if host.flags.f_contiguous and not host.flags.c_contiguous else "C"
    if to is None:
        to = device_array(host.shape, host.dtype, order, stream, device=device)
    elif device is not None and to.device_id != getattr(device, "id", device):
        raise ValueError(f"to_device: `to` is on device {to.device_id} but device={device!r} was asked for; "
                         "leave device out when passing `to`, or pass an array on that device")
    elif tuple(to.shape) != host.shape or to.typestr != host.dtype.str:
        raise ValueError(f"to_device: `to` has shape {to.shape} and typestr {to.typestr!r}; the host array "
                         f"has {host.shape} and {host.dtype.str!r}")
    if copy:
        _copy_host_into(to, host, stream)
    return to


def _numba_stream(stream):
    """numba's stream argument: its 0 means the default stream, which the CUDA Array Interface writes
    None (it reserves 0), so numba code calling these methods with stream=0 works on cubridge arrays."""
    return None if type(stream) is int and stream == 0 else stream


def _copy_host_into(dev: DeviceArray, host, stream) -> None:
    np = _np()
    if dev.is_c_contiguous():
        src = np.ascontiguousarray(host)
    elif dev.is_f_contiguous():
        src = np.asfortranarray(host)
    else:
        raise ValueError("copy_to_device: the destination is not contiguous; copy into a contiguous array")
    dev._copy_from_host(src.ravel(order="K").view(np.uint8), stream)


def _host_view(self: DeviceArray, buf):
    np = _np()
    begin, _ = self._extent
    return np.ndarray(self.shape, dtype=self.dtype, buffer=buf, offset=-begin, strides=self.strides)


def _copy_to_host(self: DeviceArray, ary=None, stream=None):
    """Copies to host memory and returns it (numba's DeviceNDArray.copy_to_host). Stream-ordered
    after the array's producer; returns once the data is on the host."""
    np = _np()
    _, nbytes = self._extent
    buf = np.empty(nbytes, dtype=np.uint8)
    self._copy_extent_to_host(buf, _numba_stream(stream))
    view = _host_view(self, buf)
    if ary is None:
        if self.is_c_contiguous() or self.is_f_contiguous():
            return view
        return np.ascontiguousarray(view)
    if ary.shape != view.shape or ary.dtype != view.dtype:
        raise ValueError(f"copy_to_host: `ary` has shape {ary.shape} and dtype {ary.dtype}; the array has "
                         f"{view.shape} and {view.dtype}")
    ary[...] = view
    return ary


def _copy_to_device(self: DeviceArray, ary, stream=None) -> None:
    """Copies `ary` (a host array or any GPU array) into this array."""
    stream = _numba_stream(stream)
    if isinstance(ary, DeviceArray) or is_cuda_array(ary) or hasattr(ary, "__dlpack__") and \
            not hasattr(ary, "__array_interface__"):
        self.copy_from(ary, stream)
        return
    np = _np()
    host = np.asarray(ary, dtype=self.dtype)
    if host.shape != tuple(self.shape):
        raise ValueError(f"copy_to_device: shape {host.shape} differs from the array's {self.shape}")
    _copy_host_into(self, host, stream)


_DTYPES: dict = {}
_MAX_DTYPES = 256  # the dtypes of a program are few; a stream of distinct descrs must not grow this forever
_REMEMBERED: dict = {}  # dtypes named by the program itself (remember_dtype); kept apart from the cache above
_MAX_REMEMBERED = 1024


def remember_dtype(dtype) -> None:
    """Makes arrays whose interface carries exactly dtype's typestr and descr read back as `dtype` (a CAI
    descr has no alignment flag: an aligned structured dtype would otherwise read back as packed). Used for
    the dtypes cubridge makes arrays of itself (from_record_like, the random states)."""
    try:
        key = (dtype.str, repr(dtype.descr))
    except ValueError:  # no descr (overlapping or out-of-order fields): .dtype reads the typestr
        return
    if key not in _REMEMBERED and len(_REMEMBERED) >= _MAX_REMEMBERED:
        _REMEMBERED.pop(next(iter(_REMEMBERED)))  # the oldest
    _REMEMBERED[key] = dtype


def _dtype(self: DeviceArray):
    key = (self.typestr, repr(self.descr))
    dt = _REMEMBERED.get(key) or _DTYPES.get(key)
    if dt is None:
        if len(_DTYPES) >= _MAX_DTYPES:
            _DTYPES.clear()
        np = _np()
        # Producers send descr [('', typestr)] for plain types too (CuPy does); only a 'V' typestr
        # needs descr, and np.dtype of that default descr would be a one-field structured type.
        structured = self.descr is not None and self.typestr[1:2] == "V"
        dt = np.dtype(self.descr) if structured else np.dtype(self.typestr)
        _DTYPES[key] = dt
    return dt


def _no_implicit_host_copy(self: DeviceArray, dtype=None, copy=None):
    # NumPy would otherwise build an object array of 0-d DeviceArrays through __len__/__getitem__.
    raise TypeError("Implicit conversion of a cubridge.DeviceArray to a NumPy array is not allowed: its data is "
                    "in GPU memory. Call .copy_to_host() to copy it to a NumPy array explicitly")


def _rebuild_device_array(host):
    return to_device(host)


def _reduce(self: DeviceArray):
    # Through the host, as numba-cuda's and CuPy's arrays pickle: the copy lands on the unpickling process's
    # current device, contiguous and writable, owned by cubridge.
    if self.mask is not None:
        raise TypeError("cannot pickle a cubridge.DeviceArray with a CUDA Array Interface mask: the copy would "
                        "lose it; copy the data and the mask to the host (.copy_to_host()) and pickle those")
    return _rebuild_device_array, (self.copy_to_host(),)


DeviceArray.__array__ = _no_implicit_host_copy
DeviceArray.__reduce__ = _reduce
DeviceArray.copy_to_host = _copy_to_host
DeviceArray.copy_to_device = _copy_to_device
DeviceArray.dtype = property(_dtype, doc="The NumPy dtype (from typestr, or descr for structured types).")


def _numba_type(self: DeviceArray):
    """The numba type of an array of a structured dtype. numba and numba-cuda type foreign GPU arrays by
    their typestr alone and have no type for a bare '|V16', so without this a numba kernel refuses, for
    one, the random states of cubridge.random. Other arrays have no such attribute: numba reads their CAI."""
    if self.descr is None or self.typestr[1:2] != "V":
        raise AttributeError("_numba_type_")
    import sys
    import numba.cuda  # the type system of whichever numba-cuda is installed (numba's or NVIDIA's)
    from . import _records
    from_dtype = getattr(numba.cuda, "from_dtype", None) or sys.modules["numba"].from_dtype
    record = from_dtype(_records.structured_dtype(self, self.__cuda_array_interface__))  # as cubridge.typeof
    array = sys.modules[type(record).__module__].Array
    layout = "C" if self.is_c_contiguous() else "F" if self.is_f_contiguous() else "A"
    return array(record, len(self.shape), layout, readonly=bool(self.__cuda_array_interface__["data"][1]))


DeviceArray._numba_type_ = property(_numba_type, doc="numba's type for arrays of structured dtypes (see _numba_type).")


def from_record_like(rec, stream=None, gpu_data=None):
    """numba.cuda.from_record_like: an uninitialised device record (a 0-d device array) of the structured
    dtype of `rec` (a NumPy record, a 0-d structured array or anything with such a ``dtype``), to pass as
    a kernel's record parameter. `gpu_data`, when given, is device memory to use instead of a new
    allocation: a cubridge or Numba MemoryPointer, or an int address, of at least the record's size."""
    dtype = getattr(rec, "dtype", None)
    if getattr(dtype, "fields", None) is None:
        raise TypeError(f"from_record_like: {rec!r} ({type(rec).__name__}) has no structured dtype; pass a NumPy "
                        "record (a[i] of a structured array), a 0-d structured array or a structured dtype's scalar")
    # The array keeps only the descr, which has no alignment flag: remember the dtype itself for its
    # .dtype (and so typeof), so an aligned record stays aligned.
    remember_dtype(dtype)
    if gpu_data is None:
        return _core.device_array((), dtype, "C", stream)
    address = gpu_data if isinstance(gpu_data, int) else getattr(gpu_data, "device_pointer", None)
    address = getattr(address, "value", address)  # Numba's MemoryPointer: a c_void_p
    if not isinstance(address, int):
        raise TypeError(f"from_record_like: gpu_data {gpu_data!r} is not device memory (a MemoryPointer or an "
                        "int device address)")
    size = getattr(gpu_data, "size", None)
    if isinstance(size, int) and size < dtype.itemsize:
        raise ValueError(f"from_record_like: gpu_data holds {size} bytes, the record {dtype.itemsize}")
    desc = {"shape": (), "typestr": dtype.str, "data": (address, False), "version": 3, "strides": None,
            "stream": None}
    try:
        desc["descr"] = dtype.descr
    except ValueError:  # overlapping or out-of-order fields: NumPy has no descr for them
        pass
    return _core.from_cuda_array_interface(desc, owner=gpu_data)
