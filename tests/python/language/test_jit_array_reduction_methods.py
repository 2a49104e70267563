"""NumPy's whole-array reductions as array methods in kernels (issue 21), as numba-cuda compiles them with
no allocation (its arraydecl "array.sum" and overload_method(types.Array, "prod"/"mean"/...)). No GPU needed.
The rules, each a test below:
- a.sum(), prod, mean, var, std, min, max, argmin, argmax, all and any compile for arrays of any rank and
  layout, and each is np.<name>(a): the same implementation and the same result type;
- np.prod, np.argmin, np.argmax, np.amin and np.amax compile as the other NumPy reductions;
- result types are numba's: prod widens integers and bools as sum does (int32 -> int64, uint8 -> uint64,
  bool -> int64) and keeps floats; argmin and argmax are intp (int64);
- over constant data the result folds to numba's value: argmin/argmax give the C-order index of the first
  NaN where there is one, else of the first extreme (ties keep the first);
- refused by name: axis=/dtype= and positional arguments (a reduction along an axis is a new array, which
  numba-cuda allocates with its NRT), argmin/argmax of complex numbers (no order, numba refuses too); methods
  that return a new array (copy, astype, flatten, cumsum, cumprod, argsort) say that they need numba-cuda's
  NRT; other methods are refused as not supported, never with an NRT claim.
Values over run-time arrays: test_jit_array_reduction_methods_gpu.py and parity/kernels_reductions.py."""
import numpy as np
import pytest

import cubridge
from cubridge import CompileError
from test_jit_numpy_reductions import _double, _stored

CC = (9, 0)
METHODS = ["sum", "prod", "mean", "var", "std", "min", "max", "argmin", "argmax", "all", "any"]


def _function(body):
    ns = {"np": np}
    exec(f"def f(a):\n    return {body}\n", ns)
    return ns["f"]


def _resty(body, spelling):
    ptx, resty = cubridge.compile_ptx(_function(body), f"({spelling},)", device=True, cc=CC)
    r = cubridge.ptxas_check(ptx, CC)
    assert r, r.log
    return str(resty)


@pytest.mark.parametrize("name", METHODS)
@pytest.mark.parametrize("spelling", ["float64[::1]", "float32[:, :]", "int32[:, :, ::1]", "bool[::1]"])
def test_every_method_is_the_numpy_reduction(name, spelling):
    assert _resty(f"a.{name}()", spelling) == _resty(f"np.{name}(a)", spelling)


@pytest.mark.parametrize("body, spelling, expected", [
    ("a.prod()", "int32[::1]", "int64"), ("a.prod()", "uint8[:, :]", "uint64"), ("a.prod()", "bool[::1]", "int64"),
    ("a.prod()", "float32[::1]", "float32"), ("a.prod()", "complex128[::1]", "complex128"),
    ("np.prod(a)", "int16[::1]", "int64"),
    ("a.argmin()", "float32[:, :]", "int64"), ("a.argmax()", "int8[::1]", "int64"), ("np.argmax(a)", "bool[::1]", "int64"),
    ("np.amin(a)", "float32[::1]", "float32"), ("np.amax(a)", "int32[:, ::1]", "int32"),
    ("a.sum()", "int32[::1]", "int64"), ("a.mean()", "int32[::1]", "float64"), ("a.max()", "float32[::1]", "float32"),
    ("a.all()", "float64[::1]", "bool"),
])
def test_result_types_are_numbas(body, spelling, expected):
    assert _resty(body, spelling) == expected


NANS = np.float64([[2.0, np.nan], [-1.5, np.nan]])
FLOATS = np.float64([[2.0, -1.5, 7.0], [7.0, -1.5, 0.5]])
INTS = np.int32([[3, -4, 9], [9, -4, 2]])


def folded_indices(idx):
    idx[0] = NANS.argmin()  # the first NaN: 1
    idx[1] = NANS.argmax()  # 1
    idx[2] = FLOATS.argmin()  # ties keep the first: 1
    idx[3] = FLOATS.argmax()  # 2
    idx[4] = np.argmin(INTS)  # 1
    idx[5] = INTS.argmax()  # 2
    idx[6] = INTS.prod()  # 3 * -4 * 9 * 9 * -4 * 2 = 7776


