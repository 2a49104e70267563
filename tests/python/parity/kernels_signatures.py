"""Signatures as numba writes them (issue 12, item 9): numba's array type objects (float32[:],
float32[:, ::1], types.Array(..., 'C'), readonly arrays), numba.void(...) signatures, numba.types scalars,
given to both compilers' jit as the eager signature."""
import numba
import numpy as np
from numba import cuda, types

from .cases import case, rng

N = 256
ROWS, COLS = 16, 16


def scale_rows(m, factors, out):
    i, j = cuda.grid(2)
    if i < out.shape[0] and j < out.shape[1]:
        out[i, j] = m[i, j] * factors[i]


case(scale_rows, lambda: [rng().random((ROWS, COLS), np.float32), rng(3).random(ROWS, np.float32),
                          np.zeros((ROWS, COLS), np.float32)],
     sig=numba.void(numba.float32[:, ::1], numba.float32[::1], numba.float32[:, ::1]),
     grid=(1, 1), block=(ROWS, COLS), outs=[2])


def axpy_typed(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


case(axpy_typed, lambda: [np.float64(1.5), rng().random(N), rng(5).random(N), np.zeros(N)],
     sig=numba.void(types.float64, types.Array(types.float64, 1, "C", readonly=True),
                    types.Array(types.float64, 1, "A"), numba.float64[:]),
     grid=N // 64, block=64, outs=[3])


def count_positive(x, n, out):
    i = cuda.grid(1)
    if i < n and x[i] > 0:
        cuda.atomic.add(out, 0, 1)


case(count_positive, lambda: [rng().uniform(-1, 1, N).astype(np.float32), np.int32(N), np.zeros(1, np.int32)],
     sig=numba.void(numba.float32[:], numba.int32, numba.int32[::1]), grid=N // 64, block=64, outs=[2])
