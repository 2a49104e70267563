"""Python's operator module in kernels, as numba types it: operator.add(a, b) is a + b, and a variable bound
to an operator function calls it (numba-cuda's test_fastmath: op = operator.truediv; r[0] = op(x, y)). The
rules:
1. the binary operators (add ... xor), the comparisons (lt ... ne) and neg, pos, invert, not_ compile as the
   operator expression, with its typing and lowering (fastmath's float32 division included);
2. a wrong number of arguments, keywords, and the other operator functions are refused by name."""
import operator

import pytest

import cubridge
from conftest import assembled_ptx

CC = (8, 0)


def _binary(op):
    def kernel(r, x, y):
        r[0] = op(x, y)
    return kernel


@pytest.mark.parametrize("op, instruction", [(operator.add, "add.f32"), (operator.mul, "mul.f32"),
                                             (operator.truediv, "div.rn.f32"), (operator.sub, "sub.f32")])
def test_an_operator_function_in_a_variable_is_the_operator(op, instruction):
    assert instruction in assembled_ptx(_binary(op), "void(float32[::1], float32, float32)", CC)


def test_operator_truediv_under_fastmath_is_numba_cudas_fast_division():
    ptx, _ = cubridge.compile_ptx(_binary(operator.truediv), "void(float32[::1], float32, float32)", cc=CC,
                                  fastmath=True)
    assert "div.approx.ftz.f32" in ptx


def through_module(r, x, y):
    r[0] = operator.lt(x, y) + operator.neg(x) + operator.and_(x, y)


def test_operator_functions_through_the_module():
    assembled_ptx(through_module, "void(int64[::1], int64, int64)", CC)


def wrong_count(r, x):
    r[0] = operator.add(x)


def unsupported(r, x):
    r[0] = operator.index(x)


@pytest.mark.parametrize("fn, message", [(wrong_count, r"operator.add\(\) takes 2 argument\(s\), got 1"),
                                         (unsupported, r"operator.index is not supported in compiled code")])
def test_misuses_are_refused_by_name(fn, message):
    with pytest.raises(cubridge.CompileError, match=message):
        cubridge.compile_ptx(fn, "void(int64[::1], int64)", cc=CC)
