"""bfloat16 in kernels without a GPU (numba-cuda's numba.cuda.bf16, here under cubridge.bf16's same names).

The rules, one test each:
- bfloat16(x) takes float16, float32, float64 and every integer; the value is rounded to nearest even once
  (float32 by cvt.rn.bf16.f32; integers and float64 by round-to-odd through float32, as cuda_bf16.hpp's
  sm_80 path does);
- a bfloat16 converts to float32 exactly, to float64 through float32, to integers rounded toward zero with
  saturation (cvt.rzi), to bool as "any bit but the sign"; to float16 and complex it does not (numba-cuda
  has no such cast);
- + - * / on two bfloat16: add.bf16 / sub.bf16 / mul.bf16 on sm_90, fma.rn.bf16 before; / is the header's
  div.approx.f32 sequence; comparisons are float32 setp (!= unordered, as cuda_bf16's operator!=);
- math.trunc/ceil/floor/sqrt/log/log10/cos/sin/tanh/exp/exp2 on a bfloat16 are numba-cuda's overloads
  (htrunc, ...); other math functions are refused by name;
- every binding of cubridge.bf16 compiles and ptxas assembles it for sm_80 and sm_90, with cuda_bf16.h's
  result type;
- bfloat16 needs compute capability 8.0: below, or with no cc, it is refused by name;
- float("nan") / float("inf") with a string literal fold to the float64 CPython parses.
Values are checked on the GPU by test_jit_bf16_gpu.py (against numba-cuda where it is installed)."""
import math

import numpy as np
import pytest

import cubridge
from cubridge import bf16, bfloat16
from cubridge.bf16 import hadd, hdiv, hisinf, hisnan, bfloat16_as_int16, int16_as_bfloat16

CCS = [(8, 0), (9, 0)]


def _compile(fn, args, cc=(9, 0)):
    ptx, resty = cubridge.compile(fn, "(" + ", ".join(args) + ",)", device=True, abi="c", cc=cc)
    r = cubridge.ptxas_check(ptx, cc)
    assert r, r.log
    return ptx, str(resty)


def make(x):
    return bfloat16(x)


@pytest.mark.parametrize("arg, instruction, to_odd", [
    ("float32", "cvt.rn.bf16.f32", False), ("float64", "cvt.rz.f32.f64", True), ("float16", "cvt.f32.f16", False),
    ("int8", "cvt.rn.f32.s16", False), ("uint8", "cvt.rn.f32.u16", False), ("int16", "cvt.rn.f32.s16", False),
    ("uint16", "cvt.rn.f32.u16", False), ("int32", "cvt.rz.f32.s32", True), ("uint32", "cvt.rz.f32.u32", True),
    ("int64", "cvt.rz.f32.s64", True), ("uint64", "cvt.rz.f32.u64", True)])
def test_the_constructor_takes_floats_and_integers(arg, instruction, to_odd):
    ptx, resty = _compile(make, [arg])
    assert resty == "bfloat16"
    assert "cvt.rn.bf16.f32" in ptx and instruction in ptx
    # 16-bit integers are exact in float32 (8-bit ones widen to them first); wider integers and float64 round
    # to odd: toward zero, the last bit set when inexact, so that the one rounding to bfloat16 is correct
    assert ("or.b32" in ptx) == to_odd


def to_types(x):
    h = bfloat16(x)
    return (np.float32(h), np.float64(h), np.int8(h), np.uint8(h), np.int16(h), np.uint16(h), np.int32(h),
            np.uint32(h), np.int64(h), np.uint64(h), bool(h))


def test_a_bfloat16_converts_to_numbers_as_cuda_bf16s_operators():
    ptx, resty = _compile(to_types, ["float32"])
    assert resty == ("Tuple(float32, float64, int8, uint8, int16, uint16, int32, uint32, int64, uint64, bool)")
    assert "mov.b32 f, {0, " in ptx  # exact widening: the bits in the high half
    for t in ("s8", "u8", "s16", "u16", "s32", "u32", "s64", "u64"):
        assert f"cvt.rzi.{t}.f32" in ptx, t
    assert "cvt.f64.f32" in ptx


def to_half(x):
    return np.float16(bfloat16(x))


def to_complex(x):
    return np.complex64(bfloat16(x))


def from_complex(x):
    return bfloat16(x)


