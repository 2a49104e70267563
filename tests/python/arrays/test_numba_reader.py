"""numba-cuda's DeviceNDArray read through the attributes its `__cuda_array_interface__` property reads
(python/src/py_numba_reader.hpp), proved equal to the property on a stand-in of numba-cuda 0.30's classes
(numba_devicearray_standin.py): every layout, empty and 0-d arrays, each memory class the property knows
(MemoryPointer and its subclasses, OwnedPointer over a weak proxy as numba's allocations are), and the cases the
reader leaves to the property (a bound stream, another memory class, a subclass, a record dtype, a class whose
property was replaced). Each case runs in a process of its own: the stand-in registers numba-cuda's module
names, which the reader resolves once per process. The same comparison on real numba-cuda arrays is in
test_arrays_import_gpu.py."""
import os
import subprocess
import sys
import textwrap

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))

PRELUDE = """
import weakref
import numpy as np
import numba_devicearray_standin as nd
import cubridge

try:  # where a driver is usable every imported pointer is checked: the middle of a real allocation
    _KEEP = cubridge.device_array(1 << 20, "u1")
    ADDRESS = _KEEP.ptr + (1 << 19)
except Exception:  # no GPU here: a made-up address nothing dereferences
    ADDRESS = 0x7F0000001000

def pointer(kind, address=ADDRESS):
    mem = nd.AutoFreePointer(nd.CUdeviceptr(address), 1 << 20)
    if kind == "owned":
        return nd.OwnedPointer(weakref.proxy(mem))
    return mem if kind == "auto" else nd.MemoryPointer(nd.CUdeviceptr(address), 1 << 20)

def array(shape, strides, dtype="f4", kind="owned", stream=0, cls=nd.DeviceNDArray):
    return cls(shape, strides, dtype, stream=stream, gpu_data=pointer(kind))

def same(a):
    fast = cubridge.as_cuda_array(a).__cuda_array_interface__
    slow = cubridge.from_cuda_array_interface(a.__cuda_array_interface__, a).__cuda_array_interface__
    assert fast == slow, (fast, slow)
    return fast
"""


def run(body: str) -> str:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([HERE, *sys.path]))
    code = textwrap.dedent(PRELUDE) + textwrap.dedent(body)
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-3000:]
    return r.stdout


CASES = {
    "C": "array((4, 6), (24, 4))",
    "F": "array((4, 6), (4, 16))",
    "sliced": "array((4, 3), (24, 8))",
    "reversed": "array((5,), (-4,))",
    "extent 1 with any stride": "array((1, 6), (999, 4))",
    "broadcast stride 0": "array((4, 6), (0, 4))",
    "0-d": "array((), ())",
    "empty": "array((0, 3), (12, 4))",
    "float64 3-d": "array((2, 3, 4), (96, 32, 8), 'f8')",
    "complex128": "array((3,), (16,), 'c16')",
    "bool": "array((7,), (1,), '?')",
    "MemoryPointer": "array((8,), (4,), kind='plain')",
    "AutoFreePointer": "array((8,), (4,), kind='auto')",
}


@pytest.mark.parametrize("case", CASES)
def test_the_reader_equals_the_property(case):
    out = run(f"""
        a = {CASES[case]}
        assert cubridge._core._import_route(a) == "numba"
        same(a)
        memo = cubridge._core._import_memo()
        assert memo["kept"] == 1, memo  # the reader made it (the property's path keeps nothing)
        same(a)
        print("ok")
    """)
    assert out.strip() == "ok"


def test_the_memo_finds_a_numba_array_by_its_shape_and_strides_tuples():
    """The memo holds the tuples the reader read and compares them by identity: the same tuples are a hit,
    new ones (other values, or equal values in a new tuple) a miss that reads them again."""
    out = run("""
        a = array((4, 6), (24, 4))
        memo = cubridge._core._import_memo
        same(a)
        hits = memo()["hits"]
        same(a)
        assert memo()["hits"] == hits + 1  # the same tuple objects
        kept = memo()["kept"]
        a.shape, a.strides = (6, 4), (16, 4)  # another layout over the same memory
        assert same(a)["shape"] == (6, 4)
        assert memo()["kept"] == kept + 1
        a.shape = tuple([6, 4])  # equal values, a new tuple: read again, the same view
        assert same(a)["shape"] == (6, 4)
        assert memo()["kept"] == kept + 2
        print("ok")
    """)
    assert out.strip() == "ok"


