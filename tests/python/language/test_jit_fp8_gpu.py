"""fp8 on the GPU: every conversion of numba-cuda's cuda_fp8 bindings compiled by cubridge, over all 256 fp8
bytes (through the values they hold) and the edge floats around every rounding boundary, against the formats'
definitions (fp8_reference.py) and, where numba-cuda is installed, bit for bit against numba-cuda compiling the
same kernels with its own bindings (cuda_fp8.hpp linked in)."""
import math
import types

import numpy as np
import pytest

import cubridge

from fp8_reference import decode, edge_floats, encode, to_int

pytestmark = pytest.mark.gpu

try:  # numba-cuda's own bindings: cubridge compiles them too (the compiler finds them by module name)
    from numba import cuda as numba_cuda
    from numba.cuda._internal import cuda_fp8 as F
    from numba.cuda.api import is_fp8_supported
    from cuda.bindings.runtime import cudaRoundMode
    HAVE_NUMBA = True
except Exception:  # noqa: BLE001 - no numba-cuda: the stand-ins of the CPU tests
    import test_jit_fp8 as F
    from test_jit_fp8 import cudaRoundMode
    HAVE_NUMBA = False

INTERP = {"e4m3": F.fp8_interpretation_t.E4M3, "e5m2": F.fp8_interpretation_t.E5M2}
TYPES = {"e4m3": F.fp8_e4m3, "e5m2": F.fp8_e5m2, "e8m0": F.fp8_e8m0}


if HAVE_NUMBA:  # the number types the kernels call, as numba-cuda's tests spell them
    from numba.cuda import types as _nt
    NUMBERS = {n: getattr(_nt, n) for n in ("float16", "float32", "float64", "bfloat16", "int8", "uint8", "int16",
                                            "uint16", "int32", "uint32", "int64", "uint64")}
else:
    NUMBERS = {n: getattr(np, n) for n in ("float16", "float32", "float64", "int8", "uint8", "int16", "uint16",
                                           "int32", "uint32", "int64", "uint64")}
    NUMBERS["bfloat16"] = cubridge.bfloat16


def _with(fn, **names):
    g = {**fn.__globals__, **NUMBERS, **names, "saturation_t": F.saturation_t, "cudaRoundMode": cudaRoundMode,
         "cvt_float_to_fp8": F.cvt_float_to_fp8, "cvt_double_to_fp8": F.cvt_double_to_fp8,
         "cvt_e8m0_to_bf16raw": F.cvt_e8m0_to_bf16raw, "cvt_float_to_e8m0": F.cvt_float_to_e8m0,
         "cvt_double_to_e8m0": F.cvt_double_to_e8m0, "cvt_bfloat16raw_to_e8m0": F.cvt_bfloat16raw_to_e8m0,
         "cvt_bfloat16raw_to_fp8": F.cvt_bfloat16raw_to_fp8}
    return types.FunctionType(fn.__code__, g, fn.__name__)


def conversions(x, d, n, f16, f32, f64, bf, i8, u8, i16, u16, i32, u32, i64, u64, truth, from_d, from_h, from_n,
                s_ns, s_sat, d_ns, d_sat):
    for i in range(x.size):
        v = T(x[i])
        f16[i] = float16(v)
        f32[i] = float32(v)
        f64[i] = float64(v)
        bf[i] = float32(bfloat16(v))
        i8[i] = int8(v)
        u8[i] = uint8(v)
        i16[i] = int16(v)
        u16[i] = uint16(v)
        i32[i] = int32(v)
        u32[i] = uint32(v)
        i64[i] = int64(v)
        u64[i] = uint64(v)
        if TRUTH:  # cuda_fp8.hpp's operator bool, which numba-cuda 0.30 does not lower (its parity runs without)
            truth[i] = bool(v)
        from_d[i] = float32(T(d[i]))
        from_h[i] = float32(T(float16(x[i])))
        from_n[i] = float32(T(n[i]))
        s_ns[i] = cvt_float_to_fp8(x[i], saturation_t.NOSAT, INTERP)
        s_sat[i] = cvt_float_to_fp8(x[i], saturation_t.SATFINITE, INTERP)
        d_ns[i] = cvt_double_to_fp8(d[i], saturation_t.NOSAT, INTERP)
        d_sat[i] = cvt_double_to_fp8(d[i], saturation_t.SATFINITE, INTERP)


