"""numba.cuda.fp16 in kernels: every function cubridge compiles, the one-argument ones over all 65536 float16
bit patterns (zeros, subnormals, infinities, NaNs included), the others over pairs of edge and random values.
numba-cuda links cuda_fp16.hpp's implementations; cubridge emits the same instructions, so the bits match."""
import numpy as np
from numba import cuda
from numba.cuda import fp16

from .cases import case, rng


def fp16_unary(x, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        a = x[i]
        out[0, i] = fp16.hneg(a)
        out[1, i] = fp16.habs(a)
        out[2, i] = fp16.hceil(a)
        out[3, i] = fp16.hfloor(a)
        out[4, i] = fp16.hrint(a)
        out[5, i] = fp16.htrunc(a)
        out[6, i] = fp16.hsqrt(a)
        out[7, i] = fp16.hrsqrt(a)
        out[8, i] = fp16.hrcp(a)
        out[9, i] = fp16.hexp2(a)
        out[10, i] = fp16.hlog2(a)
        out[11, i] = fp16.hexp(a)
        out[12, i] = fp16.hexp10(a)
        out[13, i] = fp16.hlog(a)
        out[14, i] = fp16.hlog10(a)
        out[15, i] = fp16.htanh_approx(a)


case(fp16_unary, lambda: [np.arange(65536, dtype=np.uint16).view(np.float16), np.zeros((16, 65536), np.float16)],
     grid=256, block=256, outs=[1])

EDGES = [0.0, -0.0, 1.0, -1.0, 0.5, 65504.0, -65504.0, 6e-8, -6e-8, 1e-4, np.inf, -np.inf, np.nan, 3.140625, 2.0, 1e-7]


def fp16_binary(x, y, out, flags):
    i = cuda.grid(1)
    if i < x.shape[0]:
        a = x[i]
        b = y[i]
        out[0, i] = fp16.hadd(a, b)
        out[1, i] = fp16.hsub(a, b)
        out[2, i] = fp16.hmul(a, b)
        out[3, i] = fp16.hdiv(a, b)
        out[4, i] = fp16.hfma(a, b, a)
        out[5, i] = fp16.hmax(a, b)
        out[6, i] = fp16.hmin(a, b)
        flags[0, i] = fp16.heq(a, b)
        flags[1, i] = fp16.hne(a, b)
        flags[2, i] = fp16.hgt(a, b)
        flags[3, i] = fp16.hge(a, b)
        flags[4, i] = fp16.hlt(a, b)
        flags[5, i] = fp16.hle(a, b)


def _pairs():
    e = np.array(EDGES, np.float16)
    ex, ey = np.meshgrid(e, e)
    r = rng(6)
    rx = r.uniform(-100, 100, 4096 - ex.size).astype(np.float16)
    ry = r.uniform(-100, 100, 4096 - ex.size).astype(np.float16)
    rx[::7] = r.uniform(-1e-4, 1e-4, rx[::7].size).astype(np.float16)  # tiny quotients: hdiv's refinement step
    x = np.concatenate([ex.ravel(), rx])
    y = np.concatenate([ey.ravel(), ry])
    return [x, y, np.zeros((7, x.size), np.float16), np.zeros((6, x.size), np.bool_)]


case(fp16_binary, _pairs, grid=16, block=256, outs=[2, 3])


def fp16_trigonometry(x, out):
    # hsin/hcos: cuda_fp16.hpp's float32 reduction and polynomial with its one-ulp fixes; htanh: tanhf rounded
    i = cuda.grid(1)
    if i < x.shape[0]:
        a = x[i]
        out[0, i] = fp16.hsin(a)
        out[1, i] = fp16.hcos(a)
        out[2, i] = fp16.htanh(a)


case(fp16_trigonometry, lambda: [np.arange(65536, dtype=np.uint16).view(np.float16), np.zeros((3, 65536), np.float16)],
     grid=256, block=256, outs=[1])


def fp16_operators(x, y, out, flags):
    # float16's -, abs() and comparisons, which numba-cuda lowers with cuda_fp16.hpp's __hneg, __habs, __heq,
    # __hneu (!=), __hgt, ...; an int8 operand converts to float16
    i = cuda.grid(1)
    if i < x.shape[0]:
        a = x[i]
        b = y[i]
        out[0, i] = -a
        out[1, i] = abs(a)
        flags[0, i] = a == b
        flags[1, i] = a != b
        flags[2, i] = a > b
        flags[3, i] = a >= b
        flags[4, i] = a < b
        flags[5, i] = a <= b
        flags[6, i] = a < np.int8(i % 7 - 3)


case(fp16_operators, lambda: _pairs()[:2] + [np.zeros((2, 4096), np.float16), np.zeros((7, 4096), np.bool_)],
     grid=16, block=256, outs=[2, 3])


def fp16_integer_casts(x, out_signed, out_unsigned):
    # numba-cuda casts float16 -> integer with cvt.rni (nearest, ties to even, saturating at the range)
    i = cuda.grid(1)
    if i < x.shape[0]:
        a = x[i]
        out_signed[0, i] = np.int8(a)
        out_signed[1, i] = np.int16(a)
        out_signed[2, i] = np.int32(a)
        out_signed[3, i] = np.int64(a)
        out_unsigned[0, i] = np.uint8(a)
        out_unsigned[1, i] = np.uint16(a)
        out_unsigned[2, i] = np.uint32(a)
        out_unsigned[3, i] = np.uint64(a)


def _finite_halves():
    h = np.arange(65536, dtype=np.uint16).view(np.float16)
    return h[np.isfinite(h)]  # NaN -> integer is unspecified in PTX; infinities saturate like large values


case(fp16_integer_casts, lambda: [_finite_halves(), np.zeros((4, _finite_halves().size), np.int64),
                                  np.zeros((4, _finite_halves().size), np.uint64)], grid=256, block=256, outs=[1, 2])


def fp16_from_integers(a, b, c, d, out):
    # numba-cuda casts integer -> float16 with cvt.rn (nearest): every int8/int16/uint16 value, wide ones
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[0, i] = np.float16(a[i])
        out[1, i] = np.float16(b[i])
        out[2, i] = np.float16(c[i])
        out[3, i] = np.float16(d[i])


def _integer_inputs():
    n = 65536
    r = rng(7)
    return [np.resize(np.arange(-128, 128, dtype=np.int8), n), np.arange(-32768, 32768, dtype=np.int64).astype(np.int16),
            np.arange(n, dtype=np.uint16), r.integers(-2**62, 2**62, n, dtype=np.int64), np.zeros((4, n), np.float16)]


case(fp16_from_integers, _integer_inputs, grid=256, block=256, outs=[4])
