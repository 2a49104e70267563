"""bfloat16 arrays as kernel arguments, without a GPU (numba-cuda's typing of ml_dtypes.bfloat16 arrays).

The rules, one test each:
- a NumPy array of ml_dtypes.bfloat16 (typestr '<V2', no fields) is typed array(bfloat16, Nd, layout), as
  numba-cuda's FROM_DTYPE[np.dtype(ml_dtypes.bfloat16)] = bfloat16 types it; from_dtype/as_type read the
  dtype and the class the same way;
- a DLPack producer of kDLBfloat/16 (what torch.bfloat16 and CuPy's bfloat16 arrays export) is typed
  array(bfloat16, ...); kDLBfloat of other widths is refused by name;
- a bare '<V2' (a CAI without a dtype that says bfloat16, a NumPy void array) stays opaque bytes and is refused
  by name, as numba-cuda refuses it; a structured 2-byte dtype stays a record;
- bfloat16[:] spells an array type; a bfloat16 array's elements load and store as bfloat16, and a store of a
  float64/int64 into one converts as numba-cuda's setitem does (cuda_bf16's conversions);
- int64 * bfloat16 is float64 (numba's ranking over cuda_bf16's template, which holds numba's BinOp cases),
  so numba-cuda's test_cupy_bfloat16_interop kernel compiles to float64 arithmetic and one rounding to
  bfloat16 at the store; ml_dtypes.bfloat16(x) in a kernel is the bfloat16 constructor.
Values on the GPU (torch.bfloat16, CuPy + ml_dtypes, NumPy + ml_dtypes) are in test_jit_bf16_arrays_gpu.py."""
import ctypes

import numpy as np
import pytest

import cubridge
from cubridge import _types

ml_dtypes = pytest.importorskip("ml_dtypes")

CC = (9, 0)


def test_numpy_ml_dtypes_arrays_are_bfloat16_arrays():
    a = np.asarray([1, 2, 3], dtype=ml_dtypes.bfloat16)
    assert a.__array_interface__["typestr"] == "<V2"  # what NumPy says; the dtype object says bfloat16
    assert cubridge.typeof(a) == "array(bfloat16, 1d, C)"
    assert cubridge.typeof(a) == "bfloat16[::1]"
    assert cubridge.typeof(np.zeros((3, 4), dtype=ml_dtypes.bfloat16).T) == "array(bfloat16, 2d, F)"
    assert cubridge.typeof(np.zeros(8, dtype=ml_dtypes.bfloat16)[::2]) == "array(bfloat16, 1d, A)"
    ro = np.zeros(4, dtype=ml_dtypes.bfloat16)
    ro.flags.writeable = False
    assert cubridge.typeof(ro) == "readonly array(bfloat16, 1d, C)"


def test_dtype_and_class_read_as_bfloat16():
    assert cubridge.Type.from_dtype(np.dtype(ml_dtypes.bfloat16)) == "bfloat16"
    assert cubridge.Type.from_dtype(ml_dtypes.bfloat16) == "bfloat16"
    assert cubridge.Type.parse("bfloat16") == _types.as_type(ml_dtypes.bfloat16)


class _DLDevice(ctypes.Structure):  # dlpack.h's layouts, for a producer without a GPU
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32), ("dtype", _DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class _DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.CFUNCTYPE(None, ctypes.c_void_p))]


class DLPackBFloat:
    """A CUDA DLPack producer (legacy 'dltensor' capsule, no deleter) of kDLBfloat (code 4) at a fake address:
    what typeof reads, without touching the memory."""

    def __init__(self, n, bits=16):
        self.shape = (ctypes.c_int64 * 1)(n)
        self.managed = _DLManagedTensor()
        self.managed.dl_tensor = _DLTensor(0x7F0000000000, _DLDevice(2, 0), 1, _DLDataType(4, bits, 1), self.shape,
                                           None, 0)

    def __dlpack_device__(self):
        return (2, 0)

    def __dlpack__(self, stream=None, max_version=None, **kw):
        new = ctypes.pythonapi.PyCapsule_New
        new.restype, new.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
        return new(ctypes.addressof(self.managed), b"dltensor", None)


def test_dlpack_bfloat_producers_are_bfloat16_arrays():
    assert cubridge.typeof(DLPackBFloat(8)) == "array(bfloat16, 1d, C)"
    with pytest.raises(ValueError, match=r"DLPack dtype \(code 4, bits 32, lanes 1\) has no NumPy typestr: bfloat has "
                                         r"16 bits only"):
        cubridge.typeof(DLPackBFloat(8, bits=32))


