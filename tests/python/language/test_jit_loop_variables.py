"""A for loop's variable used only inside its loops is its own variable per loop, as numba's SSA versions it
(numba-cuda's test_ssa issue2194). The rules:

1. two loops over ranges of different counter types keep their types apart (uint64 and int64 do not unify
   to float64, which cannot index an array);
2. a name read or written anywhere outside the loops that bind it stays one variable (its value after the
   loop is Python's), so the types unify as before;
3. messages name the variable as the source does.
Values on the GPU against numba-cuda: parity/kernels_iteration.py (loops_with_own_counters)."""
import os
import sys

import numpy as np
import pytest

import cubridge
from conftest import assembled_ptx

sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
from parity import kernels_iteration as kernels  # noqa: E402


def two_loops(result, v):
    s = np.uint32(1)
    for i in range(s):
        v[i] = 1
    for i in range(s, 1):
        pass
    result[0] = v[0]


def read_after_the_loops(result, v):
    s = np.uint32(1)
    for i in range(s):
        v[i] = 1
    for i in range(s, 1):
        pass
    result[0] = v[i]


def bad_store_in_a_loop(result, v):
    for i in range(3):
        v[i] = 1.5j


def test_loops_keep_their_counter_types_apart():
    assembled_ptx(two_loops, "void(float64[::1], float64[::1])")
    assembled_ptx(kernels.loops_with_own_counters, "void(float64[::1], int64[::1])")


def test_a_variable_read_after_its_loops_stays_one_variable():
    with pytest.raises(cubridge.CompileError, match=r"an array index must be an integer, got float64"):
        cubridge.compile_ptx(read_after_the_loops, "void(float64[::1], float64[::1])")


def test_messages_name_the_source_variable():
    with pytest.raises(cubridge.CompileError, match=r"into an element of 'v' ") as e:
        cubridge.compile_ptx(bad_store_in_a_loop, "void(float64[::1], float64[::1])")
    assert "#" not in str(e.value).split(":", 3)[-1]
