"""What a hand-written DLPack producer builds, for the atheris fuzzers: the ctypes layouts of DLPack 1.x
(dlpack.h: DLTensor, DLManagedTensor, DLManagedTensorVersioned and the 1.3 exchange table), capsules, a
counting deleter, and tensors filled from the fuzzer's bytes."""
import ctypes


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32), ("dtype", DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    pass


DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", DELETER)]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("version", DLPackVersion), ("manager_ctx", ctypes.c_void_p), ("deleter", DELETER),
                ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]


class Header(ctypes.Structure):
    pass


Header._fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32), ("prev_api", ctypes.POINTER(Header))]

INT = ctypes.c_int
ALLOCATOR = ctypes.CFUNCTYPE(INT, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)
FROM_PY = ctypes.CFUNCTYPE(INT, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p))
TO_PY = ctypes.CFUNCTYPE(INT, ctypes.c_void_p, ctypes.c_void_p)
DLTENSOR_FROM_PY = ctypes.CFUNCTYPE(INT, ctypes.c_void_p, ctypes.POINTER(DLTensor))
WORK_STREAM = ctypes.CFUNCTYPE(INT, ctypes.c_int32, ctypes.c_int32, ctypes.POINTER(ctypes.c_void_p))


class ExchangeTable(ctypes.Structure):
    _fields_ = [("header", Header), ("allocator", ALLOCATOR), ("from_py", FROM_PY), ("to_py", TO_PY),
                ("dltensor_from_py", DLTENSOR_FROM_PY), ("work_stream", WORK_STREAM)]


_new = ctypes.pythonapi.PyCapsule_New
_new.restype, _new.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]


def capsule(address: int, name: bytes, keep: list):
    """A capsule named `name` holding `address`, with no destructor; `keep` holds the name's buffer."""
    buf = ctypes.create_string_buffer(name)
    keep.append(buf)
    return _new(address, ctypes.cast(buf, ctypes.c_char_p), None)


BASE = 0x7F0000000000
DEVICE_TYPES = [2, 2, 2, 1, 3, 13, 4, 0, -1, 2**31 - 1]  # CUDA mostly; CPU, CUDAHost, CUDAManaged, OpenCL...
deleted = {}  # address of a managed tensor -> times its deleter ran


@DELETER
def count_deleter(address):
    deleted[address] = deleted.get(address, 0) + 1


def fill_tensor(v, t, keep: list):
    """Every field of the DLTensor `t` from `v` (a glue_values.Values); arrays it points to go into `keep`."""
    t.data = BASE + 256 * v.int(0, 16) if not v.chance(8) else v.pick([0, 1, 2**64 - 8])
    t.device.device_type = v.pick(DEVICE_TYPES)
    t.device.device_id = v.pick([0, 0, 0, 1, -1, 2**31 - 1])
    t.ndim = v.int(0, 5) if not v.chance(10) else v.pick([-1, 33, 1000, 2**31 - 1])
    n = max(0, min(t.ndim, 64))  # a producer whose arrays are shorter than ndim lies past any check
    if not v.chance(12):
        shape = (ctypes.c_int64 * max(n, 1))(*[v.int(0, 6) if not v.chance(10) else v.pick([-1, 2**62, 2**63 - 1])
                                            for _ in range(max(n, 1))])
        keep.append(shape)
        t.shape = ctypes.cast(shape, ctypes.POINTER(ctypes.c_int64))
    if v.chance(2):
        strides = (ctypes.c_int64 * max(n, 1))(*[v.int(-8, 64) if not v.chance(10) else v.pick([2**62, -(2**62)])
                                              for _ in range(max(n, 1))])
        keep.append(strides)
        t.strides = ctypes.cast(strides, ctypes.POINTER(ctypes.c_int64))
    t.dtype.code = v.pick([0, 1, 2, 5, 6, 4, 7, 3, 255])  # int, uint, float, complex, bool, bfloat, float8...
    t.dtype.bits = v.pick([8, 16, 32, 64, 128, 1, 4, 0, 3, 255])
    t.dtype.lanes = v.pick([1, 1, 1, 0, 2, 65535])
    t.byte_offset = v.pick([0, 0, 0, 4, 8, 2**63, 2**64 - 1])
