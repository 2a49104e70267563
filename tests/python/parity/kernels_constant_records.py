"""Structured NumPy arrays bound outside the kernel, read through cuda.const.array_like (numba-cuda's
test_constmem record cases): packed and aligned records in constant memory, and an empty one; compared value
for value with numba-cuda's."""
import numpy as np
from numba import cuda

from .cases import case

CONST_RECORD_EMPTY = np.array([], dtype=[("x", float), ("y", int)])
CONST_RECORD = np.array([(1.0, 2), (3.0, 4)], dtype=[("x", float), ("y", int)])
CONST_RECORD_ALIGN = np.array(
    [(1, 2, 3, 0xDEADBEEF, 8), (4, 5, 6, 0xBEEFDEAD, 10)],
    dtype=np.dtype([("a", np.uint8), ("b", np.uint8), ("x", np.uint8), ("y", np.uint32), ("z", np.uint8)],
                   align=True))


def const_record_empty(out):
    c = cuda.const.array_like(CONST_RECORD_EMPTY)
    i = cuda.grid(1)
    out[i] = len(c)


def const_record(a, b):
    c = cuda.const.array_like(CONST_RECORD)
    i = cuda.grid(1)
    a[i] = c[i]["x"]
    b[i] = c[i]["y"]


def const_record_align(a, b, c, d, e):
    z = cuda.const.array_like(CONST_RECORD_ALIGN)
    i = cuda.grid(1)
    a[i] = z[i]["a"]
    b[i] = z[i]["b"]
    c[i] = z[i]["x"]
    d[i] = z[i]["y"]
    e[i] = z[i]["z"]


case(const_record_empty, lambda: [np.ones(2, np.float64)], grid=1, block=2)
case(const_record, lambda: [np.zeros(2, np.float64), np.zeros(2, np.int64)], grid=1, block=2)
case(const_record_align, lambda: [np.zeros(2, np.float64) for _ in range(5)], grid=1, block=2)
