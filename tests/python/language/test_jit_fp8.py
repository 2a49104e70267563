"""numba-cuda's fp8 (numba.cuda._internal.cuda_fp8, generated from cuda_fp8.h) in kernels, without a GPU.

numba-cuda is not installed here: its objects are stood in for by classes and functions of the same names
and module, which is how the compiler finds them. The rules, one test each:
- fp8_e4m3(x), fp8_e5m2(x), fp8_e8m0(x) take float16, float32, float64, bfloat16 and every integer;
  e4m3/e5m2 round to nearest even with saturation to the largest finite value (float32 and float16 by
  sm_89's cvt.rn.satfinite, float64 by cuda_fp8.hpp's integer algorithm, integers through float32); e8m0
  rounds up (through a bfloat16 rounded up, float64 through float32 with a sticky bit);
- an fp8 converts to float16 (cvt.rn.f16x2.<fmt>), float32, float64, bfloat16 (rounded toward zero), the
  16/32/64-bit integers (cvt.rzi from float16; e8m0 from float32), the 8-bit ones by the header's
  saturation rules, and bool (e4m3/e5m2: any bit but the sign; e8m0: always true);
- the cvt_* intrinsics give the fp8 byte (uint8) or a bfloat16_raw (.x its bits) and choose their
  conversion from constant enum arguments (saturation_t, fp8_interpretation_t, cudaRoundMode): NOSAT never
  uses the saturating instruction; a non-constant or out-of-range member is refused by name, and so are
  the roundings cuda_fp8.hpp asserts against;
- fp8 has no arithmetic (as in numba-cuda); its default constructor (uninitialized) is refused; fp8 needs
  compute capability 8.9, and every compiled kernel assembles with ptxas for sm_89 and sm_90.
Values are checked on the GPU by test_jit_fp8_gpu.py (against fp8_reference.py and numba-cuda)."""
import enum

import numpy as np
import pytest

import cubridge

from fp8_reference import decode, encode, to_int

_FP8 = "numba.cuda._internal.cuda_fp8"


def _class(name):
    return type(name, (), {"__module__": _FP8})


def _function(name):
    def f(*args):
        raise RuntimeError("a stand-in")
    f.__name__ = f.__qualname__ = name
    f.__module__ = _FP8
    return f


fp8_e4m3, fp8_e5m2, fp8_e8m0 = _class("fp8_e4m3"), _class("fp8_e5m2"), _class("fp8_e8m0")
fp8x2_e4m3 = _class("fp8x2_e4m3")
cvt_float_to_fp8, cvt_double_to_fp8 = _function("cvt_float_to_fp8"), _function("cvt_double_to_fp8")
cvt_bfloat16raw_to_fp8 = _function("cvt_bfloat16raw_to_fp8")
cvt_float_to_e8m0, cvt_double_to_e8m0 = _function("cvt_float_to_e8m0"), _function("cvt_double_to_e8m0")
cvt_bfloat16raw_to_e8m0 = _function("cvt_bfloat16raw_to_e8m0")
cvt_e8m0_to_bf16raw = _function("cvt_e8m0_to_bf16raw")


class saturation_t(enum.IntEnum):
    NOSAT = 0
    SATFINITE = 1


class fp8_interpretation_t(enum.IntEnum):
    E4M3 = 0
    E5M2 = 1


class cudaRoundMode(enum.IntEnum):
    cudaRoundNearest = 0
    cudaRoundZero = 1
    cudaRoundPosInf = 2
    cudaRoundMinInf = 3


saturation_t.__module__ = fp8_interpretation_t.__module__ = _FP8
cudaRoundMode.__module__ = "cuda.bindings.runtime"


class FastRoundMode(int):
    """cuda-bindings 13's shape of cudaRoundMode (its FastEnum): an int subclass, not an Enum, whose members are
    its own instances, listed in __members__."""


FastRoundMode.__members__ = {}
for _name, _value in cudaRoundMode.__members__.items():
    _member = int.__new__(FastRoundMode, int(_value))
    setattr(FastRoundMode, _name, _member)
    FastRoundMode.__members__[_name] = _member
FastRoundMode.__module__ = "cuda.bindings.runtime"

TYPES = {"e4m3": fp8_e4m3, "e5m2": fp8_e5m2, "e8m0": fp8_e8m0}
CCS = [(8, 9), (9, 0)]


def _compile(fn, args, cc=(9, 0)):
    ptx, resty = cubridge.compile(fn, "(" + ", ".join(args) + ",)", device=True, abi="c", cc=cc)
    r = cubridge.ptxas_check(ptx, cc)
    assert r, r.log
    return ptx, str(resty)


