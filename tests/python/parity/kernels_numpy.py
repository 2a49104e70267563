"""NumPy inside kernels: the constants and the ufuncs numba-cuda compiles for the GPU, on scalars, over edge
inputs (0, -0, +-inf, nan, negatives where a function has no real value, 1 and -1 where one ends). Every
case is compared bit for bit: numba-cuda lowers np.sin and the other transcendental ufuncs through the same
libdevice calls as math.sin (ufuncs.py's np_unary_impl), which cubridge shares, and the rest (maximum's
NaN rule, comparisons, bit operations) are exact. Only NumPy's names that exist in NumPy 1.x are used (no
np.asin), so the kernels run whatever NumPy the GPU machine has."""
import numpy as np
from numba import cuda

from .cases import case, rng

EDGES = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -3.0, 1e-30, 1e30, np.inf, -np.inf, np.nan, np.pi, 100.0, -1e-7]


def _floats(dtype, n=256, seed=1):
    x = rng(seed).uniform(-4, 4, n).astype(dtype)
    x[: len(EDGES)] = np.array(EDGES, dtype)
    return x


def unary_float_ufuncs(x32, x64, out32, out64):
    i = cuda.grid(1)
    if i < x32.shape[0]:
        a = x32[i]
        b = x64[i]
        out32[0, i] = np.sin(a)
        out32[1, i] = np.cos(a)
        out32[2, i] = np.tan(a)
        out32[3, i] = np.arcsin(a)
        out32[4, i] = np.arccos(a)
        out32[5, i] = np.arctan(a)
        out32[6, i] = np.sinh(a)
        out32[7, i] = np.cosh(a)
        out32[8, i] = np.tanh(a)
        out32[9, i] = np.arcsinh(a)
        out32[10, i] = np.arccosh(a)
        out32[11, i] = np.arctanh(a)
        out32[12, i] = np.deg2rad(a)
        out32[13, i] = np.rad2deg(a)
        out32[14, i] = np.log(a)
        out32[15, i] = np.log2(a)
        out32[16, i] = np.log10(a)
        out32[17, i] = np.radians(a) + np.degrees(a)
        out64[0, i] = np.sin(b)
        out64[1, i] = np.cos(b)
        out64[2, i] = np.tan(b)
        out64[3, i] = np.arcsin(b)
        out64[4, i] = np.arccos(b)
        out64[5, i] = np.arctan(b)
        out64[6, i] = np.sinh(b)
        out64[7, i] = np.cosh(b)
        out64[8, i] = np.tanh(b)
        out64[9, i] = np.arcsinh(b)
        out64[10, i] = np.arccosh(b)
        out64[11, i] = np.arctanh(b)
        out64[12, i] = np.deg2rad(b)
        out64[13, i] = np.rad2deg(b)
        out64[14, i] = np.log(b)
        out64[15, i] = np.log2(b)
        out64[16, i] = np.log10(b)
        out64[17, i] = np.radians(b) + np.degrees(b)


case(unary_float_ufuncs, lambda: [_floats(np.float32), _floats(np.float64), np.zeros((18, 256), np.float32),
                                  np.zeros((18, 256), np.float64)], grid=4, block=64, outs=[2, 3])


def integer_arguments(a16, a32, u64, f32, out32, out64):
    # NumPy's loop choice: int16 takes the float32 loop, int32 and uint64 the float64 one; an int with a
    # float takes the float's loop.
    i = cuda.grid(1)
    if i < a16.shape[0]:
        out32[0, i] = np.sin(a16[i])
        out32[1, i] = np.log(a16[i])
        out32[2, i] = np.arctan2(a16[i], f32[i])
        out32[3, i] = np.hypot(a32[i], f32[i])
        out32[4, i] = np.maximum(a32[i], f32[i])
        out64[0, i] = np.sin(a32[i])
        out64[1, i] = np.log10(u64[i])
        out64[2, i] = np.hypot(a32[i], a32[i])
        out64[3, i] = np.divide(a32[i], a16[i])
        out64[4, i] = np.maximum(a32[i], u64[i])