def folded_floats(out):
    out[0] = FLOATS.prod()  # 2 * -1.5 * 7 * 7 * -1.5 * 0.5 = 110.25
    out[1] = FLOATS.sum()  # 13.5
    out[2] = NANS.max()  # nan
    out[3] = FLOATS.min()  # -1.5


def test_methods_of_constant_arrays_fold_to_numbas_values():
    ptx, _ = cubridge.compile_ptx(folded_indices, "void(int64[::1])", cc=CC)
    assert {off: int(v) for off, v in _stored(ptx).items()} == {0: 1, 8: 1, 16: 1, 24: 2, 32: 1, 40: 2, 48: 7776}
    ptx, _ = cubridge.compile_ptx(folded_floats, "void(float64[::1])", cc=CC)
    got = {off: _double(v) for off, v in _stored(ptx).items()}
    assert got[0] == 110.25 and got[8] == 13.5 and np.isnan(got[16]) and got[24] == -1.5


@pytest.mark.parametrize("body, match", [
    ("a.sum(axis=0)", r"array.sum\(\) is supported on a whole array in kernels \(a.sum\(\)\); axis=.*new array, "
                      r"which numba-cuda allocates with its device memory runtime \(NRT\)"),
    ("a.mean(0)", r"array.mean\(\) is supported on a whole array"),
    ("a.argmax(axis=1)", r"array.argmax\(\) is supported on a whole array"),
    ("np.prod(a, 1)", r"np.prod\(\) is supported on a whole array"),
])
def test_axis_and_other_arguments_are_refused_with_the_reason(body, match):
    with pytest.raises(CompileError, match=match):
        cubridge.compile_ptx(_function(body), "(float64[:, ::1],)", device=True, cc=CC)


@pytest.mark.parametrize("body", ["a.argmin()", "np.argmax(a)"])
def test_argmin_argmax_of_complex_numbers_are_refused(body):
    with pytest.raises(CompileError, match=r"is not supported: complex numbers have no order"):
        cubridge.compile_ptx(_function(body), "(complex128[::1],)", device=True, cc=CC)


@pytest.mark.parametrize("name", ["copy", "astype", "flatten", "cumsum", "cumprod", "argsort"])
def test_methods_returning_a_new_array_say_they_need_nrt(name):
    arg = "np.float32" if name == "astype" else ""
    with pytest.raises(CompileError, match=rf"array.{name}\(\) is not supported in kernels: it returns a new array, "
                                           r"which numba-cuda allocates only with its device memory runtime \(NRT"):
        cubridge.compile_ptx(_function(f"a.{name}({arg})"), "(float64[::1],)", device=True, cc=CC)


@pytest.mark.parametrize("name", ["sort", "nonzero", "ptp"])
def test_other_methods_are_refused_without_an_nrt_claim(name):
    with pytest.raises(CompileError, match=rf"method '{name}' of an array .* is not supported in kernels") as info:
        cubridge.compile_ptx(_function(f"a.{name}()"), "(float64[::1],)", device=True, cc=CC)
    assert "NRT" not in str(info.value)


@pytest.mark.parametrize("body, shown", [("a.dot(b)", r"array.dot\(\)"), ("np.dot(a, b)", r"np.dot\(\)"),
                                         ("np.vdot(a, b)", r"np.vdot\(\)")])
def test_dot_is_refused_with_numba_cudas_reason(body, shown):
    ns = {"np": np}
    exec(f"def f(a, b):\n    return {body}\n", ns)
    with pytest.raises(CompileError, match=shown + r" is not supported in kernels: numba-cuda lowers it to a call of "
                                                   r"the host BLAS \(numba_xxdot"):
        cubridge.compile_ptx(ns["f"], "(float64[::1], float64[::1])", device=True, cc=CC)
