"""a[()] in kernels, as numba's basic indexing reads it: the index () names no axis, so a[()] of an N-d array is
a view of the whole array (and of a 0-d array its element). Compile-only. Rules:
 1. y = x[()] is a view of x: y[i] loads x's element i; a[()] = v stores v into every element (a slice store).
 2. Using the view where a number is needed (x[()] + 1, r[0] = x[()]) is refused by name at typing: never a
    crash of the process (this used to reach the code generator with no type and kill the interpreter)."""
import pytest

import cubridge

SIG = "void(int64[:], int64[:])"


def view_then_index(r, x):
    y = x[()]
    r[0] = y[1]


def store_all(r, x):
    r[()] = 7


def add_to_view(r, x):
    r[0] = x[()] + 1


def store_view(r, x):
    r[0] = x[()]


def test_the_empty_index_is_a_view_of_the_whole_array():
    ptx, _ = cubridge.compile_ptx(view_then_index, SIG)
    assert ".entry" in ptx
    ptx, _ = cubridge.compile_ptx(store_all, SIG)
    assert "st.global.u64" in ptx  # the 7 stored into the elements


@pytest.mark.parametrize("kernel, message", [
    (add_to_view, r"unsupported operand types for \+: array\(int64, 1d, A\) and int64"),
    (store_view, r"cannot store a value of type array\(int64, 1d, A\) into an element of 'r'"),
])
def test_the_view_where_a_number_is_needed_is_refused_by_name(kernel, message):
    with pytest.raises(cubridge.CompileError, match=message):
        cubridge.compile_ptx(kernel, SIG)