def test_casts_numba_cuda_lacks_are_refused():
    with pytest.raises(cubridge.CompileError, match=r"cannot convert bfloat16 to float16 \(a bfloat16 converts to "
                                                    r"float32, float64, bool and integers\)"):
        _compile(to_half, ["float32"])
    with pytest.raises(cubridge.CompileError, match="cannot convert bfloat16 to complex64"):
        _compile(to_complex, ["float32"])
    with pytest.raises(cubridge.CompileError, match=r"cannot convert complex128 to bfloat16 \(bfloat16\(\) takes "
                                                    r"float16, float32, float64 and integers\)"):
        _compile(from_complex, ["complex128"])


def operators(x, y):
    a, b = bfloat16(x), bfloat16(y)
    c = a
    c += b
    c *= b
    return (np.float32(a + b), np.float32(a - b), np.float32(a * b), np.float32(a / b), np.float32(-a),
            np.float32(+a), np.float32(c), a == b, a != b, a < b, a <= b, a > b, a >= b)


@pytest.mark.parametrize("cc", CCS, ids=["sm_80", "sm_90"])
def test_operators_are_cuda_bf16s(cc):
    ptx, resty = _compile(operators, ["float32", "float32"], cc)
    assert resty == "Tuple(float32, float32, float32, float32, float32, float32, float32, bool, bool, bool, bool, bool, bool)"
    if cc == (9, 0):
        for ins in ("add.bf16", "sub.bf16", "mul.bf16"):
            assert ins in ptx, ins
    else:
        assert "fma.rn.bf16" in ptx and "add.bf16" not in ptx
    assert "div.approx.f32" in ptx and "neg.bf16" in ptx
    for op in ("eq", "neu", "lt", "le", "gt", "ge"):
        assert f"setp.{op}.f32" in ptx, op


def mixed(x):
    return bfloat16(x) + 1


def mixed_bits(x):
    return bfloat16(x) & 1


def test_mixed_operands_rank_as_numba_cuda():
    # cuda_bf16's + template holds numba's BinOp cases too: bfloat16 + int64 is float64 + float64 (both safe)
    ptx, resty = _compile(mixed, ["float32"])
    assert resty == "float64"
    assert "add.f64" in ptx or "add.rn.f64" in ptx
    with pytest.raises(cubridge.CompileError, match=r"unsupported operand types for &: bfloat16 and int64 "
                                                    r"\(numba-cuda's bfloat16 operators"):
        _compile(mixed_bits, ["float32"])


def math_functions(x):
    h = bfloat16(x)
    return (math.trunc(h), math.ceil(h), math.floor(h), math.sqrt(h), math.log(h), math.log10(h), math.cos(h),
            math.sin(h), math.tanh(h), math.exp(h), math.exp2(h))


def math_fabs(x):
    return math.fabs(bfloat16(x))


def test_math_on_a_bfloat16_is_numba_cudas_overloads():
    ptx, resty = _compile(math_functions, ["float32"])
    assert resty == "UniTuple(bfloat16 x 11)"
    for ins in ("cvt.rzi.f32.f32", "cvt.rpi.f32.f32", "cvt.rmi.f32.f32", "sqrt.approx.f32", "lg2.approx.f32",
                "tanh.approx.f32", "ex2.approx.f32"):
        assert ins in ptx, ins
    assert "__nv_sinf" in ptx or "sin.approx" not in ptx  # sinf/cosf: libdevice's, inlined
    with pytest.raises(cubridge.CompileError, match=r"math.fabs on a bfloat16 is not supported: numba-cuda "
                                                    r"overloads only math.trunc"):
        _compile(math_fabs, ["float32"])


# cuda_bf16.h's result type of every binding, by the type letters of bf16_functions.hpp.
RESULTS = {"?": "bool", "i": "int32", "f": "float32", "s": "int16", "S": "uint16", "c": "int8", "C": "uint8"}


def _expected_result(name, binding):
    compares = {f"__h{c}{u}" for c in ("eq", "ne", "ge", "gt", "le", "lt") for u in ("", "u")}
    if binding == "__hisnan" or binding in compares:
        return "bool"
    if binding == "__hisinf":
        return "int32"
    if binding == "__bfloat162float":
        return "float32"
    if binding.startswith("__bfloat162"):
        c = binding[len("__bfloat162"):].rsplit("_", 1)[0]
        return {"char": "int8", "uchar": "uint8", "short": "int16", "ushort": "uint16", "int": "int32",
                "uint": "uint32", "ll": "int64", "ull": "uint64"}[c]
    if binding == "__bfloat16_as_short":
        return "int16"
    if binding == "__bfloat16_as_ushort":
        return "uint16"
    return "bfloat16"


