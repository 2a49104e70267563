"""The complex loops of NumPy's ufuncs in kernels, without a GPU (numba-cuda's test_ufuncs runs each of them on
complex64/complex128 scalars and arrays). The rules, each as numba-cuda's CUDA ufunc table (numba/cuda/ufuncs.py)
lowers the loop:

1. every ufunc numba-cuda gives a complex loop compiles on complex64 and complex128: sin, cos, tan, arcsin,
   arccos, arctan, sinh, cosh, tanh, arcsinh, arccosh, arctanh, log, log2, log10 (F->F, D->D), the order
   comparisons greater, greater_equal, less, less_equal (FF->?, DD->?), maximum, minimum, fmax, fmin and
   divide (FF->F);
2. the loop is numba's choice: the first loop every argument casts to safely (complex64 with float64 takes
   the complex128 loop), its result type the loop's;
3. a complex64 loop computes in float32, as numba's does (no float64 arithmetic in its code);
4. np.f(x, out) with complex arrays (any rank, a scalar input broadcast) is a loop calling the same code;
5. np.divide's complex loop is numba's np_complex_div (Smith's algorithm) and never raises: a zero divisor
   divides each part by its own |part|, with numba's fabs that keeps -0.0 (a select on x < 0).
Values: parity/kernels_numpy_complex.py on the GPU, against numba-cuda."""
import re

import numpy as np
import pytest

import cubridge
from conftest import assembled_ptx

CC = (9, 0)
UNARY = ["sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh",
         "log", "log2", "log10"]
ORDER = ["greater", "greater_equal", "less", "less_equal"]
PICK = ["maximum", "minimum", "fmax", "fmin", "divide"]


def _function(name, nin, out=False):
    """def fn(a0[, a1][, out]): return np.name(...) -- made as numba-cuda's test_ufuncs makes its kernels."""
    params = [f"a{i}" for i in range(nin)] + (["out"] if out else [])
    body = f"np.{name}({', '.join(params)})" if out else f"return np.{name}({', '.join(params)})"
    scope = {}
    exec(f"def fn({', '.join(params)}):\n    {body}\n", {"np": np}, scope)
    scope["fn"].__name__ = f"{name}_usecase"
    return scope["fn"]


def _result(name, args):
    fn = _function(name, len(args))
    return str(cubridge.compile(fn, "(" + ", ".join(args) + ",)", device=True, abi="c", cc=CC)[1])


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("ty", ["complex64", "complex128"])
def test_unary_complex_loops_compile_with_the_loops_type(name, ty):
    assert _result(name, [ty]) == ty


@pytest.mark.parametrize("name", ORDER + PICK)
@pytest.mark.parametrize("ty", ["complex64", "complex128"])
def test_binary_complex_loops_compile_with_the_loops_type(name, ty):
    assert _result(name, [ty, ty]) == ("bool" if name in ORDER else ty)


@pytest.mark.parametrize("name,args,want", [
    ("greater", ["complex64", "float64"], "bool"),         # DD->?: float64 does not cast safely to complex64
    ("maximum", ["complex64", "float64"], "complex128"),
    ("maximum", ["complex64", "float32"], "complex64"),
    ("fmin", ["complex128", "complex64"], "complex128"),
    ("sin", ["complex64"], "complex64"),
])
def test_mixed_arguments_take_numbas_loop(name, args, want):
    assert _result(name, args) == want


def _core_ir(name, nin, ty):
    r = cubridge._compiler._compile_result(_function(name, nin), "(" + ", ".join([ty] * nin) + ",)", device=True,
                                           abi="c", cc=CC, output="llvm")
    return r.nvvm_ir


@pytest.mark.parametrize("name,nin", [("sinh", 1), ("cosh", 1), ("tanh", 1), ("log", 1), ("log2", 1),
                                      ("log10", 1), ("greater", 2), ("less_equal", 2), ("maximum", 2),
                                      ("fmin", 2)])
def test_complex64_loops_compute_in_float32(name, nin):
    ir = _core_ir(name, nin, "complex64")
    assert not re.search(r"\b(fadd|fsub|fmul|fdiv|fcmp \w+) double\b", ir), ir
    assert re.search(r"\b(fmul|fcmp \w+) float\b|call float @__nv_", ir)
    # and complex128 in float64
    assert re.search(r"\b(fmul|fcmp \w+) double\b|call double @__nv_", _core_ir(name, nin, "complex128"))


@pytest.mark.parametrize("name", ["sin", "tanh", "arccosh", "log10", "greater", "fmax"])
@pytest.mark.parametrize("sig_args", [("complex64", "complex64[::1]"), ("complex128[::1]", "complex128[::1]"),
                                      ("complex128[:, ::1]", "complex128[:, ::1]"),
                                      ("complex64[::1, :]", "complex64[::1, :]")])
def test_complex_loops_on_arrays_with_an_output(name, sig_args):
    nin = 2 if name in ORDER + PICK else 1
    x, out = sig_args
    if name in ORDER:
        out = re.sub(r"complex\d+", "bool", out)
    ptx = assembled_ptx(_function(name, nin, out=True), f"void({', '.join([x] * nin + [out])})", CC)
    assert "st.global" in ptx or "st.u8" in ptx or "st.f" in ptx


def test_complex_loop_on_arrays_casts_to_a_wider_output():
    # complex64 loop, stored into complex128 (NumPy's same_kind casting)
    ptx = assembled_ptx(_function("sinh", 1, out=True), "void(complex64[::1], complex128[::1])", CC)
    assert "cvt.f64.f32" in ptx


def test_a_complex_result_into_a_float_output_is_refused():
    with pytest.raises(cubridge.CompileError, match=r"np\.sin\(\): the result \(complex64, loop F->F\) cannot be cast "
                                                    r"to the output's float32 with NumPy's same_kind rule"):
        cubridge.compile_ptx(_function("sin", 1, out=True), "void(complex64[::1], float32[::1])", cc=CC)


def test_complex_divide_never_raises_and_keeps_numbas_fabs():
    for debug in (False, True):  # debug=True is numba's "python" error model: `/` would raise; np.divide does not
        r = cubridge._compiler._compile_result(_function("divide", 2), "(complex128, complex128)", device=True,
                                               abi="numba", cc=CC, output="llvm", debug=debug)
        assert "ZeroDivisionError" not in r.nvvm_ir and not r.raise_sites
    ir = _core_ir("divide", 2, "complex64")
    assert "fcmp olt float" in ir and "fsub float 0x0000000000000000" in ir
