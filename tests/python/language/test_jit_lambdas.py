"""Lambdas compiled as functions, as numba-cuda compiles them (cuda.compile_ptx(lambda x: x, ...)): the lambda
becomes `def _3clambda_3e(params): return body` (numba's escaping of '<lambda>', its C-ABI symbol when
abi_info names none); two lambdas alike on one line cannot be told apart and are refused by name."""
import re

import pytest

import cubridge
from cubridge import float64, int32


def test_a_lambda_compiles_with_the_c_abi_under_its_abi_name():
    ptx, resty = cubridge.compile_ptx(lambda x: x, int32(int32), device=True, abi="c", abi_info={"abi_name": "blah"})
    assert resty == int32
    assert re.search(r"\.visible\s+\.func\s+\(\.param\s+\.b32\s+func_retval0\)\s+blah\(", ptx)


def test_a_lambda_without_an_abi_name_takes_numbas_escaped_name():
    ptx, _ = cubridge.compile_ptx(lambda x: x, int32(int32), device=True, abi="c")
    assert re.search(r"\.visible\s+\.func\s+\(\.param\s+\.b32\s+func_retval0\)\s+_3clambda_3e\(", ptx)


def test_a_lambda_body_is_compiled_faithfully():
    ptx, resty = cubridge.compile_ptx(lambda x, y: x * y + 1.0, (float64, float64), device=True, abi="c")
    assert resty == float64
    assert "fma.rn.f64" in ptx or ("mul.f64" in ptx and "add.f64" in ptx)


def test_a_lambda_kernel_with_no_parameters_compiles_for_an_arch_specific_target():
    ptx, resty = cubridge.compile_ptx(lambda: None, tuple(), cc=(9, 0, "a"))
    assert resty is None
    assert ".target sm_90a" in ptx


def test_a_lambda_sees_its_closure():
    k = 3

    f = lambda x: x + k  # noqa: E731
    ptx, resty = cubridge.compile_ptx(f, (int32,), device=True, abi="c")
    assert resty == cubridge.int64 and "3;" in ptx


def test_two_lambdas_alike_on_one_line_are_refused_by_name():
    f = [lambda x: x + 1, lambda x: x + 2][1]
    with pytest.raises(cubridge.CompileError, match=r"lambda that cannot be told apart in its source line \(2 lambdas "
                                                    r"there take the parameters \('x',\)\); define it with def"):
        cubridge.compile_ptx(f, int32(int32), device=True)


def test_a_kernel_made_from_a_lambda_compiles():
    # numba-cuda's test_extending: jit(lambda: None).compile(())
    kernel = cubridge.jit(lambda: None)
    assert kernel.compile(()) is not None


_inc = cubridge.jit(device=True)(lambda x: x + 1)
_dbl = lambda x: x * 2  # noqa: E731


def _uses_lambdas(a):
    a[0] = _inc(a[0]) + _dbl(a[1])


def test_lambdas_called_as_helpers_compile_under_names_of_their_own():
    ptx = cubridge.compile_ptx(_uses_lambdas, "void(int64[::1])")[0]
    assert "add.s64" in ptx and ("shl.b64" in ptx or "mul.lo.s64" in ptx or "add.s64" in ptx)
    ir = cubridge.compile(_uses_lambdas, "void(int64[::1])", device=False, abi="numba", output="llvm")[0]
    assert "_3clambda_3e0" in ir and "_3clambda_3e1" in ir


def test_a_lambda_among_call_arguments_over_several_lines_compiles():
    """numba-cuda's test_compile_ptx_arch_specific: `compile_ptx(\\n lambda: None, tuple(), cc=...\\n)` puts the
    lambda on a line that is no statement of its own."""
    ptx, resty = cubridge.compile_ptx(
        lambda: None, tuple(), cc=(9, 0, "a")
    )
    assert ".target sm_90a" in ptx and resty is None
