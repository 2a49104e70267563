"""for loops as Python writes them (issue 12, item 7), without a GPU: range(), arrays (1-d: elements;
n-d: row views), homogeneous tuples (literals and module constants), enumerate() (with a start),
zip() of any of these, nested loops with break/continue/else, and homogeneous tuples indexed by a
run-time integer. Each function is compiled by cubridge to NVVM IR, run on the host through clang and
compared with CPython running the same function on the same NumPy arrays; the loop variables' types are
compared with numba's typing; every refusal's message is checked, and numba refuses the same forms.
Kernels of this family run on the GPU against numba-cuda in parity/kernels_iteration.py."""
import numpy as np
import pytest

import cubridge
from conftest import numba_typing_errors
from test_jit_slices import call, host_function, needs_clang

CC = (9, 0)
STEPS = (1, 2, 3)
SCALE = (0.5, 2.0)


def tuple_literal(n):
    s = 0
    for v in (1, 2, 3):
        s += v * n
    return s


def global_tuple(n):
    s = 0
    for c in STEPS:
        s = s * 10 + c + n
    return s


def array_1d(a, n):
    s = 0
    for v in a:
        s += v
    return s


def rows_of_2d(m, n):
    s = 0
    for row in m:
        s = s * 7 + row[0] + 3 * row[row.shape[0] - 1]
    return s


def row_elements(m, i):
    s = 0
    for v in m[i]:
        s = s * 3 + v
    return s


def enumerate_array(a, start):
    s = 0
    for i, v in enumerate(a, start):
        s += i * v
    return s


def enumerate_range_keyword_start(a, n):
    s = 0
    for i, v in enumerate(range(n), start=5):
        s += i * 100 + v
    return s


def enumerate_tuple(a, n):
    s = 0
    for i, v in enumerate((4, 5, 6)):
        s += i * v + n
    return s


def zip_arrays(a, b):
    s = 0
    for x, y in zip(a, b):
        s += x * y
    return s


def zip_mixed(a, n):
    s = 0
    for x, k, t in zip(a, range(n, 0, -1), (7, 8, 9, 10)):
        s = s * 5 + x + k * t
    return s


def zip_one(a, n):
    s = 0
    for (x,) in zip(a):
        s += x
    return s


def zip_single_target(a, n):
    s = 0
    for p in zip(a, range(n)):
        s += p[0] * p[1]
    return s


def enumerate_zip(a, n):
    s = 0
    for i, (x, y) in enumerate(zip(a, range(n))):
        s += i * 1000 + x * 10 + y
    return s


def zip_rows(m, a):
    s = 0
    for row, v in zip(m, a):
        s += row[1] * v
    return s


def nested_break_continue_else(a, n):
    s = 0
    for i, v in enumerate(a):
        for t in (1, 2, 3, 4):
            if t == 2:
                continue
            if t * v > n:
                break
            s += t * v
        else:
            s += 1000
        if i > 4:
            break
    else:
        s += 100000
    return s


def loop_variable_after_loop(a, n):
    v = 0
    for v in a:
        pass
    k = 0
    for k, w in enumerate((3, 4, 5)):
        pass
    return v * 10 + k


def empty_iterables(a, n):
    s = 1
    for v in a[n:]:
        s += v
    for x, y in zip(a, a[:0]):
        s += 100
    else:
        s += 7
    return s


def tuple_runtime_index(n, i):
    t = (10, 20, 30, 40)
    return t[i] + STEPS[n]


def nested_tuple_runtime_index(n, i):
    t = ((1, 2), (3, 4), (5, 6))
    return t[i][1] * 10 + t[n][0]


LAST = -1


def heterogeneous_constant_indices(n, i):
    t = (n, 2.5, i * 3)
    return t[-1] + t[LAST] + t[2 - 2] + int(t[-2])


def tuple_of_arrays_loop(a, b):
    s = 0
    for arr in (a, b):
        s = s * 100 + arr[0] + arr.shape[0]
    return s


TABLE = np.array([3, 1, 4, 1, 5], np.int64)