def _call_with(name, nargs):
    src = f"def f({', '.join(f'a{i}' for i in range(nargs))}):\n    return fn({', '.join(f'a{i}' for i in range(nargs))})\n"
    env = {"fn": getattr(bf16, name)}
    exec(src, env)
    return env["f"]


@pytest.mark.parametrize("cc", CCS, ids=["sm_80", "sm_90"])
def test_every_binding_compiles_with_its_c_result_type(cc):
    for name, binding in sorted(bf16._BINDINGS.items()):
        for nargs in (1, 2, 3):
            f = _call_with(name, nargs)
            try:
                _, resty = _compile(f, ["float32"] * nargs, cc)
            except cubridge.CompileError as e:
                assert "argument(s), got" in str(e), (name, str(e))
                continue
            assert resty == _expected_result(name, binding), (name, resty)
            break
        else:
            pytest.fail(f"{name} compiled with no arity")


def bits(x):
    return bfloat16_as_int16(x), int16_as_bfloat16(bfloat16_as_int16(x)), hisinf(bfloat16(x)), hisnan(bfloat16(x))


def test_bit_casts_take_numbers_as_numba_converts_them():
    # an int16 passed where a bfloat16 is wanted converts by value (__short2bfloat16_rn), as numba-cuda does
    ptx, resty = _compile(bits, ["int16"])
    assert resty == "Tuple(int16, bfloat16, int32, bool)"
    assert "cvt.rn.f32.s16" in ptx


def division(x, y):
    return hdiv(bfloat16(x), bfloat16(y)), hadd(x, y)


@pytest.mark.parametrize("cc", [None, (7, 5)], ids=["no-cc", "sm_75"])
def test_bfloat16_needs_compute_capability_8(cc):
    with pytest.raises(cubridge.CompileError, match=r"bfloat16 needs compute capability 8.0 or higher \(numba-cuda: "
                                                    r"cuda.is_bfloat16_supported\(\)\); the target is "):
        cubridge.compile(division, "(float32, float32)", device=True, abi="c", cc=cc)


def nan_and_inf(out):
    out[0] = float("nan")
    out[1] = float("-inf")
    out[2] = float(" 1.5 ")


def bad_float_text(out):
    out[0] = float("0x10")


def test_float_of_a_string_literal_folds_to_its_value():
    ptx, _ = cubridge.compile_ptx(nan_and_inf, "void(float64[:])", cc=(9, 0))
    stored = {int(w) for w in __import__("re").findall(r"mov\.u64 \t%rd\d+, (-?\d+);", ptx)}  # the bits, as integers
    assert {0x7FF8000000000000, -0x0010000000000000, 0x3FF8000000000000} <= stored, stored
    with pytest.raises(cubridge.CompileError, match=r"could not convert string to float: '0x10'"):
        cubridge.compile_ptx(bad_float_text, "void(float64[:])", cc=(9, 0))


def through_the_module(x, y):
    return bf16.hadd(bf16.bfloat16(x), bf16.float32_to_bfloat16_rz(y)), cubridge.bfloat16(x)


def unknown_member(x):
    return bf16.hpow(x)


def test_the_module_names_resolve_as_numba_cuda_bf16s():
    assert _compile(through_the_module, ["float32", "float32"])[1] == "UniTuple(bfloat16 x 2)"
    with pytest.raises(cubridge.CompileError, match=r"'cubridge.bf16.hpow' is not a function of cubridge.bf16 "
                                                    r"\(it offers numba.cuda.bf16's names"):
        _compile(unknown_member, ["float32"])
    assert bf16._BINDINGS["int16_to_bfloat16_rz"] == "__short2bfloat16_rz"
    assert bf16._BINDINGS["short2bfloat16_rz"] == "__short2bfloat16_rz" and bf16._BINDINGS["hadd"] == "__hadd"


def literal_for_bf16(x):
    return hadd(bfloat16(x), 1)


def test_an_integer_constant_for_a_bfloat16_is_refused():
    # numba-cuda casts an integer literal to bfloat16 by truncating its float32 bits: hadd(a, 1) adds 0.0
    with pytest.raises(cubridge.CompileError, match=r"cuda_bf16.__hadd\(\): argument 2 is an integer constant, "
                                                    r"which numba-cuda converts to bfloat16 by keeping the low 16 "
                                                    r"bits of its float32"):
        _compile(literal_for_bf16, ["float32"])