def _with(fn, **names):
    import types
    return types.FunctionType(fn.__code__, {**fn.__globals__, **names}, fn.__name__)


def through(x):
    return np.float32(T(x))


# ---- constructors ----

@pytest.mark.parametrize("fmt, arg, instructions", [
    ("e4m3", "float32", ["cvt.rn.satfinite.e4m3x2.f32"]),
    ("e5m2", "float32", ["cvt.rn.satfinite.e5m2x2.f32"]),
    ("e4m3", "float16", ["cvt.rn.satfinite.e4m3x2.f16x2"]),
    ("e5m2", "float16", ["cvt.rn.satfinite.e5m2x2.f16x2"]),
    ("e4m3", "int8", ["cvt.rn.f32.s16", "cvt.rn.satfinite.e4m3x2.f32"]),
    ("e5m2", "uint8", ["cvt.rn.f32.u16", "cvt.rn.satfinite.e5m2x2.f32"]),
    ("e4m3", "int32", ["cvt.rn.f32.s32", "cvt.rn.satfinite.e4m3x2.f32"]),
    ("e4m3", "uint64", ["cvt.rn.f32.u64", "cvt.rn.satfinite.e4m3x2.f32"]),
    # float64: cuda_fp8.hpp's algorithm, with its overflow threshold (448 + 16 for E4M3, 61440 for E5M2)
    ("e4m3", "float64", ["0x407D000000000000"]),
    ("e5m2", "float64", ["0x40EDFFFFFFFFFFFF"]),
    # e8m0: the exponent of a bfloat16 rounded up (sm_90: cvt.rp.bf16.f32)
    ("e8m0", "float32", ["cvt.rp.bf16.f32"]),
    ("e8m0", "float64", ["cvt.rn.f32.f64", "cvt.rp.bf16.f32"]),
    ("e8m0", "int32", ["cvt.rn.f64.s32", "cvt.rp.bf16.f32"]),
    ("e8m0", "int64", ["cvt.rz.f32.s64", "cvt.rzi.s64.f32"]),
    ("e8m0", "uint16", ["cvt.rn.f32.u16", "cvt.rp.bf16.f32"]),
])
def test_the_constructors_take_floats_and_integers(fmt, arg, instructions):
    ptx, resty = _compile(_with(through, T=TYPES[fmt]), [arg])
    assert resty == "float32"
    for i in instructions:
        assert i in ptx, i


def test_the_constructor_takes_a_bfloat16():
    def f(x):
        return np.float32(fp8_e4m3(cubridge.bfloat16(x)))
    ptx, resty = _compile(f, ["float32"])
    assert resty == "float32" and "cvt.rn.satfinite.e4m3x2.f32" in ptx


def test_e8m0_rounds_up_by_the_sm89_integer_path_below_sm90():
    ptx, _ = _compile(_with(through, T=fp8_e8m0), ["float32"], cc=(8, 9))
    assert "cvt.rp.bf16.f32" not in ptx  # an sm_90 instruction: the header's integer rounding instead


# ---- conversions ----

def to_all(x):
    v = T(x)
    return (np.float16(v), np.float32(v), np.float64(v), cubridge.bfloat16(v), np.int8(v), np.uint8(v), np.int16(v),
            np.uint16(v), np.int32(v), np.uint32(v), np.int64(v), np.uint64(v), bool(v))


@pytest.mark.parametrize("cc", CCS)
@pytest.mark.parametrize("fmt", ["e4m3", "e5m2", "e8m0"])
def test_an_fp8_converts_to_every_number_type(fmt, cc):
    ptx, resty = _compile(_with(to_all, T=TYPES[fmt]), ["float32"], cc=cc)
    assert resty == ("Tuple(float16, float32, float64, bfloat16, int8, uint8, int16, uint16, int32, uint32, int64, "
                     "uint64, bool)")
    if fmt == "e8m0":
        for i in ["cvt.rn.f16.f32", "cvt.rzi.s16.f32", "cvt.rzi.u64.f32"]:
            assert i in ptx
    else:
        for i in [f"cvt.rn.f16x2.{fmt}x2", "cvt.f32.f16", "cvt.rz.bf16.f32", "cvt.rzi.s16.f16", "cvt.rzi.u32.f16",
                  "cvt.rzi.s64.f16"]:
            assert i in ptx


# ---- the storage intrinsics ----

