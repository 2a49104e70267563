"""The complex loops of NumPy's ufuncs in kernels (numba-cuda's ufunc table: cmath's functions for sin, cos,
tan, arcsin, arccos, arctan, arcsinh, arctanh and log; npyfuncs' formulas for sinh, cosh, tanh, arccosh, log2,
log10; NumPy's lexicographic order comparisons and the NaN rules of maximum/minimum/fmax/fmin), on complex64 and
complex128 values whose parts run over edge values, on scalars and through np.f(x, out). The comparisons and
picks are exact; the transcendental loops are the same operations over the same libdevice calls and are
compared to a few ulps (contraction into fma may differ where the two compilers' IR differs in shape)."""
import numpy as np
from numba import cuda

from .cases import case

PARTS = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 1e-20, 1e20, np.inf, -np.inf, np.nan]
UNARY_ROWS = 15


def _grid(dtype):
    re, im = np.meshgrid(np.array(PARTS), np.array(PARTS))
    z = np.empty(re.size, dtype)
    z.real, z.imag = re.ravel(), im.ravel()
    return z


def complex_unary_ufuncs(z, out):
    i = cuda.grid(1)
    if i < z.shape[0]:
        v = z[i]
        out[0, i] = np.sin(v)
        out[1, i] = np.cos(v)
        out[2, i] = np.tan(v)
        out[3, i] = np.arcsin(v)
        out[4, i] = np.arccos(v)
        out[5, i] = np.arctan(v)
        out[6, i] = np.sinh(v)
        out[7, i] = np.cosh(v)
        out[8, i] = np.tanh(v)
        out[9, i] = np.arcsinh(v)
        out[10, i] = np.arccosh(v)
        out[11, i] = np.arctanh(v)
        out[12, i] = np.log(v)
        out[13, i] = np.log2(v)
        out[14, i] = np.log10(v)


for _dtype, _tol in ((np.complex64, 4e-6), (np.complex128, 1e-14)):
    case(complex_unary_ufuncs, lambda d=_dtype: [_grid(d), np.zeros((UNARY_ROWS, len(PARTS) ** 2), d)],
         grid=4, block=32, outs=[1], rtol=_tol, atol=0.0)


def complex_order_and_picks(z, flags, picks):
    # every pair of the grid's values: order comparisons (exact) and maximum/minimum/fmax/fmin (exact)
    i = cuda.grid(1)
    n = z.shape[0]
    if i < n * n:
        a = z[i // n]
        b = z[i % n]
        flags[0, i] = np.greater(a, b)
        flags[1, i] = np.greater_equal(a, b)
        flags[2, i] = np.less(a, b)
        flags[3, i] = np.less_equal(a, b)
        picks[0, i] = np.maximum(a, b)
        picks[1, i] = np.minimum(a, b)
        picks[2, i] = np.fmax(a, b)
        picks[3, i] = np.fmin(a, b)


for _dtype in (np.complex64, np.complex128):
    case(complex_order_and_picks,
         lambda d=_dtype: [_grid(d), np.zeros((4, len(PARTS) ** 4), np.bool_), np.zeros((4, len(PARTS) ** 4), d)],
         grid=(len(PARTS) ** 4 + 127) // 128, block=128, outs=[1, 2])


def complex_ufuncs_into_arrays(x, y, out_sinh, out_log10, out_max, out_less, out_div):
    # numba-cuda's test_ufuncs form: the ufunc writes its output array (2-D here, y broadcast along axis 0);
    # np.divide by zero parts too (numba's Smith division, which never raises)
    np.sinh(x, out_sinh)
    np.log10(x, out_log10)
    np.maximum(x, y, out_max)
    np.less(x, y, out_less)
    np.divide(x, y, out_div)


def _arrays():
    z = _grid(np.complex128)[:110].reshape(10, 11)
    y = z[3:4, :].copy()
    return [z, y, np.zeros_like(z), np.zeros_like(z), np.zeros_like(z), np.zeros(z.shape, np.bool_),
            np.zeros_like(z)]


case(complex_ufuncs_into_arrays, _arrays, grid=1, block=1, outs=[2, 3, 4, 5, 6], rtol=1e-14, atol=0.0)
