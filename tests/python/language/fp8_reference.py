"""The fp8 formats of cuda_fp8.h computed from their definitions (OCP 8-bit floating point: E4M3 and E5M2;
OCP MX: E8M0), exactly, with fractions: what each byte means and which byte a number rounds to. The tests
compare the compiled conversions with these tables; none of it runs on the GPU."""
from __future__ import annotations

import math
from fractions import Fraction

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
