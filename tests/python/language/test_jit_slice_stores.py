"""Slice stores (issue 12, item 5), without a GPU: out[i, :] = 0.0, a[1:4] = b[0:3], a[:] = other,
a[::2] = v, a[i] = row, x[:, j] = y[:, j], tuples into 1-d slices, broadcasting, overlapping source and
destination, dtype conversion and empty slices. Each function is compiled by cubridge to NVVM IR, run on
the host through clang and compared with NumPy running the same function on the same arrays: numba's
setitem (with its runtime's scratch copy when source and destination may overlap) gives NumPy's result.
A shape that does not broadcast raises ValueError in numba: here the function returns a non-zero status
before storing anything. Refusals are checked by message, and numba refuses the same forms. The GPU
parity kernels are in parity/kernels_slice_stores.py (see its docstring for which run against numba-cuda
with its runtime enabled)."""
import ctypes

import numpy as np
import pytest

import cubridge
from conftest import numba_typing_errors
from test_jit_slices import array_pieces, host_function, needs_clang

CC = (9, 0)


def row_to_zero(out, i):
    out[i, :] = 0.0
    return 0


def copy_window(a, b):
    a[1:4] = b[0:3]
    return 0


def copy_whole(a, b):
    a[:] = b
    return 0


def every_other(a, v):
    a[::2] = v
    return 0


def set_row(m, r):
    m[1] = r
    m[-1] = r[::-1]
    return 0


def copy_column(x, y):
    x[:, 0] = y[:, 2]
    x[:, -1] = y[:, 0]
    return 0


def broadcast_row(m, r):
    m[:, :] = r
    return 0


def broadcast_column(m, c):
    m[1:, :] = c
    return 0


def broadcast_into_3d(t, r):
    t[:] = r
    t[1, :, 1:3] = 9
    return 0


def drop_leading_ones(m, t):
    m[:, :] = t
    return 0


def shift_right(a, n):
    a[1:] = a[:-1]
    return 0


def shift_left(a, n):
    a[:-1] = a[1:]
    return 0


def reverse_in_place(a, n):
    a[:] = a[::-1]
    return 0


def row_into_column(m, n):
    m[:, 0] = m[0, :]
    m[1:, 1:] = m[:-1, :-1]
    return 0


def strided_overlap(a, n):
    a[::2] = a[:5]
    return 0


def strided_overlap_copied(a, n):
    a[::2] = a[:5].copy()
    return 0


def convert_values(a, b):
    a[1:] = b[:-1]
    a[0] = b[-1]
    return 0


def from_tuple(a, m):
    a[1:4] = (7, 8, 9)
    m[1, ::-1] = (1.5, 2.5, 3.5, 4.5)
    return 0


def empty_slices(a, b):
    a[5:5] = b[0:0]
    a[3:1] = 7
    a[:0] = b
    return 0


def bool_values(a, b):
    a[::2] = b[1::2]
    a[1] = 2.5
    return 0


