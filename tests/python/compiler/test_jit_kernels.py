"""Kernels with array arguments through cubridge's own front end, without a GPU: every kernel of the
corpus (corpus/kernel_cases.py) compiles to PTX with the Numba ABI, its entry takes numba-cuda's flattened
parameters (7 for a 1-d array, 9 for a 2-d one) and ptxas assembles it; every rejection says why."""
import os
import re
import sys

import pytest

import cubridge

sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
from corpus.kernel_cases import CASES  # noqa: E402

CC = (9, 0)


def entry_params(ptx: str) -> list[str]:
    m = re.search(r"\.entry\s+(\w+)\s*\(([^)]*)\)", ptx)
    assert m, ptx[:2000]
    return re.findall(r"\.param\s+\.(\w+)", m.group(2))


def test_corpus_size():
    assert len(CASES) >= 60
    assert len({c.name for c in CASES}) >= 60


@pytest.mark.parametrize("case", CASES, ids=[f"{i}-{c.name}" for i, c in enumerate(CASES)])
def test_kernel_compiles_and_assembles(case):
    ptx, resty = cubridge.compile_ptx(case.fn, case.sig, cc=CC)
    assert resty is None
    params = entry_params(ptx)
    want = cubridge.KernelSignature(case.sig).slots
    assert len(params) == len(want), (case.sig, params)
    r = cubridge.ptxas_check(ptx, CC)
    assert r, r.log


def saxpy(a, x, y, out):
    i = cubridge.grid(1)
    if i < x.shape[0]:
        out[i] = a * x[i] + y[i]


def add_2d(a, out):
    i, j = cubridge.grid(2)
    out[i, j] = a[i, j]


def test_prototype_is_numba_cudas():
    ptx, _ = cubridge.compile_ptx(saxpy, "void(float32, float32[::1], float32[::1], float32[::1])", cc=CC)
    mangled = "5ArrayIfLi1E1C7mutable7alignedE"
    assert cubridge.ptx_entry_names(ptx) == [f"_ZN{len(__name__)}{__name__}5saxpyEf" + mangled * 3]
    params = entry_params(ptx)
    assert params == ["f32"] + ["u64"] * 21  # a float32, then 7 pieces per 1-d array
    ptx2, _ = cubridge.compile_ptx(add_2d, "void(const float64[:, :], float64[::1, :])", cc=CC)
    assert entry_params(ptx2) == ["u64"] * 18  # meminfo parent nitems itemsize data shape*2 strides*2
    assert "5ArrayIdLi2E1A8readonly7alignedE5ArrayIdLi2E1F7mutable7alignedE" in cubridge.ptx_entry_names(ptx2)[0]


def test_array_types_from_python_objects():
    assert str(cubridge.float32[:]) == "array(float32, 1d, A)"
    assert str(cubridge.float32[::1]) == "array(float32, 1d, C)"
    assert str(cubridge.int64[:, ::1]) == "array(int64, 2d, C)"
    assert str(cubridge.int64[::1, :]) == "array(int64, 2d, F)"
    ptx, _ = cubridge.compile_ptx(saxpy, (cubridge.float32, cubridge.float32[::1], cubridge.float32[::1],
                                          cubridge.float32[::1]), cc=CC)
    assert len(entry_params(ptx)) == 22
    with pytest.raises(TypeError, match=r"'::1' must mark the last dimension \(C order\) or the first"):
        cubridge.float32[:, ::1, :]
    with pytest.raises(TypeError, match="array types are spelt with ':' and '::1' only"):
        cubridge.float32[3]


def test_jit_eager_and_lazy_compile_array_kernels():
    d = cubridge.jit("void(float32, float32[::1], float32[::1], float32[::1])")(saxpy)
    (ptx,) = d.inspect_ptx().values()
    assert len(entry_params(ptx)) == 22
    lazy = cubridge.jit(saxpy)
    sig = lazy.compile("void(float32, const float32[:], const float32[:], float32[::1])").signature
    assert sig.args[1] == "const float32[:]" and isinstance(sig, cubridge.Signature)
    assert "8readonly" in cubridge.ptx_entry_names(lazy.inspect_ptx()[lazy.signatures[0]])[0]


def test_markers_cannot_run_in_python():
    with pytest.raises(RuntimeError, match=r"cubridge.grid\(\) exists only inside kernels compiled by cubridge"):
        cubridge.grid(1)
    with pytest.raises(RuntimeError, match=r"cubridge.atomic.add\(\) exists only inside kernels"):
        cubridge.atomic.add(None, 0, 1)
    with pytest.raises(AttributeError, match="cubridge.threadIdx has no attribute 'w'; it offers x, y, z"):
        cubridge.threadIdx.w


# ---- rejections


def writes_const(a, out):
    a[0] = 1.0


def returns_value(a):
    return a[0]


def float_index(a, x):
    a[x] = 1.0


