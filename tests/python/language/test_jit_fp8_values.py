"""The values of the fp8 conversions without a GPU: the PTX the compiler inlines is executed on the host
(ptx_blocks.py) over the edge floats of each format and compared bit for bit with the formats' definitions
(fp8_reference.py). The rules, one test each:
- cvt_double_to_fp8 (both saturations, both formats) is cuda_fp8.hpp's rounding to nearest even with its
  overflow, underflow and NaN rules (E5M2 NaN keeps the float64's top mantissa bits, the sign stays);
- cvt_float_to_fp8 without saturation gives NaN (E4M3) / infinity (E5M2) beyond the range;
- the e8m0 conversions of float32 and float64 round toward zero or up to a power of two, saturating or not;
- fp8 -> int8 / uint8 saturate and give 0 for NaN; fp8 -> 16/32/64-bit integers truncate through float16;
- e8m0 from int64 / uint64 rounds up to the power of two at or above the magnitude, and from float16,
  int16 and int32 (through float32 / float64) too;
- cvt_bfloat16raw_to_fp8 widens the bfloat16 and converts as cvt_float_to_fp8, saturating or not."""
import math

import numpy as np
import pytest

import cubridge

from fp8_reference import decode, e8m0_encode, edge_floats, encode, to_int
from ptx_blocks import asm_calls, bits32, bits64, f32, run_chain
from test_jit_fp8 import (TYPES, cudaRoundMode, cvt_bfloat16raw_to_fp8, cvt_double_to_e8m0, cvt_double_to_fp8,
                          cvt_e8m0_to_bf16raw, cvt_float_to_e8m0, cvt_float_to_fp8, fp8_interpretation_t,
                          saturation_t, _with)

INTERP = {"e4m3": fp8_interpretation_t.E4M3, "e5m2": fp8_interpretation_t.E5M2}
SAT = {True: saturation_t.SATFINITE, False: saturation_t.NOSAT}
ROUND = {False: cudaRoundMode.cudaRoundZero, True: cudaRoundMode.cudaRoundPosInf}


def _calls(fn, sig, cc=(9, 0)):
    ir, _ = cubridge.compile(fn, sig, device=True, abi="c", cc=cc, output="llvm")
    calls = asm_calls(ir)
    assert calls
    return calls


def double_fp8(d):
    return cvt_double_to_fp8(d, S, I)


def float_fp8(x):
    return cvt_float_to_fp8(x, S, I)


def _double_reference(fmt, x, saturate):
    if math.isnan(x):  # __nv_cvt_double_to_fp8: E4M3 0x7F, E5M2 0x7E | the top mantissa bits; the sign kept
        b = bits64(x)
        return (0x7F if fmt == "e4m3" else 0x7E | (b >> 50) & 3) | (0x80 if b >> 63 else 0)
    return encode(fmt, x, saturate)


@pytest.mark.parametrize("saturate", [True, False])
@pytest.mark.parametrize("fmt", ["e4m3", "e5m2"])
def test_cvt_double_to_fp8_is_the_headers_rounding(fmt, saturate):
    calls = _calls(_with(double_fp8, S=SAT[saturate], I=INTERP[fmt]), "(float64,)")
    xs = list(edge_floats(fmt).astype(np.float64)) + [1e300, -1e300, 5e-324, float("-nan"), 448.0000001, 464.0,
                                                      464.00000001, 61439.999, 61440.0]
    for x in xs:
        got = run_chain(calls, bits64(x)) & 0xFF
        assert got == _double_reference(fmt, float(x), saturate), (fmt, saturate, x, hex(got))


@pytest.mark.parametrize("fmt", ["e4m3", "e5m2"])
def test_cvt_float_to_fp8_without_saturation(fmt):
    calls = _calls(_with(float_fp8, S=saturation_t.NOSAT, I=INTERP[fmt]), "(float32,)")
    for x in edge_floats(fmt):
        got = run_chain(calls, bits32(x)) & 0xFF
        if math.isnan(x):
            assert got & 0x7F == 0x7F if fmt == "e4m3" else got & 0x7C == 0x7C and got & 3
            continue
        assert got == encode(fmt, float(x), False), (fmt, x, hex(got))


def float_e8m0(x):
    return cvt_float_to_e8m0(x, S, R)


def double_e8m0(d):
    return cvt_double_to_e8m0(d, S, R)


@pytest.mark.parametrize("cc", [(8, 9), (9, 0)])
@pytest.mark.parametrize("saturate", [True, False])
@pytest.mark.parametrize("round_up", [True, False])
def test_e8m0_conversions_round_to_a_power_of_two(round_up, saturate, cc):
    xs = edge_floats("e8m0")
    names = dict(S=SAT[saturate], R=ROUND[round_up])
    fc = _calls(_with(float_e8m0, **names), "(float32,)", cc)
    dc = _calls(_with(double_e8m0, **names), "(float64,)", cc)
    for x in xs:
        assert run_chain(fc, bits32(x)) & 0xFF == e8m0_encode(float(x), saturate, round_up), (x, saturate, round_up)
    for d in list(xs.astype(np.float64) * 1.000000001) + [1e300, -1e300, 1e-300, 2.0 ** 127, 2.0 ** -127]:
        assert run_chain(dc, bits64(d)) & 0xFF == e8m0_encode(float(d), saturate, round_up), (d, saturate, round_up)


