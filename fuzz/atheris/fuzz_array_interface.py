"""atheris fuzzer: host arrays' `__array_interface__` dicts through a launch's argument path
(KernelSignature.pack, which reads a NumPy-like argument as a launch stages it, with no GPU).

Shapes, typestrs, data pairs and strides, well-formed or hostile, with hooks that empty the dict while it
is read. The buffer behind `data` is real host memory, so an accepted dict is packed into real words: the
packed pointer must be the one given. Usage: python fuzz_array_interface.py [libFuzzer flags] [corpus dirs]"""
import struct

import atheris

# Python coverage: cubridge's package and the input builders (which branch on the fuzzer's bytes, so an
# input that builds a new shape of value is kept); the glue itself is C++, reached through them.
with atheris.instrument_imports(include=["cubridge", "glue_values", "dlpack_producers"]):
    import cubridge
    import glue_values  # noqa: F401

import numpy as np

from glue_values import EXPECTED, Values, run

SIGNATURES = [cubridge.KernelSignature(s) for s in
              ("float32[:]", "int32[:, :]", "uint8[::1]", "float64[:, ::1]", "complex64[:]", "int16[::1, :]")]
BUFFER = np.zeros(1 << 16, np.uint8)  # the memory every dict points into (never written: pack only reads)


def interface(v: Values):
    d = {}
    v.victims.append(d)
    if not v.chance(10):
        d["shape"] = v.sequence(lambda: v.integer(0, 6))
    if not v.chance(10):
        d["typestr"] = v.text()
    if not v.chance(10):
        ptr = BUFFER.ctypes.data + 16 * v.int(0, 1024) if not v.chance(6) else v.integer(0, 2**20)
        pair = (ptr, v.flag())
        d["data"] = pair if v.chance(2) else list(pair)
        if isinstance(d["data"], list):
            v.victims.append(d["data"])
    if v.chance(2):
        d["strides"] = None if v.chance(3) else v.sequence(lambda: v.integer(-64, 64))
    if v.chance(3):
        d["version"] = v.integer(0, 4)
    if v.chance(6):
        d["descr"] = v.descr()
    return d


def test_one_input(data: bytes):
    v = Values(data)
    d = interface(v)
    sig = v.pick(SIGNATURES)

    class Host:
        __array_interface__ = d
    ptr = d.get("data", (None,))[0] if isinstance(d.get("data"), (tuple, list)) and d.get("data") else None
    try:
        packed = sig.pack(Host())
    except EXPECTED:
        return
    assert isinstance(ptr, int), (d, ptr)
    assert struct.unpack_from("<Q", packed, 32)[0] == ptr, (d, packed[:40])


if __name__ == "__main__":
    run(test_one_input, globals())
