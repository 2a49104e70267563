"""atheris fuzzer: 'descr' lists (NumPy's structured-type grammar, CAI v3 "descr") through both readers:
a CAI dict's 'descr' and device_array's descr (cubridge._core._empty), checked against NumPy itself.

Differential rule: when NumPy builds a dtype from the list and every leaf typestr is one cubridge reads,
cubridge must accept the list with a typestr of NumPy's itemsize ('|V<n>'), and refuse it with any other
itemsize. Hostile lists (self-containing, deeply nested, hooks that empty them) must end in an error.
Usage: python fuzz_descr.py [libFuzzer flags] [corpus dirs]"""
import atheris

# Python coverage: cubridge's package and the input builders (which branch on the fuzzer's bytes, so an
# input that builds a new shape of value is kept); the glue itself is C++, reached through them.
with atheris.instrument_imports(include=["cubridge", "glue_values", "dlpack_producers"]):
    import cubridge
    import glue_values  # noqa: F401

import numpy as np

from glue_values import EXPECTED, Hook, Values, run

BASE = 0x7F0000000000
READABLE = {"<f4", "<f8", "<f2", "|u1", "|i1", "<i2", "<i4", "<i8", "<u2", "<u4", "<u8", "|b1", "<c8", "<c16",
            ">f4", ">i8", "=f4", "|V8", "|V16", "|V3"}  # NumPy also reads 'f4'; the interface's typestr has a byte order


def plain(descr, depth=0) -> bool:
    """Whether the list is made of plain values only (no hooks, no self-reference) with readable leaves."""
    if depth > 8 or not isinstance(descr, list):
        return False
    for f in descr:
        if not isinstance(f, tuple) or len(f) not in (2, 3):
            return False
        if isinstance(f[1], list):
            if not plain(f[1], depth + 1):
                return False
        elif f[1] not in READABLE:
            return False
        if len(f) == 3 and not (type(f[2]) is int or (type(f[2]) is tuple and all(type(e) is int for e in f[2]))):
            return False
    return True


def through_cai(descr, itemsize: int):
    d = {"version": 3, "shape": (2,), "typestr": f"|V{itemsize}", "data": (BASE, False), "descr": descr}
    return cubridge.from_cuda_array_interface(d, sync=False)


def through_empty(descr, itemsize: int):
    return cubridge._core._empty((2,), f"|V{itemsize}", "C", None, descr)


def test_one_input(data: bytes):
    v = Values(data)
    descr = v.descr()
    reader = v.pick([through_cai, through_empty])
    numpy_size = None
    if plain(descr):
        try:
            numpy_size = np.dtype(descr).itemsize
        except (TypeError, ValueError, RecursionError):
            numpy_size = None
    guess = numpy_size if numpy_size is not None and not v.chance(4) else v.int(0, 64)
    try:
        reader(descr, guess)
    except cubridge.CudaError:
        pass  # the descr passed; allocation needs a GPU
    except EXPECTED as e:
        if numpy_size is not None and guess == numpy_size and numpy_size > 0:
            raise AssertionError(f"NumPy reads {descr!r} as {numpy_size} bytes; cubridge refused: {e}") from e
        return
    else:
        if numpy_size is not None and guess != numpy_size:
            raise AssertionError(f"NumPy reads {descr!r} as {numpy_size} bytes; cubridge took {guess}")
        return
    if numpy_size is not None and guess != numpy_size:
        raise AssertionError(f"NumPy reads {descr!r} as {numpy_size} bytes; cubridge took {guess}")


if __name__ == "__main__":
    run(test_one_input, globals())