def to_int8(x):
    return np.int8(T(x))


def to_uint8(x):
    return np.uint8(T(x))


def to_int16(x):
    return np.int16(T(x))


def to_uint64(x):
    return np.uint64(T(x))


def to_float(x):
    return np.float32(T(x))


@pytest.mark.parametrize("fmt", ["e4m3", "e5m2", "e8m0"])
@pytest.mark.parametrize("fn, bits, signed", [(to_int8, 8, True), (to_uint8, 8, False), (to_int16, 16, True),
                                              (to_uint64, 64, False)])
def test_fp8_to_integers_saturate_and_truncate(fmt, fn, bits, signed):
    calls = _calls(_with(fn, T=TYPES[fmt]), "(float32,)")
    for x in edge_floats(fmt):
        if fmt == "e8m0":
            v = math.nan if math.isnan(x) else math.ldexp(1.0, e8m0_encode(float(x), True, True) - 127)
        else:
            v = decode(fmt, encode(fmt, float(x), True))
        got = run_chain(calls, bits32(x)) & ((1 << bits) - 1)
        if signed and got >> (bits - 1):
            got -= 1 << bits
        assert got == to_int(v, bits, signed), (fmt, x, v, got)


@pytest.mark.parametrize("fmt", ["e4m3", "e5m2", "e8m0"])
def test_fp8_to_float32_is_exact(fmt):
    calls = _calls(_with(to_float, T=TYPES[fmt]), "(float32,)")
    for x in edge_floats(fmt):
        got = f32(run_chain(calls, bits32(x)))
        if fmt == "e8m0":
            want = math.nan if math.isnan(x) else math.ldexp(1.0, e8m0_encode(float(x), True, True) - 127)
        else:
            want = decode(fmt, encode(fmt, float(x), True))
        assert got == want or (math.isnan(got) and math.isnan(want)), (fmt, x, got, want)


@pytest.mark.parametrize("sig, values", [
    ("(int64,)", [0, 1, 2, 3, 4, 5, 7, 8, 9, 255, 256, 257, 2 ** 40 + 1, 2 ** 62, 2 ** 63 - 1, -1, -3, -2 ** 63]),
    ("(uint64,)", [0, 1, 3, 2 ** 63, 2 ** 64 - 1, 2 ** 40 - 1, 2 ** 40 + 1])])
def test_e8m0_from_64_bit_integers_rounds_up(sig, values):
    calls = _calls(_with(to_float, T=TYPES["e8m0"]), sig)
    for n in values:
        got = f32(run_chain(calls, n & (2 ** 64 - 1)))
        assert got == math.ldexp(1.0, e8m0_encode(float(abs(n)), True, True) - 127) or (n == 0 and got == 2.0 ** -127), (n, got)


@pytest.mark.parametrize("sig, values", [
    ("(float16,)", [0.0, 1.0, 1.5, 3.0, 65504.0, 6e-8, -2.5]),
    ("(int16,)", [0, 1, 3, 4, 5, 32767, -32768, -3]),
    ("(int32,)", [0, 1, 3, 2 ** 31 - 1, -2 ** 31, 1000001])])
def test_e8m0_from_narrower_numbers_rounds_up(sig, values):
    calls = _calls(_with(to_float, T=TYPES["e8m0"]), sig)
    for n in values:
        arg = int(np.array([n], np.float16).view(np.uint16)[0]) if sig == "(float16,)" else n & (2 ** 64 - 1)
        exact = float(np.float16(n)) if sig == "(float16,)" else float(abs(n))
        got = f32(run_chain(calls, arg))
        assert got == math.ldexp(1.0, e8m0_encode(exact, True, True) - 127), (sig, n, got)


def raw_to_fp8(e):
    return cvt_bfloat16raw_to_fp8(cvt_e8m0_to_bf16raw(e), S, I)


@pytest.mark.parametrize("saturate", [True, False])
@pytest.mark.parametrize("fmt", ["e4m3", "e5m2"])
def test_cvt_bfloat16raw_to_fp8_converts_the_widened_value(fmt, saturate):
    calls = _calls(_with(raw_to_fp8, S=SAT[saturate], I=INTERP[fmt]), "(uint8,)")
    for e in range(256):
        got = run_chain(calls, e) & 0xFF
        x = math.nan if e == 255 else math.ldexp(1.0, e - 127)
        assert got == encode(fmt, x, saturate), (fmt, saturate, e, hex(got))
