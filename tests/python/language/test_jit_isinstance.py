"""isinstance(x, T) on numbers, as numba types it (numba's ol_isinstance), without a GPU. The rules, one test each:
- true exactly when x's numba type is T's: int is int64, float float64, complex complex128, bool bool; a number
  class (np.float32, cubridge.bfloat16, numba-cuda's nv_bfloat16, fp8_e4m3, ...) is itself; a tuple of classes
  is true when one of them is; the answer is a constant of the compiled code;
- the first argument must be a variable of a number (bool, bfloat16 and fp8 included) type; other values and
  classes that are not number types are refused by name."""
import numpy as np
import pytest

import cubridge
from cubridge import bfloat16


def answers(x):
    y = bfloat16(x)
    return (isinstance(y, bfloat16), isinstance(x, np.float32), isinstance(x, float), isinstance(x, (int, np.float64)),
            isinstance(x, bool), isinstance(x, complex))


def _answers(sig):
    ir, resty = cubridge.compile(answers, sig, device=True, abi="c", cc=(9, 0), output="llvm")
    assert resty == "UniTuple(bool x 6)"
    return [line.split("i1 ")[1].split(",")[0] == "true" for line in ir.splitlines()
            if "insertvalue {i1, i1, i1, i1, i1, i1}" in line]


@pytest.mark.parametrize("sig, expected", [
    ("(float32,)", [True, True, False, False, False, False]),
    ("(float64,)", [True, False, True, True, False, False]),
    ("(int64,)", [True, False, False, True, False, False]),
    ("(int32,)", [True, False, False, False, False, False]),  # int is int64 only, as in numba
])
def test_isinstance_is_numbas_exact_type_test(sig, expected):
    assert _answers(sig) == expected


def bool_answers(x):
    return isinstance(x, bool), isinstance(x, int)


def test_bool_is_not_int():
    ir, _ = cubridge.compile(bool_answers, "(boolean,)", device=True, abi="c", cc=(9, 0), output="llvm")
    assert "i1 true, 0" in ir and "i1 false, 1" in ir


def bf16_check(arr):
    x = bfloat16(3.14)
    if isinstance(x, bfloat16):
        arr[0] = np.float32(x)
    else:
        arr[0] = np.float32(0.0)


def test_numba_cudas_bfloat16_check_compiles():
    ptx = cubridge.compile_ptx(bf16_check, "void(float32[:])", cc=(9, 0))[0]
    assert cubridge.ptxas_check(ptx, (9, 0))


def of_expression(x):
    return isinstance(x + 1, int)


def of_array(a):
    return isinstance(a, int)


def of_other_class(x):
    return isinstance(x, str)


@pytest.mark.parametrize("fn, sig, match", [
    (of_expression, "(int64,)", r"isinstance\(\): the first argument must be a variable"),
    (of_array, "(float32[:],)", r"isinstance\(\) on a value of type array\(float32, 1d, A\) is not supported"),
    (of_other_class, "(int64,)", r"isinstance\(\): the second argument must be a number type or a tuple of them"),
])
def test_what_isinstance_does_not_answer_is_refused(fn, sig, match):
    with pytest.raises(cubridge.CompileError, match=match):
        cubridge.compile(fn, sig, device=True, abi="c", cc=(9, 0))