VALUE_CASES = [
    (row_to_zero, "int64(int32[:, :], int64)", lambda: (np.arange(12, dtype=np.int32).reshape(3, 4), 1)),
    (row_to_zero, "int64(float32[::1, :], int64)", lambda: (np.asfortranarray(np.ones((3, 4), np.float32)), -1)),
    (copy_window, "int64(int64[:], int64[:])", lambda: (np.zeros(6, np.int64), np.arange(10, 16))),
    (copy_window, "int64(int64[:], int64[:])", lambda: (np.zeros(12, np.int64)[::2], np.arange(20)[::-3])),
    (copy_whole, "int64(float64[:], float64[:])", lambda: (np.zeros(5), np.linspace(0, 1, 5))),
    (copy_whole, "int64(float64[:, :], float64[:, :])", lambda: (np.zeros((3, 4)), np.arange(12.0).reshape(3, 4))),
    (copy_whole, "int64(float64[:, :], float64[::1, :])",
     lambda: (np.zeros((3, 4)), np.asfortranarray(np.arange(12.0).reshape(3, 4)))),
    (every_other, "int64(float32[:], float64)", lambda: (np.zeros(7, np.float32), 1.0 / 3.0)),
    (set_row, "int64(int64[:, :], int64[:])", lambda: (np.zeros((3, 4), np.int64), np.arange(4) + 1)),
    (set_row, "int64(int64[::1, :], int64[:])",
     lambda: (np.asfortranarray(np.zeros((3, 4), np.int64)), np.arange(4) + 1)),
    (copy_column, "int64(int64[:, :], int64[:, :])", lambda: (np.zeros((4, 3), np.int64), np.arange(12).reshape(4, 3))),
    (broadcast_row, "int64(int64[:, :], int64[:])", lambda: (np.zeros((3, 4), np.int64), np.arange(4) + 1)),
    (broadcast_row, "int64(int64[:, :], int64[:])", lambda: (np.zeros((3, 4), np.int64), np.arange(1) + 5)),
    (broadcast_column, "int64(int64[:, :], int64[:, :])",
     lambda: (np.zeros((3, 4), np.int64), np.arange(2).reshape(2, 1) + 1)),
    (broadcast_into_3d, "int64(int64[:, :, :], int64[:])", lambda: (np.zeros((2, 3, 4), np.int64), np.arange(4) + 1)),
    (drop_leading_ones, "int64(int64[:, :], int64[:, :, :])",
     lambda: (np.zeros((2, 3), np.int64), np.arange(6).reshape(1, 2, 3))),
    (shift_right, "int64(int64[:], int64)", lambda: (np.arange(8), 0)),
    (shift_left, "int64(int64[:], int64)", lambda: (np.arange(8), 0)),
    (reverse_in_place, "int64(int64[:], int64)", lambda: (np.arange(7), 0)),
    (row_into_column, "int64(int64[:, :], int64)", lambda: (np.arange(16).reshape(4, 4), 0)),
    (row_into_column, "int64(int64[::1, :], int64)", lambda: (np.asfortranarray(np.arange(16).reshape(4, 4)), 0)),
    # NumPy copies 1-d elements in order when both strides point the same way (its inner loop is meant to
    # cope with overlap, and does not when the strides differ); numba copies the source first whenever the
    # memory may overlap, so the reference copies it explicitly.
    (strided_overlap, "int64(int64[:], int64)", lambda: (np.arange(10), 0), strided_overlap_copied),
    (convert_values, "int64(int32[:], float64[:])", lambda: (np.zeros(5, np.int32), np.array([-2.7, 2.7, 1e3, -0.5, 9.9]))),
    (convert_values, "int64(float32[:], int64[:])", lambda: (np.zeros(4, np.float32), np.array([1, 2**40 + 1, -3, 7]))),
    (convert_values, "int64(float64[:], bool[:])", lambda: (np.zeros(4), np.array([True, False, True, True]))),
    (from_tuple, "int64(int64[:], float64[:, :])", lambda: (np.zeros(6, np.int64), np.zeros((2, 4)))),
    (empty_slices, "int64(int64[:], int64[:])", lambda: (np.arange(6), np.arange(0))),
    (bool_values, "int64(bool[:], float64[:])", lambda: (np.zeros(6, np.bool_), np.array([0, 1.5, 0, 0, 0, -0.0]))),
]


def call_status(f, args):
    """Calls a host-compiled Numba-ABI function; its status (0: returned, else: raised)."""
    flat = []
    for a in args:
        if isinstance(a, np.ndarray):
            flat += array_pieces(a)
        elif isinstance(a, float):
            flat.append(ctypes.c_double(a))
        else:
            flat.append(ctypes.c_int64(int(a)))
    return f(ctypes.byref(ctypes.c_int64(0)), *flat)


@needs_clang
@pytest.mark.parametrize("case", VALUE_CASES, ids=[f"{c[0].__name__}-{k}" for k, c in enumerate(VALUE_CASES)])
def test_slice_stores_give_numbas_values(case, tmp_path):
    fn, sig, make = case[:3]
    reference = case[3] if len(case) > 3 else fn
    f = host_function(fn, sig, tmp_path)
    ours, theirs = make(), make()
    reference(*theirs)
    assert call_status(f, ours) == 0
    for a, b in zip(ours, theirs):
        if isinstance(a, np.ndarray):
            np.testing.assert_array_equal(a, b)


