"""None as a value, as numba-cuda types it (test_analysis' branch-pruning cases). The rules:

1. a variable may hold None (typed none, it keeps nothing); assigned a number later, it is Optional;
2. `x == None` and `x != None` where one operand's type is none are decided by the types, as numba's
   dead-branch pruning decides them: a value whose type is not none never equals None;
3. an Optional operand of == / != with None is refused by name (numba tests it with `is None`).
Values on the GPU against numba-cuda: parity/kernels_calls.py (none_variables)."""
import os
import sys

import pytest

import cubridge
from conftest import assembled_ptx

sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
from parity import kernels_calls as kernels  # noqa: E402


def none_then_number(x, res):
    z = None
    if x > 0:
        z = 1.5
    if z is not None:
        res[0] = z


def optional_equals_none(x, res):
    z = None
    if x > 0:
        z = 1.5
    res[0] = z == None  # noqa: E711


def test_a_variable_holds_none_and_compares_by_type():
    ptx = assembled_ptx(kernels.none_variables, "void(int64[::1], float64[::1])")
    # 1 + 100 (y == None) + 10 (x != y), and never -1 (x == y): folded to one constant store of 111.0
    assert f"mov.u64 \t%rd13, {0x405BC00000000000};" in ptx or str(0x405BC00000000000) in ptx


def test_none_then_a_number_is_optional():
    assembled_ptx(none_then_number, "void(int64, float64[::1])")


def test_an_optional_compared_with_none_by_equality_is_refused():
    with pytest.raises(cubridge.CompileError, match=r"comparing an Optional value \(OptionalType\(float64\)\) with "
                                                    r"None by == or != is not supported"):
        cubridge.compile_ptx(optional_equals_none, "void(int64, float64[::1])")