def cvt_all(x, d):
    return (cvt_float_to_fp8(x, saturation_t.NOSAT, fp8_interpretation_t.E5M2),
            cvt_float_to_fp8(x, saturation_t.SATFINITE, fp8_interpretation_t.E4M3),
            cvt_double_to_fp8(d, saturation_t.SATFINITE, fp8_interpretation_t.E5M2),
            cvt_float_to_e8m0(x, saturation_t.NOSAT, cudaRoundMode.cudaRoundPosInf),
            cvt_double_to_e8m0(d, saturation_t.SATFINITE, cudaRoundMode.cudaRoundZero),
            cvt_bfloat16raw_to_fp8(cvt_e8m0_to_bf16raw(np.uint8(127)), saturation_t.NOSAT, fp8_interpretation_t.E4M3),
            cvt_bfloat16raw_to_e8m0(cvt_e8m0_to_bf16raw(np.uint8(126)), saturation_t.SATFINITE,
                                    cudaRoundMode.cudaRoundNearest),
            cvt_e8m0_to_bf16raw(np.uint8(127)).x)


@pytest.mark.parametrize("cc", CCS)
def test_the_cvt_intrinsics_give_the_storage_types(cc):
    ptx, resty = _compile(cvt_all, ["float32", "float64"], cc=cc)
    assert resty == "Tuple(uint8 x 7, uint16)" or resty == "Tuple(uint8, uint8, uint8, uint8, uint8, uint8, uint8, uint16)"


def nosat(x):
    return cvt_float_to_fp8(x, saturation_t.NOSAT, fp8_interpretation_t.E4M3)


def satfinite(x):
    return cvt_float_to_fp8(x, saturation_t.SATFINITE, fp8_interpretation_t.E4M3)


def test_nosat_never_uses_the_saturating_instruction():
    ptx, resty = _compile(nosat, ["float32"])
    assert resty == "uint8"
    assert "satfinite" not in ptx and "0x407D000000000000" in ptx
    ptx, _ = _compile(satfinite, ["float32"])
    assert "cvt.rn.satfinite.e4m3x2.f32" in ptx


def runtime_mode(x, s):
    return cvt_float_to_fp8(x, s, fp8_interpretation_t.E4M3)


def test_a_runtime_enum_argument_is_refused():
    with pytest.raises(cubridge.CompileError, match=r"cuda_fp8.cvt_float_to_fp8\(\): argument 2 must be a member of "
                                                    r"saturation_t \(a constant such as saturation_t.SATFINITE\)"):
        _compile(runtime_mode, ["float32", "int64"])


def nearest_e8m0(x):
    return cvt_float_to_e8m0(x, saturation_t.NOSAT, cudaRoundMode.cudaRoundNearest)


def test_a_rounding_the_header_asserts_against_is_refused():
    with pytest.raises(cubridge.CompileError, match=r"takes cudaRoundMode.cudaRoundZero or "
                                                    r"cudaRoundMode.cudaRoundPosInf only .*got member 0"):
        _compile(nearest_e8m0, ["float32"])


def raw_from_a_number(x):
    return cvt_bfloat16raw_to_fp8(x, saturation_t.NOSAT, fp8_interpretation_t.E4M3)


def test_bfloat16raw_takes_only_a_bfloat16_raw():
    with pytest.raises(cubridge.CompileError, match=r"argument 1 must be a bfloat16_raw \(what cvt_e8m0_to_bf16raw "
                                                    r"returns\).*got float32"):
        _compile(raw_from_a_number, ["float32"])


def round_up_e8m0(x):
    return cvt_float_to_e8m0(x, saturation_t.SATFINITE, cudaRoundMode.cudaRoundPosInf)


def test_cuda_bindings_fast_enum_members_are_constants():
    ptx, resty = _compile(_with(round_up_e8m0, cudaRoundMode=FastRoundMode), ["float32"])
    assert resty == "uint8" and "cvt.rp.bf16.f32" in ptx


# ---- refusals ----

def add(x):
    return np.float32(fp8_e4m3(x) + fp8_e4m3(x))


def test_fp8_has_no_arithmetic():
    with pytest.raises(cubridge.CompileError, match=r"unsupported operand types for \+: fp8_e4m3 and fp8_e4m3"):
        _compile(add, ["float32"])


def default(x):
    return np.float32(fp8_e5m2())


def test_the_default_constructor_is_refused():
    with pytest.raises(cubridge.CompileError, match=r"fp8_e5m2\(\) with no argument is numba-cuda's default "
                                                    r"constructor, which leaves the value uninitialized"):
        _compile(default, ["float32"])


def paired(x):
    return fp8x2_e4m3(x)


def test_the_paired_forms_are_refused_by_name():
    with pytest.raises(cubridge.CompileError, match=r"cuda_fp8.fp8x2_e4m3 is not an fp8 binding cubridge compiles"):
        _compile(paired, ["float32"])


def from_fp8(x):
    return np.float32(fp8_e4m3(fp8_e5m2(x)))


def test_one_fp8_type_does_not_construct_another():
    with pytest.raises(cubridge.CompileError, match=r"cannot convert fp8_e5m2 to fp8_e4m3"):
        _compile(from_fp8, ["float32"])


