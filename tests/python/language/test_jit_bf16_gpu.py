"""bfloat16 on the GPU: the values of cubridge.bf16's conversions and arithmetic against their documented
semantic (cuda_bf16.h: round to nearest even, toward zero, down or up, computed here exactly on the host with
fractions; integers saturate and NaN gives 0), and every binding, operator and cast bit for bit against
numba-cuda's own numba.cuda.bf16 on the same inputs where numba-cuda is installed (skipped otherwise)."""
import math
import types
from fractions import Fraction

import numpy as np
import pytest

import cubridge
from cubridge import bf16 as cb_bf16

pytestmark = pytest.mark.gpu

MODES = ("rn", "rz", "rd", "ru")
MAX_BF16 = Fraction(255, 128) * Fraction(2) ** 127  # 0x7F7F


def _with(fn, B):
    """fn with the global B bound to a bfloat16 module (cubridge.bf16 or numba.cuda.bf16)."""
    return types.FunctionType(fn.__code__, {**fn.__globals__, "B": B}, fn.__name__, fn.__defaults__, fn.__closure__)


def _bits_of_value(v: Fraction, negative: bool) -> int:
    f = np.float32(float(v))  # exact: v is a bfloat16 value
    u = int(np.array([f], np.float32).view(np.uint32)[0]) >> 16
    return u | (0x8000 if negative else 0)


def round_bf16(x, mode: str) -> int:
    """The bits of x (an int, float or Fraction) rounded to bfloat16 with `mode`, as cuda_bf16.h documents."""
    if isinstance(x, float):
        if math.isnan(x):
            return 0x7FFF
        if math.isinf(x):
            return 0x7F80 if x > 0 else 0xFF80
    v = Fraction(x)
    negative = v < 0 or (v == 0 and isinstance(x, float) and math.copysign(1, x) < 0)
    a = abs(v)
    if a == 0:
        return 0x8000 if negative else 0
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    q = Fraction(2) ** (max(e, -126) - 7)
    n = a / q
    lo = math.floor(n)
    toward_inf = (mode == "ru" and not negative) or (mode == "rd" and negative)
    if mode == "rn":
        r = n - lo
        k = lo + 1 if r > Fraction(1, 2) or (r == Fraction(1, 2) and lo % 2) else lo
    else:
        k = lo + 1 if toward_inf and n != lo else lo
    value = k * q
    if value > MAX_BF16:
        if mode == "rn" or toward_inf:
            return 0xFF80 if negative else 0x7F80
        value = MAX_BF16
    return _bits_of_value(value, negative)


def bf16_value(bits: int):
    f = float(np.array([(bits & 0xFFFF) << 16], np.uint32).view(np.float32)[0])
    return f


def to_integer(bits: int, mode: str, lo: int, hi: int) -> int:
    f = bf16_value(bits)
    if math.isnan(f):
        return 0
    if math.isinf(f):
        return hi if f > 0 else lo
    v = Fraction(f)
    n = {"rz": math.trunc, "rd": math.floor, "ru": math.ceil, "rn": round}[mode](v)  # round(): half to even
    return min(max(n, lo), hi)


INT32S = [0, 1, -1, 789, 257, 259, 511, -513, 2**24 + 1, -(2**24 + 3), 2**31 - 1, -2**31, 33554435, 65535 * 3]
FLOAT64S = [1.5, 3.14, -3.14, 1e39, -1e39, 1e-50, -0.0, 1.00390625, 1.01171875, 1 + 2**-8 + 2**-40, 3.4e38,
            float("nan"), float("inf"), 2.0**-133, 2.0**-134, 2.0**-134 + 2.0**-160]
FLOAT32S = [1.5, 3.14, -3.14, 1.00390625, 1.01171875, -1.01171875, 3.3961776e38, 1e-40, -1e-40, 65504.0]


def to_bf16_kernel(i32, f64, f32, out_i32, out_f64, out_f32):
    for k in range(i32.size):
        x = i32[k]
        out_i32[k, 0] = B.bfloat16_as_int16(B.int32_to_bfloat16_rn(x))
        out_i32[k, 1] = B.bfloat16_as_int16(B.int32_to_bfloat16_rz(x))
        out_i32[k, 2] = B.bfloat16_as_int16(B.int32_to_bfloat16_rd(x))
        out_i32[k, 3] = B.bfloat16_as_int16(B.int32_to_bfloat16_ru(x))
    for k in range(f64.size):
        out_f64[k] = B.bfloat16_as_int16(B.float64_to_bfloat16(f64[k]))
    for k in range(f32.size):
        x = f32[k]
        out_f32[k, 0] = B.bfloat16_as_int16(B.float32_to_bfloat16_rn(x))
        out_f32[k, 1] = B.bfloat16_as_int16(B.float32_to_bfloat16_rz(x))
        out_f32[k, 2] = B.bfloat16_as_int16(B.float32_to_bfloat16_rd(x))
        out_f32[k, 3] = B.bfloat16_as_int16(B.float32_to_bfloat16_ru(x))


