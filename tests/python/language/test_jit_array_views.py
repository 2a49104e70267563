"""a.T, a.transpose(...) and a.fill(v) in kernels (issue 21), as numba-cuda compiles them without allocating.
No GPU needed. The rules, each a test below:
- a.T and a.transpose() (or transpose(None)) are views with the axes reversed, typed as numba's resolve_T:
  a C-contiguous array's is F-contiguous and back, an 'A' array's stays 'A', a 1-d array is itself;
- a.transpose(axes) with a tuple of ints or several ints (one per axis; negative ones count from the end)
  is a view typed 'A'; one int on a 1-d array keeps the array's type;
- np.transpose(a) and np.transpose(a, axes) are a.transpose() and a.transpose(axes) (numba's numpy_transpose);
- the views index the same data: over a constant array the element read folds to the original's element;
- a repeated axis and an axis outside [-ndim, ndim) raise numba's ValueError in the kernel;
- refused by name: the wrong number of axes, axes that are not ints, keyword arguments;
- a.ravel() of a C-contiguous array is a 1-d C view of its a.size elements (numba's ary.reshape(ary.size));
  of any other layout numba-cuda copies (a.flatten(), NRT), which is refused with that reason;
- a.fill(v) stores v, converted to the dtype as numba's setitem does (2.7 into int32 is 2), into every
  element of an array of any rank and layout; it returns None; a read-only array and a non-number value
  are refused by name.
Values over run-time arrays: test_jit_array_views_gpu.py."""
import numpy as np
import pytest

import cubridge
from cubridge import CompileError
from test_jit_numpy_reductions import _double, _stored

CC = (9, 0)
C = np.arange(6.0).reshape(2, 3)


def _type_of(body, spelling):
    """The type the compiler gives `body`: a device function returning an array is refused with its type."""
    ns = {"np": np}
    exec(f"def f(a):\n    return {body}\n", ns)
    with pytest.raises(CompileError, match="cannot return a value of type") as info:
        cubridge.compile_ptx(ns["f"], f"({spelling},)", device=True, cc=CC)
    return str(info.value).split("cannot return a value of type ")[1].split("\n")[0]


@pytest.mark.parametrize("body", ["a.T", "a.transpose()", "a.transpose(None)", "np.transpose(a)"])
@pytest.mark.parametrize("spelling, expected", [
    ("float64[:, ::1]", "array(float64, 2d, F)"), ("float64[::1, :]", "array(float64, 2d, C)"),
    ("float64[:, :]", "array(float64, 2d, A)"), ("int32[::1]", "array(int32, 1d, C)"),
    ("float32[:, :, ::1]", "array(float32, 3d, F)"),
])
def test_T_and_transpose_are_typed_as_numbas_resolve_T(body, spelling, expected):
    assert _type_of(body, spelling) == expected


@pytest.mark.parametrize("body, spelling, expected", [
    ("a.transpose((1, 0))", "float64[:, ::1]", "array(float64, 2d, A)"),
    ("a.transpose(1, 0)", "float64[::1, :]", "array(float64, 2d, A)"),
    ("a.transpose((2, 0, 1))", "int32[:, :, ::1]", "array(int32, 3d, A)"),
    ("a.transpose(0)", "float64[::1]", "array(float64, 1d, C)"),
    ("a.transpose((0,))", "float64[::1]", "array(float64, 1d, A)"),
    ("np.transpose(a, (1, 0))", "float64[:, ::1]", "array(float64, 2d, A)"),
])
def test_transpose_with_axes_is_an_A_view(body, spelling, expected):
    assert _type_of(body, spelling) == expected


def folded(out):
    out[0] = C.T[2, 1]  # C[1, 2] = 5
    out[1] = C.transpose((1, 0))[1, 0]  # C[0, 1] = 1
    out[2] = C.transpose(-1, 0)[2, 1]  # axes (1, 0): C[1, 2] = 5
    out[3] = C.T.shape[0]  # 3
    out[4] = C.T.strides[0]  # 8: the F view's first axis is the original's last
    out[5] = np.transpose(C)[2, 0]  # C[0, 2] = 2
    out[6] = np.transpose(C, (1, 0))[1, 1]  # C[1, 1] = 4


def test_views_of_a_constant_array_read_its_elements():
    ptx, _ = cubridge.compile_ptx(folded, "void(float64[::1])", cc=CC)
    got = {off: _double(v) for off, v in _stored(ptx).items()}
    assert got == {0: 5.0, 8: 1.0, 16: 5.0, 24: 3.0, 32: 8.0, 40: 2.0, 48: 4.0}


def permuted(a, axes, out):
    out[0] = a.transpose(axes)[0, 0]