def e8m0_conversions(x, d, n, e, f32, f64, i32, u8, from_d, from_n, raw, rz, ru, rz_sat, d_ru, b_rz, b_ru):
    for i in range(x.size):
        v = T(x[i])
        f32[i] = float32(v)
        f64[i] = float64(v)
        i32[i] = int32(v)
        u8[i] = uint8(v)
        from_d[i] = float32(T(d[i]))
        from_n[i] = float32(T(n[i]))
        r = cvt_e8m0_to_bf16raw(e[i])
        raw[i] = r.x
        rz[i] = cvt_float_to_e8m0(x[i], saturation_t.NOSAT, cudaRoundMode.cudaRoundZero)
        ru[i] = cvt_float_to_e8m0(x[i], saturation_t.NOSAT, cudaRoundMode.cudaRoundPosInf)
        rz_sat[i] = cvt_float_to_e8m0(x[i], saturation_t.SATFINITE, cudaRoundMode.cudaRoundZero)
        d_ru[i] = cvt_double_to_e8m0(d[i], saturation_t.SATFINITE, cudaRoundMode.cudaRoundPosInf)
        b_rz[i] = cvt_bfloat16raw_to_e8m0(r, saturation_t.NOSAT, cudaRoundMode.cudaRoundZero)
        b_ru[i] = cvt_bfloat16raw_to_e8m0(r, saturation_t.SATFINITE, cudaRoundMode.cudaRoundPosInf)


def _run(jit, fn, inputs, out_dtypes):
    outs = [np.zeros(inputs[0].size, dt) for dt in out_dtypes]
    jit(fn)[1, 1](*inputs, *outs)
    return outs


def _cubridge_jit(fn):
    return cubridge.jit(fn)


@pytest.mark.parametrize("fmt", ["e4m3", "e5m2"])
def test_e4m3_e5m2_conversions_match_the_formats(fmt):
    xs = edge_floats(fmt)
    ds = xs.astype(np.float64)
    ns = np.clip(np.nan_to_num(xs, posinf=1e6, neginf=-1e6), -1e6, 1e6).astype(np.int64)
    fn = _with(conversions, T=TYPES[fmt], INTERP=INTERP[fmt], TRUTH=True)
    dts = [np.float16, np.float32, np.float64, np.float32, np.int8, np.uint8, np.int16, np.uint16, np.int32,
           np.uint32, np.int64, np.uint64, np.bool_, np.float32, np.float32, np.float32] + [np.uint8] * 4
    out = _run(_cubridge_jit, fn, [xs, ds, ns], dts)
    for i, x in enumerate(xs):
        b = encode(fmt, float(x), True)
        v = decode(fmt, b)
        assert out[18][i] == encode(fmt, float(x), False, float32_nan=False) or math.isnan(x), (x, out[18][i])
        # a NaN's payload after widening to float64 is the hardware's: E5M2 keeps its top bits (parity below)
        assert out[16][i] == encode(fmt, float(x), False) or (math.isnan(x) and fmt == "e5m2"), (fmt, x, out[16][i])
        assert out[17][i] == b, (fmt, x, out[17][i])
        if math.isnan(v):
            assert math.isnan(out[1][i]) and out[4][i] == 0 and out[8][i] == 0
            continue
        assert out[1][i] == v and out[2][i] == v and out[0][i] == v and out[3][i] == v, (fmt, x)
        for k, (bits, signed) in zip(range(4, 12), [(8, 1), (8, 0), (16, 1), (16, 0), (32, 1), (32, 0), (64, 1), (64, 0)]):
            assert int(out[k][i]) == to_int(v, bits, bool(signed)), (fmt, x, k, out[k][i])
        assert bool(out[12][i]) == ((b & 0x7F) != 0)
        assert out[13][i] == v  # from the float64 (the same value)
        assert out[15][i] == decode(fmt, encode(fmt, float(ns[i]), True))