def _to_bf16(jit, B):
    i32, f64, f32 = np.array(INT32S, np.int32), np.array(FLOAT64S), np.array(FLOAT32S, np.float32)
    outs = np.zeros((i32.size, 4), np.int16), np.zeros(f64.size, np.int16), np.zeros((f32.size, 4), np.int16)
    jit(_with(to_bf16_kernel, B))[1, 1](i32, f64, f32, *outs)
    return [o.view(np.uint16) for o in outs]


def test_conversions_to_bfloat16_round_as_documented():
    o_i32, o_f64, o_f32 = _to_bf16(cubridge.jit, cb_bf16)
    for k, x in enumerate(INT32S):
        assert [int(b) for b in o_i32[k]] == [round_bf16(x, m) for m in MODES], x
    for k, x in enumerate(FLOAT64S):  # a float64 NaN narrows to the header's quiet NaN, 0x7FC0 (numba-cuda's bits)
        assert int(o_f64[k]) == (0x7FC0 if math.isnan(x) else round_bf16(x, "rn")), x
    for k, x in enumerate(FLOAT32S):
        assert [int(b) for b in o_f32[k]] == [round_bf16(float(np.float32(x)), m) for m in MODES], x


BITS = [0x3FC0, 0xBFC0, 0x4020, 0xC020, 0x4060, 0x501B, 0xD01B, 0x7FC0, 0x7F80, 0xFF80, 0x4396, 0xC301, 0x4780,
        0x0000, 0x8000, 0x3F00, 0xBF00, 0x3F40]


def from_bf16_kernel(bits, i32, small):
    for k in range(bits.size):
        a = B.int16_as_bfloat16(bits[k])
        i32[k, 0] = B.bfloat16_to_int32_rn(a)
        i32[k, 1] = B.bfloat16_to_int32_rz(a)
        i32[k, 2] = B.bfloat16_to_int32_rd(a)
        i32[k, 3] = B.bfloat16_to_int32_ru(a)
        small[k, 0] = B.bfloat16_to_int8_rz(a)
        small[k, 1] = B.bfloat16_to_uint8_rz(a)
        small[k, 2] = B.bfloat16_to_uint16_rz(a)
        small[k, 3] = B.bfloat16_to_int16_rz(a)


def _from_bf16(jit, B):
    bits = np.array(BITS, np.uint16).view(np.int16)
    i32, small = np.zeros((bits.size, 4), np.int32), np.zeros((bits.size, 4), np.int64)
    jit(_with(from_bf16_kernel, B))[1, 1](bits, i32, small)
    return i32, small


def test_conversions_from_bfloat16_saturate_and_map_nan_to_zero():
    i32, small = _from_bf16(cubridge.jit, cb_bf16)
    for k, b in enumerate(BITS):
        assert list(i32[k]) == [to_integer(b, m, -2**31, 2**31 - 1) for m in MODES], hex(b)
        assert list(small[k]) == [to_integer(b, "rz", -128, 127), to_integer(b, "rz", 0, 255),
                                  to_integer(b, "rz", 0, 65535), to_integer(b, "rz", -32768, 32767)], hex(b)


def arithmetic_kernel(x, y, out, flags):
    for k in range(x.size):
        a = B.int16_as_bfloat16(x[k])
        b = B.int16_as_bfloat16(y[k])
        out[k, 0] = B.bfloat16_as_int16(a + b)
        out[k, 1] = B.bfloat16_as_int16(a - b)
        out[k, 2] = B.bfloat16_as_int16(a * b)
        out[k, 3] = B.bfloat16_as_int16(B.hfma(a, b, b))
        out[k, 4] = B.bfloat16_as_int16(B.hadd_rn(a, b))
        out[k, 5] = B.bfloat16_as_int16(B.hmul_sat(a, b))
        out[k, 6] = B.bfloat16_as_int16(B.hmax(a, b))
        out[k, 7] = B.bfloat16_as_int16(B.hmin_nan(a, b))
        out[k, 8] = B.bfloat16_as_int16(-a)
        out[k, 9] = B.bfloat16_as_int16(a / b)
        flags[k, 0] = a == b
        flags[k, 1] = a != b
        flags[k, 2] = a < b
        flags[k, 3] = a >= b
        flags[k, 4] = B.hisnan(a)
        flags[k, 5] = B.hequ(a, b)


PAIRS = [(0x3FA0, 0xC020), (0x4049, 0x40A0), (0x3F81, 0x3F81), (0x7F7F, 0x7F7F), (0x0001, 0x3F00), (0x7FC0, 0x4000),
         (0x4000, 0x4000), (0xC2F7, 0x3C23), (0x3F40, 0x3F00), (0x0080, 0x8080)]


def _arithmetic(jit, B):
    x = np.array([p[0] for p in PAIRS], np.uint16).view(np.int16)
    y = np.array([p[1] for p in PAIRS], np.uint16).view(np.int16)
    out, flags = np.zeros((x.size, 10), np.int16), np.zeros((x.size, 6), np.bool_)
    jit(_with(arithmetic_kernel, B))[1, 1](x, y, out, flags)
    return out.view(np.uint16), flags