def test_bad_axes_raise_numbas_value_errors():
    k = cubridge.jit(permuted)
    k = k.compile(k._signature_for((np.zeros((2, 2)), (1, 0), np.zeros(1))))
    raised = {(site[1], a.split(":", 1)[1]) for site in k.raise_sites.values() for a in site[2]}
    assert {("builtins.ValueError", "repeated axis in transpose"),
            ("builtins.ValueError", "axis is out of bounds for array of given dimension")} <= raised
    assert cubridge.ptxas_check(k.ptx, CC)


@pytest.mark.parametrize("body, match", [
    ("a.transpose((1, 0, 2))", r"array.transpose\(\) of a 2-d array \(array\(float64, 2d, C\)\) takes 2 axes, got 3"),
    ("a.transpose(0)", r"takes 2 axes, got 1"),
    ("a.transpose((1.0, 0.0))", r"array.transpose\(\) takes the axes as a tuple of ints or several ints, got "
                                r"UniTuple\(float64 x 2\)"),
    ("a.transpose(axes=(1, 0))", r"array.transpose\(\) takes no keyword arguments"),
    ("np.transpose(a, 1, 0)", r"np.transpose\(a, axes\) takes the axes as one tuple"),
    ("np.transpose(a, (0,))", r"np.transpose\(\) of a 2-d array .* takes 2 axes, got 1"),
    ("a.fill()", r"array.fill\(value\) takes one argument"),
    ("a.fill(a)", r"array.fill\(value\) takes a number, got array\(float64, 2d, C\)"),
])
def test_bad_arguments_are_refused_by_name(body, match):
    ns = {"np": np}
    exec(f"def f(a):\n    x = {body}\n", ns)
    with pytest.raises(CompileError, match=match):
        cubridge.compile_ptx(ns["f"], "(float64[:, ::1],)", device=True, cc=CC)


def fill_constant(a):
    a.fill(2.7)


def fill_value(a, v):
    a.fill(v)


def test_fill_stores_the_value_converted_to_the_dtype():
    ptx, _ = cubridge.compile_ptx(fill_constant, "void(int32[:, :])", cc=CC)
    assert "mov.u32 \t%r1, 2;" in ptx and "st.global.u32" in ptx  # 2.7 truncated to 2, as numba's setitem
    ptx, _ = cubridge.compile_ptx(fill_value, "void(int32[:, :, ::1], float64)", cc=CC)
    assert "cvt.rzi.s32.f64" in ptx
    assert cubridge.ptxas_check(ptx, CC)


@pytest.mark.parametrize("spelling", ["float64[::1]", "float32[:, :]", "complex64[:, :, ::1]", "bool[::1]"])
def test_fill_returns_none_for_every_rank_and_layout(spelling):
    _, resty = cubridge.compile_ptx(fill_value, f"({spelling}, float64)", device=True, cc=CC)
    assert resty is None  # numba's fill returns None


def fill_readonly(out):
    C.fill(1.0)


def test_fill_of_a_read_only_array_is_refused():
    with pytest.raises(CompileError, match=r"cannot store to 'a': it is a read-only array"):
        cubridge.compile_ptx(fill_readonly, "void(float64[::1])", cc=CC)


@pytest.mark.parametrize("spelling, expected", [("float64[:, ::1]", "array(float64, 1d, C)"),
                                                ("int32[:, :, ::1]", "array(int32, 1d, C)"),
                                                ("float32[::1]", "array(float32, 1d, C)")])
def test_ravel_of_a_c_array_is_a_1d_view(spelling, expected):
    assert _type_of("a.ravel()", spelling) == expected


def ravelled(out):
    r = C.ravel()
    out[0] = r[4]  # C[1, 1] = 4
    out[1] = r.shape[0]  # 6
    out[2] = r.strides[0]  # 8


def test_ravel_reads_the_elements_in_c_order():
    ptx, _ = cubridge.compile_ptx(ravelled, "void(float64[::1])", cc=CC)
    assert {off: _double(v) for off, v in _stored(ptx).items()} == {0: 4.0, 8: 6.0, 16: 8.0}


@pytest.mark.parametrize("spelling", ["float64[:, :]", "float64[::1, :]"])
def test_ravel_of_another_layout_is_refused_as_a_copy(spelling):
    with pytest.raises(CompileError, match=r"array.ravel\(\) of array\(float64, 2d, [AF]\) is not supported in kernels: "
                                           r"numba-cuda's is a view only of a C-contiguous array; .* \(NRT"):
        cubridge.compile_ptx(ravel_into, f"({spelling},)", device=True, cc=CC)


def ravel_into(a):
    x = a.ravel()
    x[0] = 1.0
