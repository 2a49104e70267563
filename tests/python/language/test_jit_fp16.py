"""numba.cuda.fp16 in kernels without a GPU: the functions compile to cuda_fp16.hpp's instructions (add.f16,
setp.*.f16, max.f16, cvt.rpi.f16.f16, the approximate float32 instruction between conversions, ...), with
numba-cuda's types (every argument converts to float16; comparisons return bool), and ptxas assembles them.
hsin and hcos are cuda_fp16.hpp's float32 range reduction and polynomial with its one-ulp fixes, htanh the
float32 tanhf (libdevice) rounded to float16. Values are checked on the GPU by parity/kernels_fp16.py."""
import numpy as np
import pytest

import cubridge
from numba import cuda
from numba.cuda import fp16

CC = (9, 0)


def arithmetic(a, b, c):
    return (fp16.hadd(a, b), fp16.hsub(a, b), fp16.hmul(a, b), fp16.hdiv(a, b), fp16.hfma(a, b, c), fp16.hneg(a),
            fp16.habs(a), fp16.hmax(a, b), fp16.hmin(a, b))


def rounding_and_approximations(a):
    return (fp16.hceil(a), fp16.hfloor(a), fp16.hrint(a), fp16.htrunc(a), fp16.hsqrt(a), fp16.hrsqrt(a),
            fp16.hrcp(a), fp16.hexp2(a), fp16.hlog2(a), fp16.hexp(a), fp16.hexp10(a), fp16.hlog(a), fp16.hlog10(a),
            fp16.htanh_approx(a))


def comparisons(a, b):
    return fp16.heq(a, b), fp16.hne(a, b), fp16.hgt(a, b), fp16.hge(a, b), fp16.hlt(a, b), cuda.fp16.hle(a, b)


def _compile(fn, args):
    ptx, resty = cubridge.compile(fn, "(" + ", ".join(args) + ",)", device=True, abi="c", cc=CC)
    r = cubridge.ptxas_check(ptx, CC)
    assert r, r.log
    return ptx, str(resty)


def test_arithmetic_is_one_f16_instruction_each():
    ptx, resty = _compile(arithmetic, ["float16"] * 3)
    assert resty == "UniTuple(float16 x 9)"
    for ins in ("add.f16", "sub.f16", "mul.f16", "fma.rn.f16", "neg.f16", "abs.f16", "max.f16", "min.f16",
                "rcp.approx.ftz.f32"):
        assert ins in ptx, ins


def test_rounding_and_approximations():
    ptx, resty = _compile(rounding_and_approximations, ["float16"])
    assert resty == "UniTuple(float16 x 14)"
    for ins in ("cvt.rpi.f16.f16", "cvt.rmi.f16.f16", "cvt.rni.f16.f16", "cvt.rzi.f16.f16", "sqrt.approx.ftz.f32",
                "rsqrt.approx.ftz.f32", "ex2.approx.ftz.f32", "lg2.approx.ftz.f32", "set.eq.f16.f16",
                "tanh.approx.f16"):
        assert ins in ptx, ins


def test_comparisons_return_bool():
    ptx, resty = _compile(comparisons, ["float16", "float16"])
    assert resty == "UniTuple(bool x 6)"
    for op in ("eq", "ne", "gt", "ge", "lt", "le"):
        assert f"setp.{op}.f16" in ptx


def test_arguments_convert_to_float16_as_numba_converts_them():
    assert _compile(arithmetic, ["float32", "int32", "float64"])[1] == "UniTuple(float16 x 9)"
    assert _compile(comparisons, ["int8", "bool"])[1] == "UniTuple(bool x 6)"


def trigonometry(a):
    return fp16.hsin(a), fp16.hcos(a), fp16.htanh(a)