def _integer_arguments():
    r = rng(3)
    a16 = r.integers(-300, 300, 128).astype(np.int16)
    a16[:4] = [0, -1, 1, 32767]
    a32 = r.integers(-2**31, 2**31 - 1, 128).astype(np.int32)
    a32[:3] = [0, -1, -2**31]
    u64 = r.integers(0, 2**63, 128).astype(np.uint64)
    u64[:3] = [0, 1, 2**64 - 1]
    f32 = r.uniform(-8, 8, 128).astype(np.float32)
    f32[:4] = [0.0, -0.0, np.inf, np.nan]
    return [a16, a32, u64, f32, np.zeros((5, 128), np.float32), np.zeros((5, 128), np.float64)]


case(integer_arguments, _integer_arguments, grid=2, block=64, outs=[4, 5])


@cuda.jit(device=True)
def binary_row(a, b, out, i):
    out[0, i] = np.arctan2(a, b)
    out[1, i] = np.hypot(a, b)
    out[2, i] = np.maximum(a, b)
    out[3, i] = np.minimum(a, b)
    out[4, i] = np.fmax(a, b)
    out[5, i] = np.fmin(a, b)
    out[6, i] = np.divide(a, b)
    out[7, i] = np.true_divide(b, a)


def binary_float_ufuncs(x32, y32, x64, y64, out32, out64):
    i = cuda.grid(1)
    if i < x32.shape[0]:
        binary_row(x32[i], y32[i], out32, i)
        binary_row(x64[i], y64[i], out64, i)


def _pairs(dtype, rows):
    e = np.array(EDGES, dtype)
    x, y = np.meshgrid(e, e)  # every ordered pair of edge values, signed zeros and NaNs included
    return x.ravel().copy(), y.ravel().copy(), np.zeros((rows, x.size), dtype)


def _binary_floats():
    x32, y32, out32 = _pairs(np.float32, 8)
    x64, y64, out64 = _pairs(np.float64, 8)
    return [x32, y32, x64, y64, out32, out64]


case(binary_float_ufuncs, _binary_floats, grid=4, block=64, outs=[4, 5])


