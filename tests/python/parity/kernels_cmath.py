"""cmath in kernels: every function numba-cuda compiles, on complex64 and complex128 values whose parts run
over edge values (signed zeros, +-1, tiny and huge numbers past the functions' overflow thresholds, +-inf,
NaN), every pair of them. cubridge compiles its own Python implementations (src/compiler/kernel_library/cmath_prelude.cpp)
with the same operations in the same types as numba-cuda's cmathimpl.py, over the same libdevice calls, so
the outputs are compared bit for bit."""
import cmath

import numpy as np
from numba import cuda

from .cases import case

PARTS = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 1e-20, 3e-39, 1e20, 3e38, -3.3e38, np.inf, -np.inf, np.nan]
ROWS = 19


def _grid(dtype):
    re, im = np.meshgrid(np.array(PARTS), np.array(PARTS))
    z = np.empty(re.size, dtype)
    z.real, z.imag = re.ravel(), im.ravel()  # re + 1j * im would turn inf * 1j into nan + inf j
    return z


@cuda.jit(device=True)
def cmath_rows(z, out, reals, flags, i):
    if i < z.shape[0]:
        v = z[i]
        out[0, i] = cmath.exp(v)
        out[1, i] = cmath.log(v)
        out[2, i] = cmath.log10(v)
        out[3, i] = cmath.sqrt(v)
        out[4, i] = cmath.sin(v)
        out[5, i] = cmath.cos(v)
        out[6, i] = cmath.tan(v)
        out[7, i] = cmath.asin(v)
        out[8, i] = cmath.acos(v)
        out[9, i] = cmath.atan(v)
        out[10, i] = cmath.sinh(v)
        out[11, i] = cmath.cosh(v)
        out[12, i] = cmath.tanh(v)
        out[13, i] = cmath.asinh(v)
        out[14, i] = cmath.acosh(v)
        out[15, i] = cmath.atanh(v)
        out[16, i] = cmath.log(v, z[(i + 7) % z.shape[0]])
        r, phi = cmath.polar(v)
        out[17, i] = cmath.rect(r, phi)
        out[18, i] = cmath.rect(v.real, v.imag)
        reals[0, i] = cmath.phase(v)
        reals[1, i] = r
        reals[2, i] = phi
        flags[0, i] = cmath.isnan(v)
        flags[1, i] = cmath.isinf(v)
        flags[2, i] = cmath.isfinite(v)


def _unary(dtype, real):
    z = _grid(dtype)
    return [z, np.zeros((ROWS, z.size), dtype), np.zeros((3, z.size), real), np.zeros((3, z.size), np.bool_)]


def cmath_unary(z, out, reals, flags):
    cmath_rows(z, out, reals, flags, cuda.grid(1))


def cmath_unary_c64(z, out, reals, flags):
    # The same rows for complex64: each compiler specialises the device function again.
    cmath_rows(z, out, reals, flags, cuda.grid(1))


# complex128 to one ulp: acosh's real part, asinh(s1.real * s2.real + s1.imag * s2.imag), differs in its last
# bit on 3 of the 196 inputs (-2.5+-1j, 0.5-2.5j; H100, numba-cuda 0.30.4): the backend fuses one of the two
# products into an fma, and which one follows the order the operands reach it (not yet pinned down). Every
# other function and the complex64 case below are bit for bit; NaN positions are compared exactly.
case(cmath_unary, lambda: _unary(np.complex128, np.float64), grid=4, block=64, outs=[1, 2, 3], rtol=3e-16)
case(cmath_unary_c64, lambda: _unary(np.complex64, np.float32), grid=4, block=64, outs=[1, 2, 3])


def cmath_of_reals(x, n, out, flags):
    # Real arguments convert to complex (float32 -> complex64, float64 and integers -> complex128).
    i = cuda.grid(1)
    if i < x.shape[0]:
        out[0, i] = cmath.sqrt(x[i])
        out[1, i] = cmath.exp(n[i])
        out[2, i] = cmath.log(x[i])
        out[3, i] = cmath.acos(x[i])
        flags[i] = cmath.isinf(x[i])


def _reals():
    x = np.array(PARTS * 2, np.float32)
    n = np.arange(-14, 14, dtype=np.int32)
    return [x, n, np.zeros((4, x.size), np.complex128), np.zeros(x.size, np.bool_)]


case(cmath_of_reals, _reals, grid=1, block=32, outs=[2, 3])


def cmath_constants(out):
    if cuda.grid(1) == 0:
        out[0] = cmath.pi
        out[1] = cmath.e
        out[2] = cmath.tau
        out[3] = cmath.inf
        out[4] = cmath.infj
        out[5] = cmath.nanj + cmath.nan


case(cmath_constants, lambda: [np.zeros(6, np.complex128)], grid=1, block=32)
