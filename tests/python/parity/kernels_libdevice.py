"""numba.cuda.libdevice in kernels: a spread of the functions (float64 and float32 math, the pointer-output
ones returning tuples, integer bit functions, conversions) on edge inputs. Both compilers call the same
__nv_ function of the same libdevice with the same argument conversions, so outputs compare bit for bit."""
import numpy as np
from numba import cuda
from numba.cuda import libdevice

from .cases import case, rng

EDGES = [0.0, -0.0, 1.0, -1.0, 0.5, 2.5, -3.75, 1e-310, 1e300, np.inf, -np.inf, np.nan, np.pi, 7.0, -1e-5, 123.456]


def float_functions(x, y, out, ints):
    i = cuda.grid(1)
    if i < x.shape[0]:
        a = x[i]
        b = y[i]
        out[0, i] = libdevice.sin(a)
        out[1, i] = libdevice.exp10(a)
        out[2, i] = libdevice.rsqrt(a)
        out[3, i] = libdevice.erfcinv(a)
        out[4, i] = libdevice.fma(a, b, a)
        out[5, i] = libdevice.fdim(a, b)
        out[6, i] = libdevice.nextafter(a, b)
        s, c = libdevice.sincos(a)
        out[7, i] = s
        out[8, i] = c
        m, e = libdevice.frexp(a)
        out[9, i] = m
        ints[0, i] = e
        frac, whole = libdevice.modf(a)
        out[10, i] = frac
        out[11, i] = whole
        r, q = libdevice.remquo(a, b)
        out[12, i] = r
        ints[1, i] = q
        out[13, i] = libdevice.sinf(a)  # float64 converts to float32, the result back on the store
        out[14, i] = libdevice.powi(a, 3)
        ints[2, i] = libdevice.isnand(a)
        ints[3, i] = libdevice.signbitd(a)
        ints[4, i] = libdevice.ilogb(a)


def _floats():
    x = rng(1).uniform(-10, 10, 256)
    x[: len(EDGES)] = EDGES
    y = np.roll(x, 5)
    return [x, y, np.zeros((15, 256)), np.zeros((5, 256), np.int32)]


case(float_functions, _floats, grid=4, block=64, outs=[2, 3])


def float32_functions(x, out, ints):
    i = cuda.grid(1)
    if i < x.shape[0]:
        a = x[i]
        out[0, i] = libdevice.sinf(a)
        out[1, i] = libdevice.expf(a)
        out[2, i] = libdevice.fast_expf(a)
        out[3, i] = libdevice.log1pf(a)
        out[4, i] = libdevice.saturatef(a)
        out[5, i] = libdevice.fmaf_rn(a, a, a)
        s, c = libdevice.sincospif(a)
        out[6, i] = s
        out[7, i] = c
        out[8, i] = libdevice.half2float(libdevice.float2half_rn(a))
        ints[0, i] = libdevice.float_as_int(a)
        ints[1, i] = libdevice.float2int_rz(a)


def _floats32():
    x = rng(2).uniform(-10, 10, 256).astype(np.float32)
    x[:12] = np.array([0.0, -0.0, 1.0, -1.0, 0.5, 2.5, -3.75, 1e-40, 3e38, np.inf, -np.inf, np.nan], np.float32)
    return [x, np.zeros((9, 256), np.float32), np.zeros((2, 256), np.int32)]


case(float32_functions, _floats32, grid=4, block=64, outs=[1, 2])


def integer_functions(a, b, out, wide):
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[0, i] = libdevice.popc(a[i])
        out[1, i] = libdevice.clz(a[i])
        out[2, i] = libdevice.ffs(a[i])
        out[3, i] = libdevice.brev(a[i])
        out[4, i] = libdevice.byte_perm(a[i], b[i], 0x5140)
        out[5, i] = libdevice.mulhi(a[i], b[i])
        out[6, i] = libdevice.sad(a[i], b[i], 7)
        out[7, i] = libdevice.hadd(a[i], b[i])
        out[8, i] = libdevice.abs(a[i])
        out[9, i] = libdevice.min(a[i], b[i])
        wide[0, i] = libdevice.mul64hi(np.int64(a[i]) << 20, np.int64(b[i]) << 30)
        wide[1, i] = libdevice.brevll(np.int64(a[i]))
        wide[2, i] = libdevice.popcll(np.int64(b[i]) * 3)


def _ints():
    r = rng(4)
    a = r.integers(-2**31, 2**31 - 1, 128).astype(np.int32)
    b = r.integers(-2**31, 2**31 - 1, 128).astype(np.int32)
    a[:4] = [0, -1, -2**31, 1]
    b[:4] = [0, 1, -1, 2**31 - 1]
    return [a, b, np.zeros((10, 128), np.int32), np.zeros((3, 128), np.int64)]


case(integer_functions, _ints, grid=2, block=64, outs=[2, 3])
