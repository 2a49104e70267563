"""cmath in kernels without a GPU: every function numba-cuda compiles (exp, log with one or two arguments, log10,
sqrt, the trigonometric and hyperbolic functions and their inverses, phase, polar, rect, isnan, isinf, isfinite)
and its constants, with numba-cuda's result type for every argument type (measured with numba-cuda 0.30.4's
compile_ptx, and checked again against numba's CUDA typing where it types cmath). The implementations are
cubridge's cmath prelude (src/compiler/kernel_library/cmath_prelude.cpp), compiled with the kernel; their values are checked
on the GPU by parity/kernels_cmath.py."""
import cmath

import pytest

import cubridge

CC = (9, 0)
ARGS = ["complex64", "complex128", "float32", "float64", "int32", "int64", "bool"]
FIXED = ["complex64", "complex128", "complex64", "complex128", "complex128", "complex128", "complex64"]
COMPLEX_ONLY = None  # refused for real arguments: numba-cuda's @overload implementations take complex only
# name -> result per ARGS entry, as numba-cuda 0.30.4's compile_ptx gives them.
RESULT = {
    "exp": FIXED, "log": FIXED, "sqrt": FIXED, "sin": FIXED, "cos": FIXED, "tan": FIXED, "asin": FIXED,
    "acos": FIXED, "atan": FIXED, "asinh": FIXED, "atanh": FIXED,
    "isnan": ["bool"] * 7, "isinf": ["bool"] * 7, "isfinite": ["bool"] * 7,
    # Python implementations whose arithmetic widens: log10 divides by a float64 constant, tanh and acosh
    # compute in float64, so complex64 gives complex128 as in numba-cuda.
    "log10": ["complex128", "complex128"], "tanh": ["complex128", "complex128"],
    "acosh": ["complex128", "complex128"], "sinh": ["complex64", "complex128"],
    "cosh": ["complex64", "complex128"], "phase": ["float32", "float64"],
    "polar": ["UniTuple(float32 x 2)", "UniTuple(float64 x 2)"],
}


def c_exp(z):
    return cmath.exp(z)


def c_log(z):
    return cmath.log(z)


def c_log10(z):
    return cmath.log10(z)


def c_sqrt(z):
    return cmath.sqrt(z)


def c_sin(z):
    return cmath.sin(z)


def c_cos(z):
    return cmath.cos(z)


def c_tan(z):
    return cmath.tan(z)


def c_asin(z):
    return cmath.asin(z)


def c_acos(z):
    return cmath.acos(z)


def c_atan(z):
    return cmath.atan(z)


def c_sinh(z):
    return cmath.sinh(z)


def c_cosh(z):
    return cmath.cosh(z)


def c_tanh(z):
    return cmath.tanh(z)


def c_asinh(z):
    return cmath.asinh(z)


def c_acosh(z):
    return cmath.acosh(z)


def c_atanh(z):
    return cmath.atanh(z)


def c_phase(z):
    return cmath.phase(z)


def c_polar(z):
    return cmath.polar(z)


def c_isnan(z):
    return cmath.isnan(z)


def c_isinf(z):
    return cmath.isinf(z)


def c_isfinite(z):
    return cmath.isfinite(z)


def c_log_base(z, base):
    return cmath.log(z, base)


def c_rect(r, phi):
    return cmath.rect(r, phi)


def _compile(fn, args, assemble=False):
    ptx, resty = cubridge.compile(fn, "(" + ", ".join(args) + ",)", device=True, abi="c", cc=CC)
    if assemble:
        r = cubridge.ptxas_check(ptx, CC)
        assert r, r.log
    return str(resty)


@pytest.mark.parametrize("name", sorted(RESULT))
def test_cmath_result_types_are_numba_cudas(name):
    fn = globals()["c_" + name]
    want = RESULT[name]
    for arg, expected in zip(ARGS, want + [None] * (len(ARGS) - len(want))):
        if expected is None:
            with pytest.raises(cubridge.CompileError, match=rf"no implementation of cmath\.{name}\({arg}\); it "
                                                            r"takes a complex number \(complex64 or complex128\), as "
                                                            r"numba-cuda's does"):
                _compile(fn, [arg])
        else:
            # ptxas checks the complex128 build of each (the complex64 one is the same code in float32).
            assert _compile(fn, [arg], assemble=arg == "complex128") == expected, (name, arg)