def too_many(a):
    a[0, 1] = 1.0


def partial_store(a):
    a[0] = (1.0, 2.0)  # a[0] = 1.0 fills the row, as in numba; a tuple fills 1-d views only


def atomic_i8(a):
    cubridge.atomic.add(a, 0, 1)


def atomic_const(a):
    cubridge.atomic.add(a, 0, 1)


def shared_dynamic_shape(a, n):
    s = cubridge.shared.array(n, cubridge.float32)
    a[0] = s[0]


def shared_bad_dtype(a):
    s = cubridge.shared.array(4, 7)
    a[0] = s[0]


def grid_4(a):
    a[0] = cubridge.grid(4)


def unknown_intrinsic(a):
    cubridge.syncblock()


def unknown_attr(a):
    a[0] = a.foo


def dim3_alone(a):
    a[0] = cubridge.threadIdx


def shfl_complex(a, z):
    a[0] = cubridge.shfl_sync(0xFFFFFFFF, z, 0)


def slices(a):
    a[1:] = 1j


def store_complex(a, z):
    a[0] = z


def inc_signed(a):
    cubridge.atomic.inc(a, 0, 1)


@pytest.mark.parametrize("fn, sig, message", [
    (writes_const, "void(const float32[:], float32[:])",
     r"cannot store to 'a': it is a read-only array \(readonly array\(float32, 1d, A\)\); declare the parameter "
     r"without 'const'"),
    (returns_value, "(float32[::1],)", r"Kernel 'returns_value' must have void return type but got float32: a kernel \(device=False\) must not return a value"),
    (float_index, "void(float32[:], float64)", r"an array index must be an integer, got float64"),
    (too_many, "void(float32[:])", r"too many indices for array\(float32, 1d, A\): 2 given, the array has 1 dimension"),
    (partial_store, "void(float32[:, :, :])", r"into a slice of 'a' \(array\(float32, 2d, A\)\): a tuple fills a 1-d "
                                             r"slice only"),
    (atomic_i8, "void(int8[:])", r"atomic.add\(\) on an array of int8 is not supported; its element type must be "
                                  r"one of int32, int64, uint32, uint64, float32, float64"),
    (atomic_const, "void(const int32[:])", r"atomic.add\(\) cannot update 'a': it is a read-only array"),
    (shared_dynamic_shape, "void(float32[:], int64)", r"shared.array: the shape must be an integer constant or a tuple"),
    (shared_bad_dtype, "void(float32[:])", r"shared.array: the dtype must be a number type such as numba.float32"),
    (grid_4, "void(int64[:])", r"grid\(ndim\) takes the constant 1, 2 or 3"),
    (unknown_intrinsic, "void(int64[:])", r"call of 'cubridge.syncblock' is not supported"),
    (unknown_attr, "void(int64[:])", r"attribute 'foo' of an array \(array\(int64, 1d, A\)\) is not supported; arrays "
                                     r"offer .shape, .strides, .size, .ndim, .itemsize, .nbytes, .real, .imag and .T"),
    (dim3_alone, "void(int64[:])", r"cubridge\.threadIdx is not supported; read cubridge\.threadIdx\.x, \.y or \.z"),
    (shfl_complex, "void(float64[:], complex128)", r"shfl_sync\(\): the value must be an integer or a float"),
    (slices, "void(float64[:])", r"cannot store a value of type complex128 into a slice of 'a' \(array\(float64, 1d, "
                                 r"A\)\): complex128 does not convert to float64"),
    (store_complex, "void(float64[:], complex128)", r"cannot store a value of type complex128 into an element of 'a'"),
    (inc_signed, "void(int32[:])", r"atomic.inc\(\) on an array of int32 is not supported; its element type must be one "
                                   r"of uint32, uint64"),
])
def test_rejections_name_the_problem(fn, sig, message):
    with pytest.raises(cubridge.CompileError, match=message):
        cubridge.compile_ptx(fn, sig, cc=CC)


def test_kernels_refuse_the_c_abi_and_device_functions_take_arrays_in_both():
    with pytest.raises(ValueError, match=r"The C ABI is not supported for kernels: 'saxpy' is compiled as a kernel "
                                         r"\(device=False\), whose arguments take the Numba ABI"):
        cubridge.compile(saxpy, "void(float32, float32[:], float32[:], float32[:])", device=False, abi="c")
    # The C ABI passes an array as numba-cuda's does: its data model's fields, one parameter each.
    code, resty = cubridge.compile(returns_value, "(float32[:],)", device=True, abi="c", cc=CC)
    assert resty == cubridge.float32 and cubridge.ptxas_check(code, CC)
    assert "returns_value_param_6" in code and "returns_value_param_7" not in code
    code, resty = cubridge.compile(returns_value, "(float32[:],)", device=True, abi="numba", cc=CC)
    assert resty == cubridge.float32 and cubridge.ptxas_check(code, CC)
