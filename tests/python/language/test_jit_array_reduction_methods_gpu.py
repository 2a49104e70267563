"""The array reduction methods on the GPU (issue 21): a.sum(), prod, mean, var, std, min, max, argmin, argmax,
all, any and np.prod/argmin/argmax/amin/amax over run-time arrays of several ranks, layouts and dtypes, compared
with NumPy (exact for integers, bools, min/max/argmin/argmax; within rounding for float sums, as NumPy sums
pairwise and numba in C order) and with numba-cuda on the same kernel where numba-cuda is usable
(bit for bit: the same walk and accumulators)."""
import numpy as np
import pytest

import cubridge

NAMES = ["sum", "prod", "mean", "var", "std", "min", "max", "argmin", "argmax", "all", "any"]


def methods(a, out):
    out[0] = a.sum()
    out[1] = a.prod()
    out[2] = a.mean()
    out[3] = a.var()
    out[4] = a.std()
    out[5] = a.min()
    out[6] = a.max()
    out[7] = a.argmin()
    out[8] = a.argmax()
    out[9] = a.all()
    out[10] = a.any()
    out[11] = np.prod(a)
    out[12] = np.argmin(a)
    out[13] = np.argmax(a)
    out[14] = np.amin(a)
    out[15] = np.amax(a)


FLOATS = np.array([1.5, -0.5, 2.25, -7.0, 0.0, 3.125, -1.0, 0.5, 4.0, -2.5, 8.0, 1.25])
INPUTS = [
    FLOATS,
    FLOATS.reshape(3, 4),
    FLOATS.reshape(3, 4)[::2, ::-1],  # layout 'A'
    np.array([2.0, np.nan, -1.0, np.nan]),  # the first NaN decides min/max/argmin/argmax
    np.array([[3, -7, 0], [12, -7, 12]], dtype=np.int32),  # ties: the first index
    np.array([1, 2, 3, 250], dtype=np.uint8),
    np.array([True, False, True]),
    np.float32([0.5, -2.0, 7.25, 7.25]),
]


def _expected(a):
    f = {"sum": np.sum, "prod": np.prod, "mean": np.mean, "var": np.var, "std": np.std, "min": np.min,
         "max": np.max, "argmin": np.argmin, "argmax": np.argmax, "all": np.all, "any": np.any}
    got = [f[n](a.astype(np.int64) if n in ("sum", "prod") and a.dtype.kind in "iub" else a) for n in NAMES]
    return np.array(got + [got[1], got[7], got[8], got[5], got[6]], dtype=np.float64)


@pytest.mark.gpu
@pytest.mark.parametrize("a", INPUTS, ids=lambda a: f"{a.dtype}{a.shape}")
def test_methods_give_numpys_values(a):
    out = np.zeros(16)
    cubridge.jit(methods)[1, 1](a, out)
    np.testing.assert_allclose(out, _expected(a), rtol=1e-6, equal_nan=True)
    np.testing.assert_array_equal(out[[5, 6, 7, 8, 9, 10, 12, 13, 14, 15]], _expected(a)[[5, 6, 7, 8, 9, 10, 12, 13, 14, 15]])


@pytest.mark.gpu
@pytest.mark.parametrize("a", INPUTS, ids=lambda a: f"{a.dtype}{a.shape}")
def test_methods_match_numba_cuda_bit_for_bit(a):
    try:
        from numba import cuda
        cuda.get_current_device()
    except Exception as e:  # noqa: BLE001 - numba-cuda missing or without a usable device
        pytest.skip(f"numba-cuda is not usable here: {e}")
    if any(s < 0 for s in a.strides):
        pytest.skip("numba-cuda's launch (cuda.core's StridedMemoryView) refuses a host array with negative strides")
    from numba.cuda import config
    old, config.CUDA_ENABLE_NRT = config.CUDA_ENABLE_NRT, True  # numba-cuda's min/max need it (no allocation here)
    try:
        theirs = np.zeros(16)
        cuda.jit(methods)[1, 1](a, theirs)
    finally:
        config.CUDA_ENABLE_NRT = old
    ours = np.zeros(16)
    cubridge.jit(methods)[1, 1](a, ours)
    np.testing.assert_array_equal(ours, theirs)