def test_e8m0_conversions_match_the_format():
    xs = edge_floats("e8m0")
    xs = xs[np.isfinite(xs) & (xs > 0)]
    ds = xs.astype(np.float64)
    ns = np.clip(xs, 1, 2 ** 62).astype(np.int64)
    es = (np.arange(xs.size) % 256).astype(np.uint8)
    fn = _with(e8m0_conversions, T=F.fp8_e8m0)
    dts = [np.float32, np.float64, np.int32, np.uint8, np.float32, np.float32, np.uint16] + [np.uint8] * 6
    out = _run(_cubridge_jit, fn, [xs, ds, ns, es], dts)
    for i, x in enumerate(xs):
        k = math.frexp(float(x))  # x = m * 2**e, 0.5 <= m < 1
        up = k[1] - 1 if k[0] == 0.5 else k[1]  # the exponent of the power of two at or above x
        expect = min(max(up, -127), 127)
        assert out[0][i] == math.ldexp(1.0, expect), (x, out[0][i])
        e = int(es[i])
        assert out[6][i] == (0x7FFF if e == 255 else 0x0040 if e == 0 else e << 7)
        assert out[8][i] == min(max(up, -127), 128) + 127 or (up > 127 and out[8][i] == 0xFF), (x, out[8][i])


def _numba_parity(fn, inputs, dts):
    if not HAVE_NUMBA:
        pytest.skip("numba-cuda is not installed: the parity with its own fp8 bindings is not checked")
    if not numba_cuda.is_available() or not is_fp8_supported():
        pytest.skip("no GPU with fp8 (compute capability 8.9) for numba-cuda")
    ours = _run(_cubridge_jit, fn, inputs, dts)
    theirs = _run(numba_cuda.jit, fn, inputs, dts)
    for k, (a, b) in enumerate(zip(ours, theirs)):
        same = a.view(np.uint8) == b.view(np.uint8)
        assert same.all(), (k, inputs[0][~same.reshape(a.size, -1).all(axis=1)][:8])


@pytest.mark.parametrize("fmt", ["e4m3", "e5m2"])
def test_e4m3_e5m2_conversions_match_numba_cuda_bit_for_bit(fmt):
    xs = edge_floats(fmt)
    ns = np.clip(np.nan_to_num(xs, posinf=1e6, neginf=-1e6), -1e6, 1e6).astype(np.int64)
    fn = _with(conversions, T=TYPES[fmt], INTERP=INTERP[fmt], TRUTH=False)
    dts = [np.float16, np.float32, np.float64, np.float32, np.int8, np.uint8, np.int16, np.uint16, np.int32,
           np.uint32, np.int64, np.uint64, np.bool_, np.float32, np.float32, np.float32] + [np.uint8] * 4
    _numba_parity(fn, [xs, xs.astype(np.float64), ns], dts)


def test_e8m0_conversions_match_numba_cuda_bit_for_bit():
    xs = edge_floats("e8m0")
    ns = np.clip(np.nan_to_num(xs, posinf=1e6, neginf=-1e6), -2 ** 62, 2 ** 62).astype(np.int64)
    es = (np.arange(xs.size) % 256).astype(np.uint8)
    fn = _with(e8m0_conversions, T=F.fp8_e8m0)
    dts = [np.float32, np.float64, np.int32, np.uint8, np.float32, np.float32, np.uint16] + [np.uint8] * 6
    _numba_parity(fn, [xs, xs.astype(np.float64), ns, es], dts)