def test_cmath_log_with_a_base_and_rect():
    for arg, expected in zip(ARGS, FIXED):
        assert _compile(c_log_base, [arg, arg]) == expected
    assert _compile(c_log_base, ["complex64", "float64"]) == "complex128"
    assert _compile(c_rect, ["float32", "float32"]) == "complex64"
    assert _compile(c_rect, ["float64", "float32"]) == "complex128"
    for bad in (["int32", "float32"], ["complex64", "float32"], ["float16", "float32"]):
        with pytest.raises(cubridge.CompileError, match=rf"no implementation of cmath\.rect\({bad[0]}, {bad[1]}\); "
                                                        r"it takes two floats \(float32 or float64\)"):
            _compile(c_rect, bad)


def test_cmath_result_types_match_numbas_typing_where_it_types_cmath():
    """numba's CUDA typing context: the fixed signatures (exp, log, sqrt, ...) are ConcreteTemplates there."""
    numba_cuda = pytest.importorskip("numba.cuda", reason="numba is not installed")
    from numba.cuda.descriptor import cuda_target
    if getattr(numba_cuda, "implementation", "") == "NVIDIA":
        from numba.cuda import types
    else:
        from numba.core import types
    ctx = cuda_target.typing_context
    ctx.refresh()
    checked = 0
    for name in ["exp", "log", "sqrt", "sin", "cos", "tan", "isnan", "isinf", "isfinite"]:
        for arg, expected in zip(ARGS, RESULT[name]):
            try:
                sig = ctx.resolve_function_type(ctx.resolve_value_type(getattr(cmath, name)), (getattr(types, arg
                                                if arg != "bool" else "boolean"),), {})
            except Exception:  # noqa: BLE001 - numba reports typing failures in several ways
                continue
            if sig is not None:
                assert str(sig.return_type) == expected, (name, arg)
                checked += 1
    if not checked:
        pytest.skip("numba's CUDA typing context types no cmath function here")


def cmath_constants():
    return cmath.pi, cmath.e, cmath.tau, cmath.inf, cmath.nan, cmath.infj, cmath.nanj


def cmath_unknown_constant():
    return cmath.half


def cmath_unknown_function(z):
    return cmath.exp2(z)


def cmath_sqrt_two(z):
    return cmath.sqrt(z, z)


def cmath_of_array(a):
    return cmath.exp(a)


def test_cmath_constants():
    ptx, resty = cubridge.compile(cmath_constants, "()", device=True, abi="c", cc=CC)
    assert str(resty) == "Tuple(float64, float64, float64, float64, float64, complex128, complex128)"
    assert cubridge.ptxas_check(ptx, CC)


def test_cmath_refusals_name_what_is_accepted():
    offered = r"the cmath module offers: exp, log, log10, sqrt, .*, and the constants pi, e, tau, inf, nan, infj, nanj"
    with pytest.raises(cubridge.CompileError, match=r"cmath\.half is not supported; " + offered):
        cubridge.compile(cmath_unknown_constant, "()", device=True, abi="c", cc=CC)
    with pytest.raises(cubridge.CompileError, match=r"cmath\.exp2 is not supported; " + offered):
        _compile(cmath_unknown_function, ["complex64"])
    with pytest.raises(cubridge.CompileError, match=r"cmath\.sqrt\(\) takes 1 argument\(s\), got 2"):
        _compile(cmath_sqrt_two, ["complex64"])
    with pytest.raises(cubridge.CompileError, match=r"no implementation of cmath\.exp\(array\(complex64, 1d, A\)\); "
                                                    r"it takes complex64 or complex128"):
        cubridge.compile(cmath_of_array, "(complex64[:],)", device=True, abi="numba", cc=CC)


def user_function_named_like_the_prelude(z):
    return cmath.exp(z) + cmath.log(z)


def test_cmath_compiles_beside_user_functions_and_twice_in_one_kernel():
    assert _compile(user_function_named_like_the_prelude, ["complex128"]) == "complex128"