class BareV2:
    """A CAI producer whose typestr is '<V2' with no descr and no dtype: opaque bytes, not bfloat16."""

    def __init__(self):
        self.__cuda_array_interface__ = {"shape": (0,), "typestr": "<V2", "data": (0, False), "version": 3,
                                         "strides": None, "stream": None}


def test_a_bare_v2_stays_opaque_and_is_refused_by_name():
    with pytest.raises(TypeError, match=r"typestr '<V2' without fields"):
        cubridge.typeof(BareV2())
    with pytest.raises(TypeError, match=r"'\|V2' without fields"):
        cubridge.typeof(np.zeros(4, dtype="V2"))


def test_a_two_byte_record_stays_a_record():
    rec = np.zeros(4, dtype=np.dtype([("a", np.int8), ("b", np.uint8)]))
    assert cubridge.typeof(rec).dtype.kind == "record"


def test_bfloat16_array_spelling():
    t = cubridge.Type.parse("bfloat16[::1]")
    assert t == "array(bfloat16, 1d, C)"
    assert t.dtype == "bfloat16"


def copy_twice(src, dst):
    i = cubridge.grid(1)
    if i < src.size:
        dst[i] = src[i] + src[i]


def test_elements_load_and_store_as_bfloat16():
    ptx, _ = cubridge.compile_ptx(copy_twice, "void(bfloat16[::1], bfloat16[::1])", cc=CC)
    assert "ld.global.u16" in ptx or "ld.global.b16" in ptx
    assert "st.global.u16" in ptx or "st.global.b16" in ptx or "st.global.v" not in ptx
    assert "add.bf16" in ptx  # bfloat16 + bfloat16 is cuda_bf16's __hadd (sm_90)
    assert cubridge.ptxas_check(ptx, CC)


def store_numbers(out, x, n):
    out[0] = x  # float64 -> bfloat16
    out[1] = n  # int64 -> bfloat16


def test_storing_numbers_converts_as_numba_cuda():
    ptx, _ = cubridge.compile_ptx(store_numbers, "void(bfloat16[::1], float64, int64)", cc=CC)
    assert "cvt.rn.bf16.f32" in ptx  # one rounding to bfloat16, after an exact-enough float32 (round to odd)
    assert cubridge.ptxas_check(ptx, CC)


def store_bool(out, b):
    out[0] = b


def test_storing_a_bool_is_refused_as_numba_cuda_refuses_it():
    with pytest.raises(cubridge.CompileError, match=r"cannot store a value of type bool into an element of"):
        cubridge.compile_ptx(store_bool, "void(bfloat16[::1], bool)", cc=CC)


def cupy_interop_kernel(arr_in, arr_in2, arr_out):
    # numba-cuda's test_cupy_bfloat16_interop kernel, verbatim
    tid = cubridge.grid(1)
    if tid < arr_in.size:
        arr_out[tid] = 2 * arr_in[tid] + 4 * arr_in2[tid] + ml_dtypes.bfloat16(3.0)


def test_the_numba_cuda_interop_kernel_compiles_to_float64_arithmetic():
    bf = np.zeros(5, dtype=ml_dtypes.bfloat16)
    sig = (cubridge.typeof(bf), cubridge.typeof(np.arange(5)), cubridge.typeof(bf))
    ptx, _ = cubridge.compile_ptx(cupy_interop_kernel, sig, cc=CC)
    # 2 * bfloat16 -> float64 * float64; + int64 -> float64; + bfloat16(3.0) -> float64; one store conversion
    assert "mul.f64" in ptx or "mul.rn.f64" in ptx or "add.f64" in ptx or "add.rn.f64" in ptx
    assert "cvt.f64.f32" in ptx  # a bfloat16 widened to float64 through float32
    assert "cvt.rn.bf16.f32" in ptx
    assert cubridge.ptxas_check(ptx, CC)


def test_bfloat16_arrays_need_compute_capability_8():
    with pytest.raises(cubridge.CompileError, match=r"an element of a bfloat16 array: bfloat16 needs compute "
                                                    r"capability 8.0 or higher"):
        cubridge.compile_ptx(copy_twice, "void(bfloat16[::1], bfloat16[::1])", cc=(7, 5))
