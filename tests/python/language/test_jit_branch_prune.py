"""numba's dead-branch pruning, which runs before typing: the branch a constant test rules out is never typed
(an assignment there does not widen a variable's type, code there need not type). The rules:

1. `if L op R:` with one comparison whose operands are both constants -- literals, module globals and closure
   variables bound to numbers, a local whose one definition is such a constant, and the semantic constants
   `a.ndim` of an array argument and `len(t)` of a tuple argument -- is decided when compiling (numba-cuda's
   test_analysis test_tuple_len: an index out of range in the ruled-out branch is never typed);
2. `if C:` with C a global, closure variable or single-definition local constant is decided by C's truth;
3. a literal argument of a helper is not such a constant (numba prunes arguments only against None), and
   an operand computed at run time keeps both branches (both typed);
4. `if L is R:` / `is not` with both operands constants is decided by Python's identity of the two objects
   (numba evaluates operator.is_ on them: numba-cuda's test_ssa test_issue5219) where an operand is True,
   False or None: the same object exactly when the same kind and value (True is not 1); two numbers are
   left to run time (their identity is CPython's object cache's business).
Values on the GPU against numba-cuda: parity/kernels_calls.py (pruned_branches)."""
import os
import sys

import pytest

import cubridge
from conftest import assembled_ptx

sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
from parity import kernels_calls as kernels  # noqa: E402

LIMIT = 123
FLAG = 0


def by_ndim(array, res):
    if array.ndim == 2:
        if array.shape[1] == 2:  # types only for a 2-d array
            res[0] = 1
    else:
        res[0] = 10


def by_global(x, res):
    if LIMIT > 100:
        z = 1.0
    else:
        z = (1, 2)  # would not unify with 1.0
    res[0] = z


def by_predicate(x, res):
    if FLAG:
        res[0] = (1, 2)
    res[0] = 3


def by_local(x, res):
    c = 0
    if c == 1:
        res[0] = (1, 2)
    res[0] = 3


def not_by_runtime_value(x, res):
    if x == 1:
        res[0] = (1, 2)


@cubridge.jit(device=True)
def literal_argument(flag, res):
    if flag == 1:
        res[0] = (1, 2)


def calls_with_a_literal(x, res):
    literal_argument(0, res)


@pytest.mark.parametrize("sig", ["void(float64[::1], float64[::1])", "void(float64[:, ::1], float64[::1])"])
def test_ndim_of_an_array_argument_prunes(sig):
    assembled_ptx(by_ndim, sig)


@pytest.mark.parametrize("fn", [by_global, by_predicate, by_local])
def test_constant_tests_prune(fn):
    assembled_ptx(fn, "void(int64, float64[::1])")


@pytest.mark.parametrize("fn", [not_by_runtime_value, calls_with_a_literal])
def test_run_time_and_argument_tests_keep_both_branches(fn):
    with pytest.raises(cubridge.CompileError, match=r"UniTuple\(int64 x 2\)|Tuple\(int64, int64\)"):
        cubridge.compile_ptx(fn, "void(int64, float64[::1])")


def test_pruned_branches_parity_kernel_compiles():
    assembled_ptx(kernels.pruned_branches, "void(float64[:, ::1], float64[::1])")


def by_tuple_length(tup, res):
    if len(tup) == 3:
        if tup[2] == 2:  # out of range for a 2-tuple: never typed there
            res[0] = 1
    else:
        res[0] = 0


@pytest.mark.parametrize("sig", ["void(UniTuple(int64, 3), float64[::1])", "void(UniTuple(int64, 2), float64[::1])"])
def test_len_of_a_tuple_argument_prunes(sig):
    assembled_ptx(by_tuple_length, sig)


IS_TUPLE = True
ONE = 1
BIG = 1000


def by_is_true(x, res):
    b = x
    if IS_TUPLE is True:  # numba-cuda's test_issue5219: the branch is always taken
        b = (x, x)
    res[0] = b[0]


def by_is_not_false(x, res):
    z = 1.0
    if IS_TUPLE is not False:
        z = 2.0
    else:
        z = (1, 2)  # ruled out
    res[0] = z


def by_is_none(x, res):
    z = 1.0
    if IS_TUPLE is None:
        z = (1, 2)  # ruled out: True is not None
    res[0] = z


def one_is_not_true(x, res):
    z = 1.0
    if ONE is True:  # 1 is not the object True
        z = (1, 2)
    res[0] = z


@pytest.mark.parametrize("fn", [by_is_true, by_is_not_false, by_is_none, one_is_not_true])
def test_is_on_singleton_constants_prunes(fn):
    assembled_ptx(fn, "void(int64, float64[::1])")


def numbers_by_identity(x, res):
    if BIG is ONE:
        res[0] = (1, 2)


def test_is_between_two_numbers_keeps_both_branches():
    with pytest.raises(cubridge.CompileError, match=r"UniTuple\(int64 x 2\)"):
        cubridge.compile_ptx(numbers_by_identity, "void(int64, float64[::1])")


def test_is_true_on_a_closure_constant_takes_the_branch_in_the_code():
    # the pruned if leaves the tuple's version of b: the stored value is x, not a unification of both
    ptx = cubridge.compile_ptx(by_is_true, "void(int64, float64[::1])")[0]
    assert "cvt.rn.f64.s64" in ptx, ptx


def _issue5219():
    """numba-cuda's test_issue5219: an @overload whose implementation prunes on a closure constant."""
    pytest.importorskip("numba.core.extending", reason="numba is not installed")
    from test_jit_overloads import overload, types

    def overload_this(a, b=None):
        if isinstance(b, tuple):
            b = b[0]
        return b

    @overload(overload_this)
    def ol(a, b=None):
        b_is_tuple = isinstance(b, (types.Tuple, types.UniTuple))

        def impl(a, b=None):
            if b_is_tuple is True:
                b = b[0]
            return b
        return impl

    def test_tuple(result, a, b):
        result[0] = overload_this(a, b)
    return test_tuple


@pytest.mark.parametrize("b", ["UniTuple(int64, 1)", "int64"])
def test_an_overload_pruning_on_its_closure_constant_compiles(b):
    assembled_ptx(_issue5219(), f"void(int64[::1], int64, {b})")


@pytest.mark.gpu
def test_issue5219_values_are_pythons_and_numba_cudas():
    import numpy as np
    kernel = _issue5219()
    ours = np.zeros(1, dtype=np.int64)
    cubridge.jit(kernel)[1, 1](ours, 1, (2,))
    assert ours[0] == 2  # the Python function's value
    numba_cuda = pytest.importorskip("numba.cuda", reason="numba-cuda is not installed")
    if not hasattr(numba_cuda, "CUSource"):
        pytest.skip("this numba.cuda is numba's old built-in target, not numba-cuda")
    theirs = np.zeros(1, dtype=np.int64)
    numba_cuda.jit(_issue5219())[1, 1](theirs, 1, (2,))
    assert ours[0] == theirs[0]