MISMATCHES = [
    (copy_window, "int64(int64[:], int64[:])", lambda: (np.zeros(6, np.int64), np.arange(2))),
    (copy_whole, "int64(float64[:], float64[:])", lambda: (np.zeros(5), np.zeros(4))),
    (broadcast_row, "int64(int64[:, :], int64[:])", lambda: (np.zeros((3, 4), np.int64), np.arange(3))),
    (drop_leading_ones, "int64(int64[:, :], int64[:, :, :])",
     lambda: (np.zeros((2, 3), np.int64), np.arange(12).reshape(2, 2, 3))),
    (from_tuple, "int64(int64[:], float64[:, :])", lambda: (np.zeros(3, np.int64), np.zeros((2, 4)))),
]


@needs_clang
@pytest.mark.parametrize("fn,sig,make", MISMATCHES, ids=[f"{c[0].__name__}-{k}" for k, c in enumerate(MISMATCHES)])
def test_shapes_that_do_not_broadcast_raise_before_storing(fn, sig, make, tmp_path):
    # NumPy (and numba) raise ValueError; the Numba ABI reports a raised exception as a non-zero status,
    # which ends a kernel's thread. Nothing is stored.
    with pytest.raises(ValueError):
        fn(*make())
    f = host_function(fn, sig, tmp_path)
    args = make()
    before = [a.copy() for a in args if isinstance(a, np.ndarray)]
    assert call_status(f, args) != 0
    for a, b in zip([a for a in args if isinstance(a, np.ndarray)], before):
        np.testing.assert_array_equal(a, b)


def store_three(a, b):
    a[:3] = b


def calls_a_raising_store(a, b):
    store_three(a, b)
    a[3] = 99  # not reached when the store raised: the exception propagates to the caller
    return 0


def index_three(t, i):
    return t[i]


def calls_a_raising_index(a, i):
    a[0] = index_three((1, 2, 3), i)
    a[1] = 99
    return 0


@needs_clang
@pytest.mark.parametrize("n,status", [(3, 0), (2, 1)])
def test_a_raise_in_a_called_function_propagates(n, status, tmp_path):
    f = host_function(calls_a_raising_store, "int64(int64[:], int64[:])", tmp_path)
    a, b = np.zeros(5, np.int64), np.arange(n) + 1
    assert call_status(f, [a, b]) == status
    expected = np.zeros(5, np.int64)
    if status == 0:
        expected[:3], expected[3] = b, 99
    np.testing.assert_array_equal(a, expected)


@needs_clang
@pytest.mark.parametrize("i,status", [(-1, 0), (3, 1)])
def test_a_tuple_index_raise_in_a_called_function_propagates(i, status, tmp_path):
    f = host_function(calls_a_raising_index, "int64(int64[:], int64)", tmp_path)
    a = np.zeros(2, np.int64)
    assert call_status(f, [a, i]) == status
    np.testing.assert_array_equal(a, [3, 99] if status == 0 else [0, 0])


def kernel_row_fill(out, v):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i, :] = v
        out[i, ::2] = out[i, 1::2]


from numba import cuda  # noqa: E402 - the kernel above spells cuda.grid as numba-cuda users do


@pytest.mark.parametrize("sig", ["void(float32[:, :], float64)", "void(float32[::1, :], int32)"])
def test_kernels_with_slice_stores_assemble(sig):
    ptx, resty = cubridge.compile_ptx(kernel_row_fill, sig, cc=CC)
    assert resty is None
    r = cubridge.ptxas_check(ptx, CC)
    assert r, r.log
    assert "malloc" in ptx and "free" in ptx  # the scratch copy for overlapping rows


