"""Variables re-bound to another type get a version per class of definitions, as numba's SSA versions them
(issue 21; numba-cuda's test_ssa issue3931 and issue5493). The rules (src/compiler/typing/variable_versions.cpp):
1. every definition (an assignment, a for loop's target, a parameter on entry) starts a version of its own;
   the definitions that reach one read (through if/else, loops with break/continue/else, return and raise
   ending a path) are joined, as numba's phi nodes join them; each joined class is typed alone;
2. so a read reached by `x = 9007199254740993` alone is int64 even where an earlier `x = 0.5` was read
   (straight line, or in another block); a reshaped array between two re-bindings has its own layout;
3. where definitions meet at a read (if/else both define and a read follows; a definition in a loop body and
   a read after the loop; a break or continue between definitions) the types unify as before, and
   unification errors are reported as before;
4. `x += v` reads and defines x in one name: it stays the version it reads;
5. a test CPython decides itself (`while True:`, `if False:`) has only the path numba's bytecode has;
6. messages, the typemap and print name the variable as the source does.
Values on the GPU against numba-cuda: parity/kernels_variable_versions.py, and the gpu tests at the end (with
Python's values, and numba-cuda's where it is installed)."""
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


def _llvm(fn, sig):
    return cubridge.compile(fn, sig, cc=CC, output="llvm")[0]


def redefined_straight(out):
    x = 0.5
    out[1] = x * 2
    x = 9007199254740993
    out[0] = x


def redefined_after_a_branch(out, c):
    x = 0.5
    if c:
        out[1] = x
    x = 9007199254740993
    out[0] = x


def redefined_in_a_loop_then_read_before(out, n):
    x = 0.5
    for i in range(n):
        out[1] = x
    x = 9007199254740993
    out[0] = x


def after_while_true(out):
    x = 0.5
    out[1] = x
    while True:
        x = 9007199254740993
        break
    out[0] = x


def after_dead_branch(out):
    x = 9007199254740993
    if False:
        x = 0.5
    out[0] = x


@pytest.mark.parametrize("fn, sig", [
    (redefined_straight, "void(int64[::1])"),
    (redefined_after_a_branch, "void(int64[::1], boolean)"),
    (redefined_in_a_loop_then_read_before, "void(int64[::1], int64)"),
    (after_while_true, "void(int64[::1])"),
    (after_dead_branch, "void(int64[::1])"),
])
def test_a_read_reached_by_one_definition_has_that_definitions_type(fn, sig):
    # the integer is stored as int64, never rounded through float64 (9007199254740992)
    ir = _llvm(fn, sig)
    assert "i64 9007199254740993" in ir
    assert "0x4340000000000000" not in ir  # 2**53 as a double: the rounded value


def phi_if_else(out, c):
    if c:
        x = 1
    else:
        x = 0.5
    out[0] = x


def phi_loop(out, n):
    x = 1
    for i in range(n):
        x = 0.5
    out[0] = x


def phi_while_else(out, n):
    x = 1
    while n > 0:
        n -= 1
        if n == 3:
            break
        x = 0.5
    else:
        out[1] = x
    out[0] = x


def phi_continue(out, n):
    x = 1
    for i in range(n):
        x = 0.5
        if i > 2:
            continue
        x = 2
    out[0] = x


def aug_assign(out, n):
    x = 1
    if n > 0:
        x = 0.5
    x += 1
    out[0] = x


@pytest.mark.parametrize("fn, sig", [
    (phi_if_else, "void(float64[::1], boolean)"),
    (phi_loop, "void(float64[::1], int64)"),
    (phi_while_else, "void(float64[::1], int64)"),
    (phi_continue, "void(float64[::1], int64)"),
    (aug_assign, "void(float64[::1], int64)"),
])
def test_definitions_that_meet_at_a_read_unify_as_numba_phis_do(fn, sig):
    numba = pytest.importorskip("numba")
    kernel = cubridge.jit(sig)(fn)
    typemap = next(iter(kernel.overloads.values()))._type_annotation.typemap
    assert typemap["x"] == numba.float64