def test_sin_cos_are_cuda_fp16s_reduction_and_polynomial_and_tanh_is_tanhf():
    ptx, resty = _compile(trigonometry, ["float16"])
    assert resty == "UniTuple(float16 x 3)"
    # the quadrant from a * 2/pi rounded with the 1.5 * 2**23 shift, the reduction by pi/2 in two parts, the
    # polynomials' leading coefficients, the sign of the quadrant and the one-ulp fixes of 0x32B3, 0x5CB0, 0x2B7C
    for ins in ("fma.rn.f32", "0f3F22F983", "0f4B400000", "0fBFC90FDA", "0fB3A22168", "0f37CCF5CE", "0fB94CA1F9",
                "neg.f32", "cvt.rn.f16.f32", "0x32B3", "0x5CB0", "0x2B7C", "set.eq.f16.f16"):
        assert ins in ptx, ins
    ir = cubridge._compiler._compile_result(trigonometry, "(float16,)", device=True, abi="c", cc=CC,
                                            output="llvm").nvvm_ir
    assert "call float @__nv_tanhf(float" in ir and "fptrunc float" in ir


def fp16_unknown(a):
    return fp16.hpow(a)


def fp16_arity(a):
    return fp16.hadd(a)


def fp16_complex(a):
    return fp16.hneg(a)


def test_fp16_refusals_name_the_function_and_what_is_accepted():
    names = r"hadd, hsub, hmul, hdiv, hfma, hneg, habs, hmax, hmin, hceil, hfloor, hrint, htrunc, hsqrt, hrsqrt, hrcp"
    with pytest.raises(cubridge.CompileError, match=r"fp16\.hpow is not a numba\.cuda\.fp16 function; the fp16 "
                                                    r"functions cubridge compiles are: " + names):
        _compile(fp16_unknown, ["float16"])
    with pytest.raises(cubridge.CompileError, match=r"fp16\.hadd\(\) takes 2 argument\(s\), got 1"):
        _compile(fp16_arity, ["float16"])
    with pytest.raises(cubridge.CompileError, match=r"fp16\.hneg\(\): argument 1 must be a real number \(it converts "
                                                    r"to float16\), got complex64"):
        _compile(fp16_complex, ["complex64"])


def test_fp16_result_types_match_numbas_typing():
    numba_cuda = pytest.importorskip("numba.cuda", reason="numba is not installed")
    if getattr(numba_cuda, "implementation", "") != "NVIDIA":
        pytest.skip("numba's built-in numba.cuda types fp16 differently from numba-cuda")
    from numba.cuda import types
    from numba.cuda.descriptor import cuda_target
    ctx = cuda_target.typing_context
    ctx.refresh()
    for name, n in (("hadd", 2), ("hfma", 3), ("heq", 2), ("hsqrt", 1), ("hdiv", 2), ("hlog2", 1)):
        sig = ctx.resolve_function_type(ctx.resolve_value_type(getattr(fp16, name)), (types.float32,) * n, {})
        assert str(sig.return_type) == ("bool" if name == "heq" else "float16")


INTEGERS = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")


def _cast_to(ty):
    ns = {}
    exec(f"import numpy as np\ndef to_{ty}(x):\n    return np.{ty}(x)\n", ns)
    return ns[f"to_{ty}"]


def to_float16(x):
    return np.float16(x)


@pytest.mark.parametrize("ty", INTEGERS)
def test_float16_to_integer_is_one_cvt_rni_as_numba_writes_it(ty):
    # numba-cuda's float16 -> integer cast: cvt.rni (nearest, ties to even, saturating), not a truncation
    ptx, resty = _compile(_cast_to(ty), ["float16"])
    assert resty == ty
    assert f"cvt.rni.{ty[0] if ty[0] == 'u' else 's'}{ty.lstrip('uint')}.f16" in ptx
    assert "cvt.rzi" not in ptx


@pytest.mark.parametrize("ty", INTEGERS)
def test_integer_to_float16_is_one_cvt_rn_as_numba_writes_it(ty):
    ptx, resty = _compile(to_float16, [ty])
    assert resty == "float16"
    assert f"cvt.rn.f16.{ty[0] if ty[0] == 'u' else 's'}{ty.lstrip('uint')}" in ptx
