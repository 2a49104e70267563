"""Variables re-bound to another type get a version per definition where the syntax alone says which one a
read sees, as numba's SSA versions them (issue 21; numba-cuda's test_ssa issue3931 and issue5493). The rules:
1. `x = a` followed in the same block by `x = b`, with no other definition, break or continue between: the
   reads between them see a version of their own (a parameter reshaped to 1-d, then back to 2-d);
2. a loop whose body first defines x with a plain `x = a`, with no read of x outside the body: x is a
   version of its own inside (a loop counter re-bound to an array in an inner loop);
3. otherwise the variable keeps one type and unification errors are reported as before: a break or continue
   between the definitions, a conditional definition, a read after the loop;
4. messages name the variable as the source does.
Values on the GPU against numba-cuda: parity/kernels_variable_versions.py."""
import numpy as np
import pytest

import cubridge
from cubridge import CompileError

CC = (9, 0)
B = np.ones(1)


def _compiles(fn, sig):
    ptx, _ = cubridge.compile_ptx(fn, sig, cc=CC)
    r = cubridge.ptxas_check(ptx, CC)
    assert r, r.log


def reshaped_twice(result, arr):
    for i in range(1):
        arr = arr.reshape(3 * 2)
        arr = arr.reshape(3, 2)
    for i in range(arr.shape[0]):
        for j in range(arr.shape[1]):
            result[i, j] = arr[i, j]


def test_a_stretch_between_two_definitions_is_its_own_version():
    _compiles(reshaped_twice, "void(float64[:, ::1], float64[:, ::1])")


def counter_rebound(res, m, n):
    for t in range(1, m):
        for idx in range(n):
            t = B
            res[0] += t[0]


def test_a_loop_local_definition_is_its_own_version():
    _compiles(counter_rebound, "void(float64[::1], int64, int64)")


def break_between(result, arr):
    for i in range(1):
        arr = arr.reshape(3 * 2)
        if i > 5:
            break
        arr = arr.reshape(3, 2)
    result[0, 0] = arr[0, 0]


def conditional(result, arr, c):
    if c:
        arr = arr.reshape(3 * 2)
    result[0, 0] = arr[0, 0]


def read_after_loop(res, m):
    t = B
    for idx in range(m):
        t = idx
        res[0] += t
    res[1] = t[0]


@pytest.mark.parametrize("fn, sig", [
    (break_between, "void(float64[:, ::1], float64[:, ::1])"),
    (conditional, "void(float64[:, ::1], float64[:, ::1], boolean)"),
    (read_after_loop, "void(float64[::1], int64)"),
])
def test_where_the_version_is_not_certain_the_types_unify_as_before(fn, sig):
    with pytest.raises(CompileError, match=r"cannot unify the types of variable '(arr|t)': "):
        cubridge.compile_ptx(fn, sig, cc=CC)


def test_messages_name_the_variable_as_the_source_does():
    def k(result, arr):
        arr = arr.reshape(6)
        arr = arr.reshape(3, 2)
        arr = 1.5 + arr  # array + float is not a kernel operation: the message names 'arr'
    with pytest.raises(CompileError) as e:
        cubridge.compile_ptx(k, "void(float64[:, ::1], float64[:, ::1])", cc=CC)
    assert "#" not in str(e.value)
