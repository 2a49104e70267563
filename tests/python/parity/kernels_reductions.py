"""NumPy's whole-array reductions in kernels (issue 21, test_array_reductions): np.all, any, sum, mean, var,
std, min, max, nanmin, nanmax, nansum, nanprod, nanmean and count_nonzero of 1-d, 2-d and strided arrays
of float64, int32 and bool, and of a module tuple of NumPy arrays of different ranks and dtypes iterated
with literal_unroll (numba-cuda freezes the arrays into the code). One thread computes every reduction;
numba-cuda walks the elements in C order with the same accumulator, so results match bit for bit. numba-cuda
compiles np.min/np.max only with its runtime (NRT) enabled: these are NRT cases (numba_compat/test_nrt_parity_gpu.py)."""
import numpy as np
from numba import cuda

try:  # numba-cuda 0.30's own; plain numba's where numba-cuda is not installed
    from numba.cuda.misc.special import literal_unroll
except ImportError:
    from numba import literal_unroll

from .cases import nrt_case

FLOATS = np.array([1.5, -0.0, 2.25, np.inf, -7.0, 0.0, 3.125, -1.0, 0.5, 4.0, -2.5, 8.0])
WITH_NAN = np.array([np.nan, -1.5, 2.5, np.nan, 3.0, -0.0, 0.0, 9.5])
INTS = np.array([3, -7, 0, 12, 5, 0, -1, 4], dtype=np.int32)
BOOLS = np.array([True, False, True, True, False, False])
CAPTURED = (
    np.float64([1.0, 2.0, 0.0, -0.0, 1.0, -1.5]),
    np.float64([[1.0, 1.5], [float("inf"), float("nan")]]),
    np.float64([[0.0, -0.0], [1.5, 0.0]])[::-1],
    np.int64([[1, 0, 2], [0, 3, 0]]),
    np.array([True, False, True]),
    np.float32([0.5, -2.0, 7.25]),
)


@cuda.jit(device=True)
def _all_reductions(a, out, base):
    out[base + 0] = np.all(a)
    out[base + 1] = np.any(a)
    out[base + 2] = np.sum(a)
    out[base + 3] = np.mean(a)
    out[base + 4] = np.var(a)
    out[base + 5] = np.std(a)
    out[base + 6] = np.min(a)
    out[base + 7] = np.max(a)
    out[base + 8] = np.nanmin(a)
    out[base + 9] = np.nanmax(a)
    out[base + 10] = np.nansum(a)
    out[base + 11] = np.nanprod(a)
    out[base + 12] = np.nanmean(a)
    out[base + 13] = np.count_nonzero(a)


def reductions_float64_1d(x, y, out):
    if cuda.grid(1) == 0:
        _all_reductions(x, out, 0)
        _all_reductions(y, out, 14)


nrt_case(reductions_float64_1d, lambda: [FLOATS.copy(), WITH_NAN.copy(), np.zeros(28)], grid=1, block=1, outs=[2])


def reductions_float64_2d_strided(x, out):
    if cuda.grid(1) == 0:
        _all_reductions(x, out, 0)  # 3 x 4, C order
        _all_reductions(x[::2, ::-1], out, 14)  # rows 0 and 2, columns reversed: layout 'A'
        _all_reductions(x[1:, 1:3], out, 28)  # an inner block


nrt_case(reductions_float64_2d_strided, lambda: [FLOATS.reshape(3, 4).copy(), np.zeros(42)], grid=1, block=1,
     outs=[1])


def reductions_int32_and_bool(x, b, out, counts):
    if cuda.grid(1) == 0:
        _all_reductions(x, out, 0)  # int32: sums in int64, means in float64
        out[14] = np.sum(b)  # int64
        out[15] = np.mean(b)
        out[16] = np.min(b)
        out[17] = np.max(b)
        counts[0] = np.count_nonzero(b)
        counts[1] = np.all(b)
        counts[2] = np.any(b)


nrt_case(reductions_int32_and_bool, lambda: [INTS.copy(), BOOLS.copy(), np.zeros(18), np.zeros(3, np.int64)],
     grid=1, block=1, outs=[2, 3])


def reductions_of_captured_tuple(out, counts):
    if cuda.grid(1) == 0:
        i = 0
        for a in literal_unroll(CAPTURED):
            out[i, 0] = np.sum(a)
            out[i, 1] = np.mean(a)
            out[i, 2] = np.min(a)
            out[i, 3] = np.max(a)
            out[i, 4] = np.var(a)
            counts[i, 0] = np.count_nonzero(a)
            counts[i, 1] = np.all(a)
            counts[i, 2] = np.any(a)
            counts[i, 3] = a.size
            i += 1
        counts[len(CAPTURED), 0] = len(CAPTURED)
        out[len(CAPTURED), 0] = CAPTURED[3][1, 1] + CAPTURED[-1][2]


nrt_case(reductions_of_captured_tuple, lambda: [np.zeros((7, 5)), np.zeros((7, 4), np.int64)], grid=1, block=1)


@cuda.jit(device=True)
def _methods(a, out, idx, k):
    out[k + 0] = a.sum()
    out[k + 1] = a.prod()
    out[k + 2] = a.mean()
    out[k + 3] = a.var()
    out[k + 4] = a.std()
    out[k + 5] = a.min()
    out[k + 6] = a.max()
    out[k + 7] = np.amin(a)
    out[k + 8] = np.prod(a)
    idx[k + 0] = a.argmin()
    idx[k + 1] = a.argmax()
    idx[k + 2] = np.argmin(a)
    idx[k + 3] = a.all()
    idx[k + 4] = a.any()


def reduction_methods(x, n, out, idx):
    """The reductions as array methods (a.sum(), ...) and np.prod/argmin/argmax/amin/amax, on a 2-d float64
    array with a NaN, its strided view, and an int32 array with ties."""
    if cuda.grid(1) == 0:
        _methods(x, out, idx, 0)
        _methods(x[::2, ::-1], out, idx, 9)
        idx[18] = n.argmin()
        idx[19] = n.argmax()
        idx[20] = n.prod()
        idx[21] = n.sum()
        out[18] = n.mean()


nrt_case(reduction_methods, lambda: [np.where(FLOATS == -7.0, np.nan, FLOATS).reshape(3, 4).copy(),
                                     np.array([[3, -7, 0], [12, -7, 12]], dtype=np.int32), np.zeros(19),
                                     np.zeros(22, np.int64)], grid=1, block=1, outs=[2, 3])
