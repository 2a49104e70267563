"""A stand-in for numba-cuda 0.30's DeviceNDArray and memory pointers (cudadrv/devicearray.py and driver.py): the
`__cuda_array_interface__` property, `device_ctypes_pointer` of the array, of MemoryPointer and of OwnedPointer
(which keeps its view's), `is_contiguous`, as numba-cuda writes them. Importing it registers the two modules under
numba-cuda's names: import it only in a process of its own (test_numba_reader.py runs one)."""
import ctypes
import sys
import types

import numpy as np

drv = types.ModuleType("numba.cuda.cudadrv.driver")
arr = types.ModuleType("numba.cuda.cudadrv.devicearray")

class CUdeviceptr:  # cuda.bindings' pointer: an object with __int__
    def __init__(self, v):
        self.v = v

    def __int__(self):
        return self.v

class MemoryPointer:
    def __init__(self, pointer, size):
        self.device_pointer = pointer
        self.size = size
    @property
    def device_ctypes_pointer(self):
        return ctypes.c_size_t(int(self.device_pointer))

class AutoFreePointer(MemoryPointer):
    pass

class OwnedPointer:
    def __init__(self, memptr, view=None):
        self._mem = memptr
        self._view = memptr if view is None else view
        self.device_ctypes_pointer = self._view.device_ctypes_pointer
    def __getattr__(self, fname):
        return getattr(self._view, fname)

def is_contiguous(ary):
    size = ary.dtype.itemsize
    for shape, stride in zip(reversed(ary.shape), reversed(ary.strides)):
        if shape > 1 and stride != 0:
            if size != stride:
                return False
            size *= shape
    return True

class DeviceNDArrayBase:
    def __init__(self, shape, strides, dtype, stream=0, gpu_data=None):
        self.shape, self.strides, self.dtype = tuple(shape), tuple(strides), np.dtype(dtype)
        self.stream, self.gpu_data, self.ndim = stream, gpu_data, len(shape)
    @property
    def __cuda_array_interface__(self):
        if (value := self.device_ctypes_pointer.value) is not None:
            ptr = value
        else:
            ptr = 0
        return {"shape": self.shape, "strides": None if is_contiguous(self) else tuple(self.strides),
                "data": (ptr, False), "typestr": self.dtype.str,
                "stream": int(stream) if (stream := self.stream) != 0 else None, "version": 3}
    @property
    def device_ctypes_pointer(self):
        try:
            return self.gpu_data.device_ctypes_pointer
        except AttributeError:
            return ctypes.c_void_p(0)

class DeviceNDArray(DeviceNDArrayBase):
    pass

for k, v in dict(MemoryPointer=MemoryPointer, AutoFreePointer=AutoFreePointer, OwnedPointer=OwnedPointer).items():
    setattr(drv, k, v)
for k, v in dict(DeviceNDArrayBase=DeviceNDArrayBase, DeviceNDArray=DeviceNDArray, is_contiguous=is_contiguous).items():
    setattr(arr, k, v)
# The packages above them too, as a real numba-cuda's import leaves them (Python 3.13's import of a dotted name
# looks its parents up: without them the reader's resolution finds no module and declines every array).
for parent in ("numba", "numba.cuda", "numba.cuda.cudadrv"):
    if parent not in sys.modules:
        package = types.ModuleType(parent)
        package.__path__ = []
        sys.modules[parent] = package
sys.modules["numba.cuda.cudadrv.driver"] = drv
sys.modules["numba.cuda.cudadrv.devicearray"] = arr
sys.modules["numba.cuda.cudadrv"].driver = drv
sys.modules["numba.cuda.cudadrv"].devicearray = arr
