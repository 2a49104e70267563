"""atheris fuzzer: DLPack 1.3 C exchange tables (`__dlpack_c_exchange_api__`) from a hand-written producer,
through both consumer paths: the Python import (as_cuda_array: an owned managed tensor) and the C API
(cubridge._core._c_import: a borrowed DLTensor). Tables with any version and prev_api chain, null or
failing functions, functions that fail without setting a Python error, and tensors with any fields; the
published object that is not a capsule, or a capsule of another name. Rule beyond "no crash": an owned
tensor's deleter runs at most once. Usage: python fuzz_exchange.py [libFuzzer flags] [corpus dirs]"""
import ctypes

import atheris

# Python coverage: cubridge's package and the input builders (which branch on the fuzzer's bytes, so an
# input that builds a new shape of value is kept); the glue itself is C++, reached through them.
with atheris.instrument_imports(include=["cubridge", "glue_values", "dlpack_producers"]):
    import cubridge
    import glue_values  # noqa: F401

from dlpack_producers import (ALLOCATOR, DLManagedTensorVersioned, DLTENSOR_FROM_PY, FROM_PY, TO_PY, WORK_STREAM,
                              ExchangeTable, Header, capsule, count_deleter, deleted, fill_tensor)
from glue_values import EXPECTED, Values, run


def _fails(*args):
    return -1


def _fails_with_error(*args):
    ctypes.pythonapi.PyErr_SetString(ctypes.py_object(ValueError), b"the producer's own error")
    return -1


def build(v: Values, keep: list):
    """(the object to import, the address of the managed tensor its table hands out)."""
    t = ExchangeTable()
    t.header.major, t.header.minor = v.pick([1, 1, 1, 0, 2]), v.pick([3, 3, 0, 9])
    if v.chance(8):  # an older table first in the chain, or a chain that loops
        older = Header(v.pick([1, 0, 2]), 3)
        older.prev_api = ctypes.pointer(t.header) if v.chance(2) else None
        keep.append(older)
        t.header.prev_api = ctypes.pointer(older)
    mt = DLManagedTensorVersioned()
    mt.version.major, mt.version.minor = v.pick([1, 1, 0, 2]), v.int(0, 3)
    mt.flags = v.pick([0, 1, 2])
    mt.deleter = count_deleter
    fill_tensor(v, mt.dl_tensor, keep)
    keep.append(mt)
    mode = v.int(0, 3)

    def from_py(obj, out):
        if mode == 1:
            return -1  # without an error set
        out[0] = ctypes.addressof(mt)
        return 0

    def dltensor_from_py(obj, out):
        if mode == 2:
            return -1
        ctypes.memmove(out, ctypes.addressof(mt.dl_tensor), ctypes.sizeof(mt.dl_tensor))
        return 0

    stream_value = v.pick([None, 0, 1, 2, 0x1234])

    def work_stream(device_type, device_id, out):
        out[0] = stream_value
        return -1 if mode == 3 else 0
    fns = {"allocator": ALLOCATOR(_fails), "from_py": FROM_PY(from_py) if not v.chance(10) else FROM_PY(_fails_with_error),
           "to_py": TO_PY(_fails), "dltensor_from_py": DLTENSOR_FROM_PY(dltensor_from_py),
           "work_stream": WORK_STREAM(work_stream)}
    for name, fn in fns.items():
        if not v.chance(12):
            setattr(t, name, fn)  # else NULL
        keep.append(fn)
    keep.append(t)
    name = b"dlpack_exchange_api" if not v.chance(8) else v.pick([b"dltensor", b"", b"dlpack_exchange_api\x00x"])
    published = capsule(ctypes.addressof(t), name, keep) if not v.chance(10) else \
        v.pick([12345, -5, "table", None, ctypes.addressof(t)])
    producer = type("Producer", (), {"__dlpack_c_exchange_api__": published})()
    return producer, ctypes.addressof(mt)


def test_one_input(data: bytes):
    v = Values(data)
    keep = []
    obj, address = build(v, keep)
    deleted.pop(address, None)
    try:
        if v.chance(2):
            a = cubridge.as_cuda_array(obj, sync=False)
        else:
            a = cubridge._core._c_import(obj, v.pick([0, 1, 2, 3]), v.pick([0, 1, 2]))
    except EXPECTED:
        a = None
    del a
    assert deleted.get(address, 0) <= 1, f"the deleter ran {deleted[address]} times"
    deleted.pop(address, None)


if __name__ == "__main__":
    run(test_one_input, globals())
