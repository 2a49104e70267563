"""cuda.local.array / cuda.shared.array with alignment=: the address each array gets, modulo its alignment
(0 when the alignment holds), for numbers and records (numba-cuda's test_array_alignment)."""
import numpy as np
from numba import cuda

from .cases import case

RECORD = np.dtype([("a", np.uint8), ("b", np.int32), ("c", np.float64)], align=False)


def aligned_addresses(out):
    i = cuda.grid(1)
    a = cuda.local.array(shape=3, dtype=np.uint8, alignment=64)
    b = cuda.local.array(shape=(2, 3), dtype=RECORD, alignment=256)
    s = cuda.shared.array(shape=5, dtype=np.uint8, alignment=128)
    t = cuda.shared.array(shape=(1, 4, 5), dtype=RECORD, alignment=16)
    a[0] = 1
    s[0] = 2
    if i == 0:
        out[0] = a.ctypes.data % 64
        out[1] = b.ctypes.data % 256
        out[2] = s.ctypes.data % 128
        out[3] = t.ctypes.data % 16
        out[4] = a[0] + s[0]


case(aligned_addresses, lambda: [np.full(5, 99, np.uint64)])


def aligned_dynamic_shared(out):
    d = cuda.shared.array(0, dtype=np.float32, alignment=256)
    d[cuda.threadIdx.x] = 1.0
    if cuda.grid(1) == 0:
        out[0] = d.ctypes.data % 256


case(aligned_dynamic_shared, lambda: [np.full(1, 99, np.uint64)], shared=32 * 4)