def test_each_version_is_typed_alone_in_the_typemap_as_numbas_first_version():
    numba = pytest.importorskip("numba")

    def f(out):
        x = 1
        out[0] = x
        x = 0.5
        out[1] = x

    kernel = cubridge.jit("void(float64[::1])")(f)
    assert next(iter(kernel.overloads.values()))._type_annotation.typemap["x"] == numba.int64
    theirs = numba.njit("void(float64[::1])")(f).overloads
    typemap = next(iter(theirs.values())).type_annotation.typemap
    assert str(typemap["x"]) in ("int64", "Literal[int](1)")


def test_print_of_an_int_version_prints_an_int():
    def f(out):
        x = 0.5
        out[0] = x
        x = 3
        print(x)

    ir = _llvm(f, "void(float64[::1])")
    assert 'c"%lld\\0A\\00"' in ir
    assert "%f" not in ir


def test_a_loop_counter_is_a_version_apart_from_a_float_before_it():
    # numba-cuda's test_ssa.test_issue3931 shape with a scalar: i is float64 before, int64 as the loop's
    def f(out):
        i = 0.5
        out[1] = i
        for i in range(3):
            out[0] = i

    ir = _llvm(f, "void(int64[::1])")
    assert "sitofp" not in ir


def test_a_parameter_re_bound_keeps_its_own_type_where_it_is_read_alone():
    # numba-cuda's test_ssa.test_argument_name_reused: the parameter and its re-binding are versions apart
    def f(out, x):
        out[1] = x
        x = 9007199254740993
        out[0] = x

    ir = _llvm(f, "void(int64[::1], float64)")
    assert "i64 9007199254740993" in ir


def test_unification_messages_name_the_source_variable():
    def f(out, c):
        x = 1
        if c:
            x = B
        out[0] = x
    with pytest.raises(CompileError, match=r"cannot unify the types of variable 'x': ") as e:
        cubridge.compile_ptx(f, "void(float64[::1], boolean)", cc=CC)
    assert "#" not in str(e.value)


def test_an_augmented_assignment_no_definition_reaches_is_the_variable_as_before():
    # numba-cuda's test_ssa.test_undefined_var: `c += 1` where c is unbound on every path compiles (numba
    # types the undefined value); here it is the variable `c = 0` defines, as a plain read reached by none is
    from test_jit_uninitialized_variables import numba_test_ssa
    _compiles(numba_test_ssa, "void(int64[::1], int64)")


GPU_CASES = [
    (redefined_straight, np.int64, 2, ()),
    (redefined_after_a_branch, np.int64, 2, (True,)),
    (redefined_after_a_branch, np.int64, 2, (False,)),
    (redefined_in_a_loop_then_read_before, np.int64, 2, (3,)),
    (after_while_true, np.int64, 2, ()),
    (after_dead_branch, np.int64, 1, ()),
    (phi_if_else, np.float64, 1, (True,)),
    (phi_loop, np.float64, 1, (0,)),
    (phi_while_else, np.float64, 2, (6,)),
    (phi_continue, np.float64, 1, (5,)),
    (aug_assign, np.float64, 1, (1,)),
]
GPU_IDS = [f"{c[0].__name__}{c[3]}" for c in GPU_CASES]


def _launch(jit, case):
    fn, dtype, n, args = case
    out = np.zeros(n, dtype=dtype)
    jit(fn)[1, 1](out, *args)
    return out


def _python(case):
    fn, dtype, n, args = case
    out = np.zeros(n, dtype=dtype)
    fn(out, *args)
    return out


@pytest.mark.gpu
@pytest.mark.parametrize("case", GPU_CASES, ids=GPU_IDS)
def test_values_are_pythons(case):
    np.testing.assert_array_equal(_launch(cubridge.jit, case), _python(case))


@pytest.mark.gpu
@pytest.mark.parametrize("case", GPU_CASES, ids=GPU_IDS)
def test_values_match_numba_cuda(case):
    numba_cuda = pytest.importorskip("numba.cuda", reason="numba-cuda is not installed")
    if not hasattr(numba_cuda, "CUSource"):
        pytest.skip("this numba.cuda is numba's old built-in target, not numba-cuda")
    np.testing.assert_array_equal(_launch(numba_cuda.jit, case), _launch(cubridge.jit, case))