@pytest.mark.parametrize("cc, shown", [((8, 0), "8.0"), ((8, 6), "8.6")])
def test_fp8_needs_compute_capability_8_9(cc, shown):
    with pytest.raises(cubridge.CompileError, match=r"fp8_e4m3\(\): fp8 needs compute capability 8.9 or higher "
                                                    r"\(numba-cuda: cuda.is_fp8_supported\(\)\); the target is " + shown):
        cubridge.compile(_with(through, T=fp8_e4m3), "(float32,)", device=True, abi="c", cc=cc)


# ---- the reference the GPU tests compare with ----

def test_the_reference_decodes_the_formats_limits():
    assert decode("e4m3", 0x7E) == 448.0 and decode("e4m3", 0x01) == 2.0 ** -9 and np.isnan(decode("e4m3", 0xFF))
    assert decode("e5m2", 0x7B) == 57344.0 and decode("e5m2", 0x7C) == np.inf and np.isnan(decode("e5m2", 0x7D))
    assert decode("e8m0", 0) == 2.0 ** -127 and decode("e8m0", 254) == 2.0 ** 127 and np.isnan(decode("e8m0", 255))
    # every finite byte encodes back to itself (negative zero included)
    for fmt in ("e4m3", "e5m2"):
        for b in range(256):
            v = decode(fmt, b)
            if np.isfinite(v):
                assert encode(fmt, v, True) == b


def test_the_reference_rounds_as_cuda_fp8_documents():
    assert encode("e4m3", 464.0, False) == 0x7E  # the tie below the overflow threshold goes to 448 (even)
    assert encode("e4m3", 464.0001, False) == 0x7F and encode("e4m3", 1e20, True) == 0x7E
    assert encode("e5m2", 61440.0, False) == 0x7C and encode("e5m2", 61439.0, False) == 0x7B
    assert encode("e5m2", 1e20, True) == 0x7B and encode("e4m3", float("nan"), True) == 0x7F
    assert encode("e4m3", 2.0 ** -10, True) == 0 and encode("e4m3", -(2.0 ** -10) * 1.01, True) == 0x81
    assert to_int(-3.5, 8, False) == 0 and to_int(300.0, 8, True) == 127 and to_int(float("nan"), 32, True) == 0


# ---- numba-cuda's own test kernels (test_fp8_bindings.py), with the stand-ins ----

def _closure_kernel(fp8_type, test_val):
    def kernel(result):
        fp8_val = fp8_type(np.float32(test_val))
        result[0] = np.uint64(np.uint8(fp8_val))
        result[1] = np.uint64(np.uint16(fp8_val))
        result[2] = np.uint64(fp8_val)
        result[3] = np.uint64(np.float32(np.float16(fp8_val)))
    return kernel


@pytest.mark.parametrize("fmt", ["e4m3", "e5m2", "e8m0"])
def test_an_fp8_type_captured_by_a_closure_compiles(fmt):
    ptx, _ = cubridge.compile_ptx(_closure_kernel(TYPES[fmt], 10.0), "void(uint64[:])", cc=(9, 0))
    assert cubridge.ptxas_check(ptx, (9, 0))


def e8m0_roundtrip(result, x):
    raw = cvt_e8m0_to_bf16raw(x[0])
    result[0] = cvt_bfloat16raw_to_fp8(raw, saturation_t.NOSAT, fp8_interpretation_t.E5M2)
    result[1] = cvt_bfloat16raw_to_e8m0(raw, saturation_t.NOSAT, cudaRoundMode.cudaRoundPosInf)
    result[2] = raw.x


def test_a_bfloat16_raw_flows_from_cvt_e8m0_to_bf16raw():
    ptx, _ = cubridge.compile_ptx(e8m0_roundtrip, "void(uint16[:], uint8[:])", cc=(9, 0))
    assert cubridge.ptxas_check(ptx, (9, 0))
    assert "0x7FFF" in ptx and "0x0040" in ptx  # e8m0's NaN and 2^-127 cases


class AttributeRoundMode(int):
    """A FastEnum that keeps no __members__: its members are only class attributes of its own type."""


for _name, _value in cudaRoundMode.__members__.items():
    setattr(AttributeRoundMode, _name, int.__new__(AttributeRoundMode, int(_value)))
AttributeRoundMode.__module__ = "cuda.bindings.runtime"


def test_fast_enum_members_are_found_without_members_mapping():
    ptx, resty = _compile(_with(round_up_e8m0, cudaRoundMode=AttributeRoundMode), ["float32"])
    assert resty == "uint8" and "cvt.rp.bf16.f32" in ptx
