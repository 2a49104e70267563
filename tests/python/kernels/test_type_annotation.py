"""numba-cuda's ``kernel.overloads[sig]._type_annotation`` on @cubridge.jit kernels (cubridge._type_annotation;
rules in its docstring): the type the front end inferred for each variable, compile-only (no GPU)."""
import numpy as np
import pytest

import cubridge
from cubridge import float32, int32, int64, void

numba = pytest.importorskip("numba")


def annotation(kernel):
    return next(iter(kernel.overloads.values()))._type_annotation


@pytest.mark.parametrize("dtype", [numba.int32, np.int32, int32], ids=["numba", "numpy", "cubridge"])
def test_local_array_dtype_is_the_element_type(dtype):
    @cubridge.jit(void(int32[::1]))
    def f(x):
        l = numba.cuda.local.array(10, dtype=dtype)
        l[0] = x[0]
        x[0] = l[0]

    typed = annotation(f).typemap["l"]
    assert typed.dtype == numba.int32
    assert typed.ndim == 1


@pytest.mark.parametrize("dtype", [numba.float32, np.float32], ids=["numba", "numpy"])
def test_shared_array_dtype_is_the_element_type(dtype):
    @cubridge.jit(void(float32[::1]))
    def f(x):
        s = numba.cuda.shared.array((4, 8), dtype=dtype)
        s[0, 0] = x[0]
        x[0] = s[0, 0]

    typed = annotation(f).typemap["s"]
    assert typed.dtype == numba.float32
    assert typed.ndim == 2


def test_a_dtype_spelled_as_a_string():
    @cubridge.jit(void(int32[::1]))
    def f(x):
        l = numba.cuda.local.array(10, dtype="int32")
        s = numba.cuda.shared.array(10, dtype="float32")
        l[0] = x[0]
        s[0] = x[0]
        x[0] = l[0] + int32(s[0])

    typemap = annotation(f).typemap
    assert typemap["l"].dtype == numba.int32
    assert typemap["s"].dtype == numba.float32


def test_parameters_and_scalars_are_numba_types():
    @cubridge.jit(void(float32[::1], int64))
    def f(x, n):
        y = x[0] + x[0]
        k = n + 1
        x[0] = y + k

    typemap = annotation(f).typemap
    assert list(typemap)[:2] == ["x", "n"]  # parameters first
    assert typemap["x"] == numba.float32[::1]
    assert typemap["n"] == numba.int64
    assert typemap["y"] == numba.float32
    assert typemap["k"] == numba.int64


def test_a_loop_variable_is_named_as_the_source_names_it():
    @cubridge.jit(void(int32[::1]))
    def f(x):
        for i in range(3):
            x[i] = i

    assert annotation(f).typemap["i"] == numba.int64


def test_two_loops_versions_of_one_name_report_the_first_as_numba_does():
    # each loop has its own `i` (a version of its own, as numba's SSA makes "i" and "i.1"): the typemap
    # names the first as the source's `i`, as numba's does
    @cubridge.jit(void(int32[::1]))
    def f(x):
        for i in range(3):
            x[i] = i
        for i in range(2):
            x[i] += 1

    typemap = annotation(f).typemap
    assert typemap["i"] == numba.int64
    assert typemap["x"] == numba.int32[::1]


def test_a_version_of_its_own_reports_its_own_type():
    # x = 0.5 and x = 9007199254740993 never meet at a read: numba's typemap has x: float64, x.1: int64
    @cubridge.jit(void(int64[::1]))
    def f(out):
        x = 0.5
        out[1] = x * 2
        x = 9007199254740993
        out[0] = x

    assert annotation(f).typemap["x"] == numba.float64


def test_a_name_the_kernel_lacks_is_a_key_error_listing_its_variables():
    @cubridge.jit(void(int32[::1]))
    def f(x):
        x[0] = 1

    with pytest.raises(KeyError, match=r"'nope' is not a typed variable of this kernel; its variables are \['x'\]"):
        annotation(f).typemap["nope"]


def test_each_signature_has_its_own_annotation():
    @cubridge.jit([void(int32[::1]), void(float32[::1])])
    def f(x):
        y = x[0]
        x[0] = y

    assert f.overloads[(numba.int32[::1],)]._type_annotation.typemap["y"] == numba.int32
    assert f.overloads[(numba.float32[::1],)]._type_annotation.typemap["y"] == numba.float32


def test_it_is_computed_once_and_names_the_kernel():
    @cubridge.jit(void(int32[::1]))
    def kern(x):
        x[0] = 1

    compiled = next(iter(kern.overloads.values()))
    assert compiled._type_annotation is compiled._type_annotation
    assert compiled._type_annotation.func_name == "kern"
    assert "kern" in repr(compiled._type_annotation)