def shape_and_frozen_array(m, n):
    s = 0
    for d in m.shape:
        s = s * 10 + d
    for v in TABLE:
        s = s * 10 + v
    return s


def float_tuple_loop(n, i):
    s = 0.0
    for f in SCALE:
        s += f * n
    return int(s)


VALUE_CASES = [
    (tuple_literal, "int64(int64)", lambda: (5,)),
    (global_tuple, "int64(int64)", lambda: (2,)),
    (array_1d, "int64(int64[:], int64)", lambda: (np.arange(7), 0)),
    (array_1d, "int64(int64[:], int64)", lambda: (np.arange(20)[::3], 0)),
    (array_1d, "int64(int64[:], int64)", lambda: (np.arange(20)[::-2], 0)),
    (rows_of_2d, "int64(int64[:, :], int64)", lambda: (np.arange(12).reshape(3, 4), 0)),
    (rows_of_2d, "int64(int64[::1, :], int64)", lambda: (np.asfortranarray(np.arange(12).reshape(3, 4)), 0)),
    (rows_of_2d, "int64(int64[:, :], int64)", lambda: (np.arange(48).reshape(6, 8)[1::2, ::-3], 0)),
    (row_elements, "int64(int64[:, :], int64)", lambda: (np.arange(12).reshape(3, 4), 1)),
    (row_elements, "int64(int64[:, :], int64)", lambda: (np.arange(12).reshape(3, 4), -1)),
    (enumerate_array, "int64(int64[:], int64)", lambda: (np.arange(5) + 3, 0)),
    (enumerate_array, "int64(int64[:], int32)", lambda: (np.arange(5) + 3, np.int32(-4))),
    (enumerate_range_keyword_start, "int64(int64[:], int64)", lambda: (np.arange(2), 6)),
    (enumerate_tuple, "int64(int64[:], int64)", lambda: (np.arange(2), 3)),
    (zip_arrays, "int64(int64[:], int64[:])", lambda: (np.arange(6), np.arange(4) + 2)),
    (zip_arrays, "int64(int64[:], int64[:])", lambda: (np.arange(3), np.arange(9)[::-2])),
    (zip_mixed, "int64(int64[:], int64)", lambda: (np.arange(9), 6)),
    (zip_mixed, "int64(int64[:], int64)", lambda: (np.arange(2), 6)),
    (zip_one, "int64(int64[:], int64)", lambda: (np.arange(5), 0)),
    (zip_single_target, "int64(int64[:], int64)", lambda: (np.arange(6) + 2, 4)),
    (enumerate_zip, "int64(int64[:], int64)", lambda: (np.arange(5) + 1, 3)),
    (zip_rows, "int64(int64[:, :], int64[:])", lambda: (np.arange(12).reshape(4, 3), np.arange(3) + 1)),
    (nested_break_continue_else, "int64(int64[:], int64)", lambda: (np.arange(8), 9)),
    (nested_break_continue_else, "int64(int64[:], int64)", lambda: (np.arange(3), 100)),
    (loop_variable_after_loop, "int64(int64[:], int64)", lambda: (np.arange(4) + 6, 0)),
    (empty_iterables, "int64(int64[:], int64)", lambda: (np.arange(4), 4)),
    (empty_iterables, "int64(int64[:], int64)", lambda: (np.arange(4), 1)),
    (tuple_runtime_index, "int64(int64, int64)", lambda: (2, 3)),
    (tuple_runtime_index, "int64(int64, int64)", lambda: (-1, -4)),
    (tuple_runtime_index, "int64(int32, uint8)", lambda: (np.int32(0), np.uint8(1))),
    (nested_tuple_runtime_index, "int64(int64, int64)", lambda: (2, -3)),
    (heterogeneous_constant_indices, "int64(int64, int64)", lambda: (5, 7)),
    (tuple_of_arrays_loop, "int64(int64[:], int64[:])", lambda: (np.arange(3) + 5, np.arange(4) + 1)),
    (float_tuple_loop, "int64(int64, int64)", lambda: (3, 0)),
    (shape_and_frozen_array, "int64(int64[:, :, :], int64)", lambda: (np.zeros((2, 3, 4), np.int64), 0)),
]