def comparisons_and_logic(x, y, s, u, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        a = x[i]
        b = y[i]
        out[0, i] = np.greater(a, b)
        out[1, i] = np.greater_equal(a, b)
        out[2, i] = np.less(a, b)
        out[3, i] = np.less_equal(a, b)
        out[4, i] = np.equal(a, b)
        out[5, i] = np.not_equal(a, b)
        out[6, i] = np.logical_and(a, b)
        out[7, i] = np.logical_or(a, b)
        out[8, i] = np.logical_xor(a, b)
        out[9, i] = np.logical_not(a)
        out[10, i] = np.isnan(a)
        # NumPy's mixed int64/uint64 loops compare exactly (no conversion to float64).
        out[11, i] = np.greater(s[i], u[i])
        out[12, i] = np.less_equal(u[i], s[i])
        out[13, i] = np.equal(s[i], u[i])
        out[14, i] = np.not_equal(u[i], s[i])
        out[15, i] = np.isnan(s[i])


def _comparisons():
    x, y, _ = _pairs(np.float64, 0)
    n = x.size
    r = rng(5)
    s = r.integers(-2**63, 2**63 - 1, n, dtype=np.int64)
    u = r.integers(0, 2**64 - 1, n, dtype=np.uint64)
    s[:6] = [-1, 0, 1, -2**63, 2**63 - 1, 5]
    u[:6] = [2**64 - 1, 0, 1, 0, 2**63 - 1, 5]
    return [x, y, s, u, np.zeros((16, n), np.bool_)]


case(comparisons_and_logic, _comparisons, grid=4, block=64, outs=[4])


def integer_bit_ufuncs(a, b, u, out, uout):
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[0, i] = np.bitwise_and(a[i], b[i])
        out[1, i] = np.bitwise_or(a[i], b[i])
        out[2, i] = np.bitwise_xor(a[i], b[i])
        out[3, i] = np.invert(a[i])
        out[4, i] = np.left_shift(a[i], b[i] & 31)
        out[5, i] = np.right_shift(a[i], b[i] & 31)
        out[6, i] = np.maximum(a[i], b[i])
        out[7, i] = np.minimum(a[i], b[i])
        out[8, i] = np.fmax(a[i], b[i])
        out[9, i] = np.conjugate(a[i])
        uout[0, i] = np.right_shift(u[i], np.uint8(3))
        uout[1, i] = np.invert(u[i])
        uout[2, i] = np.maximum(u[i], np.uint8(200))
        uout[3, i] = np.minimum(u[i], np.uint8(7))


def _integer_bits():
    r = rng(9)
    a = r.integers(-2**31, 2**31 - 1, 128).astype(np.int32)
    b = r.integers(-2**31, 2**31 - 1, 128).astype(np.int32)
    a[:3] = [-1, 0, -2**31]
    b[:3] = [31, 0, 1]
    u = r.integers(0, 256, 128).astype(np.uint8)
    return [a, b, u, np.zeros((10, 128), np.int64), np.zeros((4, 128), np.uint8)]


case(integer_bit_ufuncs, _integer_bits, grid=2, block=64, outs=[3, 4])


def complex_ufuncs(z, w, out, flags):
    i = cuda.grid(1)
    if i < z.shape[0]:
        out[i] = np.conjugate(z[i])
        flags[0, i] = np.isnan(z[i])
        flags[1, i] = np.equal(z[i], w[i])
        flags[2, i] = np.not_equal(z[i], w[i])
        flags[3, i] = np.logical_and(z[i], w[i])
        flags[4, i] = np.logical_not(z[i])


def _complex():
    e = np.array([0.0, -0.0, 1.0, np.inf, np.nan, -2.5], np.float64)
    re, im = np.meshgrid(e, e)
    z = np.empty(re.size, np.complex128)
    z.real, z.imag = re.ravel(), im.ravel()  # (re + 1j * im) would turn an infinite part's partner into NaN
    w = np.roll(z, 1)
    w[:4] = z[:4]  # equal pairs, a NaN one among them
    return [z, w, np.zeros(z.size, np.complex128), np.zeros((5, z.size), np.bool_)]


case(complex_ufuncs, _complex, grid=1, block=64, outs=[2, 3])


def numpy_constants(out):
    i = cuda.grid(1)
    if i == 0:
        out[0] = np.pi
        out[1] = np.e
        out[2] = np.inf
        out[3] = np.nan
        out[4] = np.euler_gamma
        out[5] = np.float32(np.pi)
        out[6] = -np.inf * np.e


case(numpy_constants, lambda: [np.zeros(7, np.float64)], grid=1, block=32)


def dtype_scratch(x, out):
    # An array's dtype where numba-cuda takes a type: local and shared scratch of x's element type, and a cast.
    tmp = cuda.local.array(2, x.dtype)
    buf = cuda.shared.array(64, dtype=x.dtype)
    i = cuda.grid(1)
    t = cuda.threadIdx.x
    if i < x.shape[0]:
        tmp[0] = x[i]
        tmp[1] = x.dtype.type(3.9)  # truncated to 3 for an integer dtype
        buf[t] = tmp[0] * tmp[1]
    cuda.syncthreads()
    if i < x.shape[0]:
        out[i] = buf[63 - t] + x.dtype.type(t)


case(dtype_scratch, lambda: [rng(11).integers(-1000, 1000, 128).astype(np.int16), np.zeros(128, np.int16)],
     grid=2, block=64, outs=[1])


def scalar_bit_views(x, bits64, bits32, back):
    i = cuda.grid(1)
    if i < x.shape[0]:
        bits64[i] = x[i].view(np.int64)
        bits32[i] = np.float32(x[i]).view(np.uint32)
        back[i] = (bits64[i] ^ np.int64(1)).view(np.float64)


case(scalar_bit_views, lambda: [_floats(np.float64), np.zeros(256, np.int64), np.zeros(256, np.uint32),
                                np.zeros(256, np.float64)], grid=4, block=64, outs=[1, 2, 3])
