"""numba's dead-branch pruning, which runs before typing: the branch a constant test rules out is never typed
(an assignment there does not widen a variable's type, code there need not type). The rules:

1. `if L op R:` with one comparison whose operands are both constants -- literals, module globals and closure
   variables bound to numbers, a local whose one definition is such a constant, and the semantic constants
   `a.ndim` of an array argument and `len(t)` of a tuple argument -- is decided when compiling (numba-cuda's
   test_analysis test_tuple_len: an index out of range in the ruled-out branch is never typed);
2. `if C:` with C a global, closure variable or single-definition local constant is decided by C's truth;
3. a literal argument of a helper is not such a constant (numba prunes arguments only against None), and
   an operand computed at run time keeps both branches (both typed).
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