@needs_clang
@pytest.mark.parametrize("fn,sig,make", VALUE_CASES,
                         ids=[f"{c[0].__name__}-{k}" for k, c in enumerate(VALUE_CASES)])
def test_loops_give_cpythons_values(fn, sig, make, tmp_path):
    f = host_function(fn, sig, tmp_path)
    args = make()
    expected = fn(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    assert call(f, *[int(a) if not isinstance(a, np.ndarray) else a for a in args]) == expected


def tuple_index_out_of_range(n, i):
    t = (10, 20, 30)
    return t[i]


@needs_clang
@pytest.mark.parametrize("i", [3, -4, 100])
def test_a_tuple_index_out_of_range_raises_index_error(i, tmp_path):
    # numba's UniTuple getitem raises IndexError, which the Numba ABI reports as a non-zero status.
    f = host_function(tuple_index_out_of_range, "int64(int64, int64)", tmp_path)
    with pytest.raises(AssertionError, match="status 1"):
        call(f, 0, i)


@pytest.mark.parametrize("fn,sig", [(c[0], c[1]) for c in VALUE_CASES[::3]])
def test_loops_assemble_with_ptxas(fn, sig):
    ptx, _ = cubridge.compile_ptx(fn, sig, device=True, abi="numba", cc=CC)
    r = cubridge.ptxas_check(ptx, CC)
    assert r, r.log


# ---- the loop variables' types, as numba types them ----

def row_of(m):
    for row in m:
        return row.shape[0]
    return 0


def returns_item(a):
    r = a[0] - a[0]
    for v in a:
        r = v
    return r


def returns_index(a, start):
    k = 0
    for k, v in enumerate(a, start):
        pass
    return k


def returns_zip_item(n, m):
    p = (n - n, m - m)
    for p in zip(range(n), range(m)):
        pass
    return p


def returns_tuple_item(t):
    r = t[0]
    for r in t:
        pass
    return r


def returns_runtime_item(t, i):
    return t[i]


TYPE_CASES = [
    (returns_item, "(float32[:],)"),
    (returns_item, "(uint16[::1],)"),
    (returns_index, "(float32[:], int32)"),
    (returns_index, "(float32[:], uint64)"),
    (returns_zip_item, "(int32, int64)"),
    (returns_zip_item, "(int32, uint64)"),
    (returns_tuple_item, "(UniTuple(int32 x 3),)"),
    (returns_tuple_item, "(UniTuple(float32 x 2),)"),
    (returns_runtime_item, "(UniTuple(int16 x 3), uint32)"),
    (returns_runtime_item, "(UniTuple(complex64 x 2), int8)"),
]


@pytest.mark.parametrize("fn,sig", TYPE_CASES, ids=[f"{f.__name__}{s}" for f, s in TYPE_CASES])
def test_item_types_are_numbas(fn, sig):
    numba = pytest.importorskip("numba")
    ptx, ours = cubridge.compile_ptx(fn, sig, device=True, abi="numba", cc=CC)
    from numba.core import sigutils
    args, _ = sigutils.normalize_signature(sig.replace("UniTuple(int32 x 3)", "UniTuple(int32, 3)")
                                           .replace("UniTuple(float32 x 2)", "UniTuple(float32, 2)")
                                           .replace("UniTuple(int16 x 3)", "UniTuple(int16, 3)")
                                           .replace("UniTuple(complex64 x 2)", "UniTuple(complex64, 2)"))
    theirs = numba.njit(args)(fn).nopython_signatures[0].return_type
    assert str(ours) == str(theirs)


@pytest.mark.parametrize("sig", ["(float32[:, ::1],)", "(float32[::1, :],)", "(float32[:, :],)"])
def test_rows_are_views_of_layout_A_as_numba_gives_them(sig):
    # numba's ArrayIterator yields rows in layout 'A' whatever the array's layout; the variable's type
    # shows in the message of a unification that cannot succeed (r = 1 and the rows meet at the read after
    # the loop; without that read they are versions of their own and compile, as numba's SSA has them).
    def rows(m):
        r = 1
        for r in m:
            pass
        return r[0]

    with pytest.raises(cubridge.CompileError, match=r"'r': int64 and array\(float32, 1d, A\)"):
        cubridge.compile_ptx(rows, sig, device=True, abi="numba", cc=CC)


# ---- refusals ----

def loop_over_heterogeneous(n):
    s = 0.0
    for v in (1, 2.5):
        s += v
    return s


def loop_over_number(n):
    for v in n:
        pass
    return 0


def loop_reversed(n):
    s = 0
    for i in reversed(range(n)):
        s += i
    return s


def loop_into_subscript(a, n):
    for a[0] in range(n):
        pass
    return 0


def enumerate_bad_keyword(a, n):
    for i, v in enumerate(a, begin=1):
        pass
    return 0


def enumerate_float_start(a, n):
    for i, v in enumerate(a, 1.5):
        pass
    return 0


def zip_nothing(a, n):
    for v in zip():
        pass
    return 0


def enumerate_as_value(a, n):
    e = enumerate(a)  # numba-cuda accepts iterators held in variables; cubridge does not yet
    return 0


def heterogeneous_runtime_index(n, i):
    t = (1, 2.5)
    return t[i]


def float_tuple_index(n, x):
    t = (1, 2)
    return t[x]


def unpack_a_number(a, n):
    for i, v in a:
        pass
    return 0


REFUSALS = [
    (loop_over_heterogeneous, "(int64,)", r"\.py:\d+:14: cannot iterate over the heterogeneous tuple Tuple\(int64, float64\) "
                                          r"\(numba-cuda needs literal_unroll"),
    (loop_over_number, "(int64,)", r"cannot iterate over a value of type int64; for loops iterate over range\(\), "
                                   r"arrays, tuples whose items have one type, and enumerate\(\) and zip\(\) of them"),
    (loop_reversed, "(int64,)", r"reversed\(\) is not supported .*range\(n - 1, -1, -1\)"),
    (loop_into_subscript, "(int64[:], int64)", r"the target of a for loop must be a name or a tuple of names"),
    (enumerate_bad_keyword, "(int64[:], int64)", r"enumerate\(\) takes an iterable and an optional start"),
    (enumerate_float_start, "(int64[:], int64)", r"enumerate\(\)'s start must be an integer, got float64"),
    (zip_nothing, "(int64[:], int64)", r"zip\(\) needs at least one iterable"),
    (enumerate_as_value, "(int64[:], int64)", r"enumerate\(\) is supported only as the iterable of a for loop"),
    (heterogeneous_runtime_index, "(int64, int64)", r"the heterogeneous tuple Tuple\(int64, float64\) can only be "
                                                    r"indexed with an integer constant"),
    (float_tuple_index, "(int64, float64)", r"a tuple index must be an integer, got float64"),
    (unpack_a_number, "(int64[:], int64)", r"cannot unpack a value of type int64"),
]


@pytest.mark.parametrize("fn,sig,message", REFUSALS, ids=[r[0].__name__ for r in REFUSALS])
def test_refusals_name_the_construct(fn, sig, message):
    with pytest.raises(cubridge.CompileError, match=message):
        cubridge.compile_ptx(fn, sig, device=True, abi="numba", cc=CC)


@pytest.mark.parametrize("fn,sig", [(loop_over_heterogeneous, "int64(int64)"), (loop_over_number, "int64(int64)"),
                                    (loop_reversed, "int64(int64)"),
                                    (heterogeneous_runtime_index, "float64(int64, int64)")])
def test_numba_cuda_refuses_them_too(fn, sig):
    pytest.importorskip("numba")
    try:
        import numpy
        numpy.row_stack = getattr(numpy, "row_stack", numpy.vstack)
        from numba import cuda
    except Exception as e:  # noqa: BLE001 - numba's CUDA target is not importable here
        pytest.skip(f"numba.cuda is not importable: {e}")
    with pytest.raises(numba_typing_errors()):
        cuda.compile_ptx(fn, sig, device=True, cc=CC)
