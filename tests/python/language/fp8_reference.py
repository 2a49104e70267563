"""The fp8 formats of cuda_fp8.h computed from their definitions (OCP 8-bit floating point: E4M3 and E5M2;
OCP MX: E8M0), exactly, with fractions: what each byte means and which byte a number rounds to. The tests
compare the compiled conversions with these tables; none of it runs on the GPU."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

# format: (exponent bits, mantissa bits, bias)
FORMATS = {"e4m3": (4, 3, 7), "e5m2": (5, 2, 15)}
MAX_NORM_BYTE = {"e4m3": 0x7E, "e5m2": 0x7B}


def decode(fmt: str, byte: int) -> float:
    """The value of an fp8 byte: a Python float (exact), nan or ±inf."""
    if fmt == "e8m0":
        return math.nan if byte == 0xFF else math.ldexp(1.0, byte - 127)
    ebits, mbits, bias = FORMATS[fmt]
    sign = -1.0 if byte & 0x80 else 1.0
    e = (byte >> mbits) & ((1 << ebits) - 1)
    m = byte & ((1 << mbits) - 1)
    if fmt == "e4m3" and e == 15 and m == 7:
        return math.nan  # E4M3 has no infinity: S.1111.111 is NaN
    if fmt == "e5m2" and e == 31:
        return sign * math.inf if m == 0 else math.nan
    if e == 0:
        return sign * math.ldexp(m, 1 - bias - mbits)
    return sign * math.ldexp((1 << mbits) + m, e - bias - mbits)


def _finite_positive(fmt: str) -> list[tuple[Fraction, int]]:
    return [(Fraction(decode(fmt, b)), b) for b in range(MAX_NORM_BYTE[fmt] + 1)]


_TABLES = {fmt: _finite_positive(fmt) for fmt in FORMATS}


def encode(fmt: str, x: float, saturate: bool, float32_nan: bool = True) -> int:
    """The byte cuda_fp8.h's __nv_cvt_{float,double}_to_fp8 gives for x: rounded to nearest, ties to the even
    byte; beyond the largest finite value (by more than half its spacing, infinity included) the largest
    finite with saturation, else NaN (E4M3) or infinity (E5M2); NaN is 0x7F (a float32 NaN is made canonical,
    losing its sign; a float64 one keeps it)."""
    negative = math.copysign(1.0, x) < 0
    if math.isnan(x):
        return 0x7F if float32_nan else 0x7F | (0x80 if negative else 0)
    sign = 0x80 if negative else 0
    table = _TABLES[fmt]
    top = table[-1][0]
    spacing = top - table[-2][0]
    a = Fraction(abs(x)) if math.isfinite(x) else None
    over = a is None or a > top + spacing / 2 or (a == top + spacing / 2 and table[-1][1] & 1)
    if over:
        return sign | (MAX_NORM_BYTE[fmt] if saturate else 0x7F if fmt == "e4m3" else 0x7C)
    best = min(table, key=lambda vb: (abs(vb[0] - a), vb[1] & 1))
    return sign | best[1]


def to_int(value: float, bits: int, signed: bool) -> int:
    """A float converted toward zero to an integer of `bits`, saturated; NaN gives 0 (PTX cvt.rzi)."""
    if math.isnan(value):
        return 0
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    if math.isinf(value):
        return hi if value > 0 else lo
    return max(lo, min(hi, int(value)))
def edge_floats(fmt: str) -> np.ndarray:
    """Every fp8 value, the midpoints between neighbours and one float32 step either side, the overflow
    thresholds, infinities, NaN and tiny values, with both signs."""
    if fmt == "e8m0":
        vals = [math.ldexp(1.0, k) for k in range(-127, 128)]
        mids = [v * 1.5 for v in vals[:-1]] + [v * 1.0000001 for v in vals]
    else:
        vals = sorted({decode(fmt, b) for b in range(128) if math.isfinite(decode(fmt, b))})
        mids = [(a + b) / 2 for a, b in zip(vals, vals[1:])] + [vals[-1] * 1.0625, vals[-1] * 1.2, 1e20, 3e38]
    xs = np.array(vals + mids + [math.inf, math.nan, 1e-30, 2.0 ** -149], np.float32)
    xs = np.concatenate([xs, np.nextafter(xs, np.float32(np.inf)), np.nextafter(xs, np.float32(-np.inf))])
    return np.concatenate([xs, -xs]).astype(np.float32)




FLT_MAX = float(np.finfo(np.float32).max)


def e8m0_encode(x: float, saturate: bool, round_up: bool) -> int:
    """The byte __nv_cvt_{float,double}_to_e8m0 gives: the power of two at or below |x| (rounding toward
    zero) or at or above it (rounding up), 2**-127 at the least; beyond 2**127 the largest (254) with
    saturation, else NaN (255); NaN is 255. A finite float64 beyond float32's range counts as float32's
    largest (the header narrows it to float32 first)."""
    if math.isnan(x):
        return 0xFF
    a = abs(x)
    if math.isfinite(a) and a > FLT_MAX:
        a = FLT_MAX
    if a == 0:
        return 0
    if math.isinf(a):
        k = 128
    else:
        m, e = math.frexp(a)  # a = m * 2**e, 0.5 <= m < 1
        k = (e - 1) if (m == 0.5 or not round_up) else e
    byte = max(k, -127) + 127
    if byte > 254:
        return 254 if saturate else 255
    return byte