def test_a_number_stored_into_a_slice_needs_no_scratch_copy():
    def fill(out, v):
        out[1:, :] = v

    ptx, _ = cubridge.compile_ptx(fill, "void(float32[:, :], float32)", cc=CC)
    assert "malloc" not in ptx


# ---- refusals ----

FROZEN = np.arange(4.0)


def into_read_only(a, b):
    a[1:3] = b[:2]


def into_frozen(a):
    FROZEN[1:] = 0.0


def complex_into_floats(a, z):
    a[:] = z


def complex_array_into_floats(a, z):
    a[1:] = z[1:]


def mixed_tuple(a):
    a[1:3] = (1, 2.5)


def tuple_into_2d(m):
    m[0:2, :] = (1.0, 2.0)


def array_into_element(a, b):
    a[0] = b


def augmented_slice(a):
    a[1:3] += 1


REFUSALS = [
    (into_read_only, "void(readonly float64[:], float64[:])", r"cannot store to 'a': it is a read-only array"),
    (into_frozen, "void(float64[:])", r"cannot store to 'FROZEN': it is a NumPy array bound outside the kernel"),
    (complex_into_floats, "void(float64[:], complex128)",
     r"cannot store a value of type complex128 into a slice of 'a' \(array\(float64, 1d, A\)\): complex128 does not "
     r"convert to float64"),
    (complex_array_into_floats, "void(float64[:], complex128[:])",
     r"into a slice of 'a' \(array\(float64, 1d, A\)\): its dtype complex128 does not convert to float64"),
    (mixed_tuple, "void(float64[:],)", r"its items have different types; a slice takes a number, an array"),
    (tuple_into_2d, "void(float64[:, :],)", r"a tuple fills a 1-d slice only"),
    (array_into_element, "void(float64[:], float64[:])",
     r"cannot store a value of type array\(float64, 1d, A\) into an element of 'a'"),
    (augmented_slice, "void(int64[:],)", r"unsupported operand types for \+: array\(int64, 1d, A\) and int64"),
]


@pytest.mark.parametrize("fn,sig,message", REFUSALS, ids=[r[0].__name__ for r in REFUSALS])
def test_refusals_name_the_target_and_what_is_accepted(fn, sig, message):
    with pytest.raises(cubridge.CompileError, match=r"\.py:\d+:\d+: .*" + message):
        cubridge.compile_ptx(fn, sig, cc=CC)


@pytest.mark.parametrize("fn,sig", [(complex_into_floats, "void(float64[:], complex128)"),
                                    (mixed_tuple, "void(float64[:])"), (tuple_into_2d, "void(float64[:, :])"),
                                    (array_into_element, "void(float64[:], float64[:])"),
                                    (augmented_slice, "void(int64[:])")])
def test_numba_cuda_refuses_them_too(fn, sig):
    try:
        np.row_stack = getattr(np, "row_stack", np.vstack)
        import numba.core.errors  # noqa: F401
    except Exception as e:  # noqa: BLE001 - numba's CUDA target is not importable here
        pytest.skip(f"numba.cuda is not importable: {e}")
    # numba-cuda 0.30 refuses an augmented slice store in lowering, with KeyError(<ufunc 'add'>), not in typing.
    with pytest.raises((*numba_typing_errors(), KeyError)):
        cuda.compile_ptx(fn, sig, cc=CC)


def _nrt_cases():
    import os
    import sys
    sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
    import parity.kernels_reductions  # noqa: F401  (its NRT cases compile here too)
    import parity.kernels_slice_stores  # noqa: F401
    from parity.cases import NRT_CASES
    return NRT_CASES


@pytest.mark.parametrize("case", _nrt_cases(), ids=lambda c: c.id)
def test_array_source_parity_kernels_compile_and_assemble(case):
    # These run on the GPU in test_nrt_parity_gpu.py (numba-cuda needs its runtime for them), so the
    # shared test_parity.py does not compile them.
    ptx, resty = cubridge.compile_ptx(case.fn, case.signature(cubridge.typeof), cc=CC, **case.options)
    assert resty is None
    r = cubridge.ptxas_check(ptx, CC)
    assert r, r.log