def test_arithmetic_is_correctly_rounded():
    out, flags = _arithmetic(cubridge.jit, cb_bf16)
    for k, (p, q) in enumerate(PAIRS):
        a, b = bf16_value(p), bf16_value(q)
        if math.isnan(a) or math.isnan(b):
            assert flags[k, 1] and not flags[k, 0] and not flags[k, 2] and not flags[k, 3] and flags[k, 5]
            continue
        exact = [Fraction(a) + Fraction(b), Fraction(a) - Fraction(b), Fraction(a) * Fraction(b),
                 Fraction(a) * Fraction(b) + Fraction(b), Fraction(a) + Fraction(b)]
        for j, v in enumerate(exact):
            assert int(out[k, j]) == round_bf16(v if v != 0 else 0.0, "rn"), (hex(p), hex(q), j)
        sat = min(max(Fraction(a) * Fraction(b), Fraction(0)), Fraction(1))
        assert int(out[k, 5]) == round_bf16(sat, "rn")
        assert bf16_value(int(out[k, 6])) == max(a, b) and bf16_value(int(out[k, 7])) == min(a, b)
        assert int(out[k, 8]) == p ^ 0x8000
        assert list(flags[k, :4]) == [a == b, a != b, a < b, a >= b]


def math_kernel(bits, out):
    for k in range(bits.size):
        a = B.int16_as_bfloat16(bits[k])
        out[k, 0] = B.bfloat16_as_int16(B.htrunc(a))
        out[k, 1] = B.bfloat16_as_int16(B.hceil(a))
        out[k, 2] = B.bfloat16_as_int16(B.hfloor(a))
        out[k, 3] = B.bfloat16_as_int16(B.hrint(a))
        out[k, 4] = B.bfloat16_as_int16(B.hsqrt(a))
        out[k, 5] = B.bfloat16_as_int16(B.hrsqrt(a))
        out[k, 6] = B.bfloat16_as_int16(B.hrcp(a))
        out[k, 7] = B.bfloat16_as_int16(B.hlog(a))
        out[k, 8] = B.bfloat16_as_int16(B.hlog2(a))
        out[k, 9] = B.bfloat16_as_int16(B.hlog10(a))
        out[k, 10] = B.bfloat16_as_int16(B.hcos(a))
        out[k, 11] = B.bfloat16_as_int16(B.hsin(a))
        out[k, 12] = B.bfloat16_as_int16(B.htanh(a))
        out[k, 13] = B.bfloat16_as_int16(B.htanh_approx(a))
        out[k, 14] = B.bfloat16_as_int16(B.hexp(a))
        out[k, 15] = B.bfloat16_as_int16(B.hexp2(a))
        out[k, 16] = B.bfloat16_as_int16(B.hexp10(a))
        out[k, 17] = B.hisinf(a)
        out[k, 18] = B.bfloat16_as_int16(B.bfloat16(np.float32(B.bfloat16_to_float32(a)) * np.float32(1.5)))
        out[k, 19] = np.int16(a)


MATH_BITS = BITS + [0xBC95, 0x4049, 0x3DCC, 0xC120, 0x42C8]


def _math(jit, B):
    bits = np.array(MATH_BITS, np.uint16).view(np.int16)
    out = np.zeros((bits.size, 20), np.int16)
    jit(_with(math_kernel, B))[1, 1](bits, out)
    return out


def test_math_functions_approximate_their_float_values():
    out = _math(cubridge.jit, cb_bf16).view(np.uint16)
    for k, b in enumerate(MATH_BITS):
        x = bf16_value(b)
        if not math.isfinite(x) or x <= 0:
            continue
        got = [bf16_value(int(v)) for v in out[k]]
        assert got[0] == math.trunc(x) and got[1] == math.ceil(x) and got[2] == math.floor(x)
        for j, ref in ((4, math.sqrt(x)), (8, math.log2(x)), (11, math.sin(x)), (10, math.cos(x)),
                       (12, math.tanh(x))):
            assert abs(got[j] - ref) <= 2**-6 * max(1.0, abs(ref)), (hex(b), j, got[j], ref)


@pytest.mark.parametrize("run", [_to_bf16, _from_bf16, _arithmetic, _math],
                         ids=["to_bfloat16", "from_bfloat16", "arithmetic", "math"])
def test_bit_for_bit_as_numba_cuda(run):
    pytest.importorskip("numba.cuda.bf16", reason="numba-cuda (with numba.cuda.bf16) is not installed")
    import numba.cuda as numba_cuda
    from numba.cuda import bf16 as nb_bf16
    if not numba_cuda.is_bfloat16_supported():
        pytest.skip("bfloat16 needs compute capability 8.0")
    theirs = run(numba_cuda.jit, nb_bf16)
    ours = run(cubridge.jit, nb_bf16)  # numba-cuda's names, compiled by cubridge
    ours_own_names = run(cubridge.jit, cb_bf16)
    for t, o, n in zip(theirs if isinstance(theirs, (list, tuple)) else [theirs],
                       ours if isinstance(ours, (list, tuple)) else [ours],
                       ours_own_names if isinstance(ours_own_names, (list, tuple)) else [ours_own_names]):
        np.testing.assert_array_equal(o, t)
        np.testing.assert_array_equal(n, t)