def test_a_lazy_launch_takes_the_specialization_of_an_arrays_facts_as_they_are_now():
    """A lazy launch keeps the key facts of each position's view while that view comes back unchanged: the same numba
    array object given with another layout, dtype or rank between launches is another view, and takes the
    specialization of what it is now (a launch needs a driver: NVIDIA's, or the host stand-in's)."""
    out = run("""
        try:
            cubridge.device_array(1, "u1")
        except Exception:
            print("no driver")
            raise SystemExit
        def k(a):
            pass
        d = cubridge.jit(k)
        a = array((4, 6), (24, 4))
        for layout in ((4, 6), (24, 4)), ((6, 4), (4, 24)), ((24,), (4,)), ((4, 6), (24, 4)):
            a.shape, a.strides = layout
            d[1, 1](a)
            d[1, 1](a)  # again unchanged
        a.dtype = np.dtype("f8")
        a.shape, a.strides = (12,), (8,)
        d[1, 1](a)
        hits, misses, entries = d._launch_cache_stats
        assert (misses, entries) == (4, 4), d._launch_cache_stats  # C, F, 1-d, float64: one each
        assert hits == 5, d._launch_cache_stats
        print(sorted(str(t) for sig in d.overloads for t in sig.args))
    """)
    if out.strip() == "no driver":
        pytest.skip("a launch needs a driver (NVIDIA's or the host stand-in's)")
    assert out.strip() == str(sorted(["array(float32, 2d, C)", "array(float32, 2d, F)", "array(float32, 1d, C)",
                                      "array(float64, 1d, C)"])), out


def test_the_pointer_is_read_from_the_ctypes_object_as_its_value_says():
    """The reader reads an OwnedPointer's ctypes integer (numba's c_size_t) from the object, which it trusts only
    for the exact types whose value read back from decoys: a value assigned in place is read afresh (also where
    the reader finds the array's and the memory's dicts unchanged and reuses what it read from them), a null
    c_void_p is the property's 0, and a ctypes subclass (whose `.value` may be its own) is asked its `.value`."""
    out = run("""
        import ctypes
        a = array((8,), (4,))
        word = a.gpu_data.device_ctypes_pointer
        assert type(word) is ctypes.c_size_t
        assert same(a)["data"][0] == ADDRESS
        word.value = ADDRESS + 256  # the same object, another address: not the memo's view
        assert same(a)["data"][0] == ADDRESS + 256
        a.gpu_data.device_ctypes_pointer = ctypes.c_void_p(ADDRESS + 512)
        assert same(a)["data"][0] == ADDRESS + 512
        assert same(a)["data"][0] == ADDRESS + 512  # read again, both dicts unchanged
        a.gpu_data = pointer("owned", ADDRESS + 1024)  # another memory object
        assert same(a)["data"][0] == ADDRESS + 1024
        a.gpu_data.device_ctypes_pointer.value = ADDRESS + 2048
        assert same(a)["data"][0] == ADDRESS + 2048
        a.dtype = np.dtype("i4")
        assert same(a)["typestr"] == "<i4"
        class Offset(ctypes.c_size_t):
            pass
        a.gpu_data.device_ctypes_pointer = Offset(ADDRESS + 768)
        assert same(a)["data"][0] == ADDRESS + 768
        empty = array((0,), (4,))
        empty.gpu_data.device_ctypes_pointer = ctypes.c_void_p(None)
        assert same(empty)["data"][0] == 0
        a.gpu_data = pointer("owned", ADDRESS + 2048)
        class Other(nd.OwnedPointer):  # another memory class, given to the same object: its dict is unchanged
            @property
            def device_ctypes_pointer(self):
                return ctypes.c_size_t(ADDRESS + 4096)
        assert same(a)["data"][0] == ADDRESS + 2048
        a.gpu_data.__class__ = Other
        assert same(a)["data"][0] == ADDRESS + 4096
        print("ok")
    """)
    assert out.strip() == "ok"


LEFT_TO_THE_PROPERTY = {
    "bound stream": "array((8,), (4,), stream=5)",
    "record dtype": "array((3,), (8,), np.dtype([('x', '<f4'), ('y', '<i4')]))",
    "another memory class": "nd.DeviceNDArray((8,), (4,), 'f4', gpu_data=type('Mine', (), {'device_ctypes_pointer': "
                            "property(lambda self: __import__('ctypes').c_size_t(ADDRESS))})())",
    "no memory": "nd.DeviceNDArray((0,), (4,), 'f4', gpu_data=None)",
}


@pytest.mark.parametrize("case", LEFT_TO_THE_PROPERTY)
def test_what_the_reader_leaves_to_the_property_reads_the_same(case):
    out = run(f"""
        a = {LEFT_TO_THE_PROPERTY[case]}
        same(a)
        print(cubridge._core._import_memo()["kept"])
    """)
    assert out.strip() == "0"


def test_subclasses_and_replaced_properties_take_the_property():
    out = run("""
        class Mine(nd.DeviceNDArray):
            pass
        a = array((8,), (4,), cls=Mine)
        print(cubridge._core._import_route(a))
        nd.DeviceNDArray.__cuda_array_interface__ = property(lambda self: {
            "shape": self.shape, "typestr": "<f4", "data": (ADDRESS + 64, False), "version": 3})
        b = array((8,), (4,))
        print(cubridge._core._import_route(b), cubridge.as_cuda_array(b).ptr == ADDRESS + 64)
    """)
    assert out.split() == ["attributes", "attributes", "True"]
