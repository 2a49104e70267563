"""numba-cuda's cache-hinted loads and stores (cuda.ldca/ldcg/ldcs/ldlu/ldcv, cuda.stcg/stcs/stwb/stwt)
without a GPU. The rules, from numba-cuda 0.30's cache_hints.py and its test_cache_hints.py:

1. each load is one `ld.global.<hint>.b<bits>` of the element, each store one `st.global.<hint>.b<bits>`,
   for arrays of int8..uint64 and float16..float64, and ptxas assembles them;
2. a 1-d array takes an integer index, an n-d array a tuple of n integers (written out or in a variable);
3. the stored value is cast to the element type;
4. refusals carry numba-cuda's words: "float64 is not a valid index", "Expected 1 indices, got 2",
   "Expected 2 indices, got a scalar", "Expected 2 indices, got 1", "ldcs requires array of integer or
   float type, got complex64"; a store into a read-only array is refused too;
5. numba-cuda's own functions reached as values (`op = cuda.ldcg; op(x, i)`) are compiled as the intrinsic
   they stand for, never from their docstring-only Python bodies (the two wrong results of the peer suite).

Their values are compared with numba-cuda's on the GPU in parity/kernels_cache_hints.py."""
import sys
import types

import pytest

import cubridge
from conftest import assembled_ptx

CC = (8, 0)
LOADS = ["ldca", "ldcg", "ldcs", "ldlu", "ldcv"]
STORES = ["stcg", "stcs", "stwb", "stwt"]
DTYPES = {"int8": 8, "int16": 16, "int32": 32, "int64": 64, "uint8": 8, "uint16": 16, "uint32": 32, "uint64": 64,
          "float16": 16, "float32": 32, "float64": 64}


def _ptx(fn, sig):
    return assembled_ptx(fn, sig, CC)


def _load_1d(hint):
    op = getattr(cubridge, hint)

    def load_1d(r, x):
        for i in range(len(r)):
            r[i] = op(x, i)
    return load_1d


def _store_1d(hint):
    op = getattr(cubridge, hint)

    def store_1d(r, x):
        for i in range(len(r)):
            op(r, i, x[i])
    return store_1d


@pytest.mark.parametrize("hint", LOADS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_load_is_one_hinted_global_load(hint, dtype):
    ptx = _ptx(_load_1d(hint), f"void({dtype}[::1], {dtype}[::1])")
    assert f"ld.global.{hint[2:]}.b{DTYPES[dtype]}" in ptx


@pytest.mark.parametrize("hint", STORES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_store_is_one_hinted_global_store(hint, dtype):
    ptx = _ptx(_store_1d(hint), f"void({dtype}[::1], {dtype}[::1])")
    assert f"st.global.{hint[2:]}.b{DTYPES[dtype]}" in ptx


def load_2d(r, x):
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            r[i, j] = cubridge.ldcg(x, (i, j))


def store_2d(r, x):
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            cubridge.stcs(r, (i, j), x[i, j])


def store_2d_tuple_variable(r, x):
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            at = (i, j)
            cubridge.stwt(r, at, cubridge.ldcv(x, at))


def test_2d_arrays_take_a_tuple_of_indices():
    assert "ld.global.cg.b32" in _ptx(load_2d, "void(int32[:, ::1], int32[:, ::1])")
    assert "st.global.cs.b64" in _ptx(store_2d, "void(float64[:, ::1], float64[:, ::1])")
    ptx = _ptx(store_2d_tuple_variable, "void(int16[:, :], int16[:, :])")
    assert "st.global.wt.b16" in ptx and "ld.global.cv.b16" in ptx


def store_cast(r, v):
    cubridge.stcg(r, 0, v)


def test_the_stored_value_is_cast_to_the_element_type():
    ptx = _ptx(store_cast, "void(int32[::1], float64)")
    assert "cvt.rzi.s32.f64" in ptx and "st.global.cg.b32" in ptx


def load_result(x):
    return cubridge.ldcs(x, 1)


def test_a_load_has_the_element_type():
    _, resty = cubridge.compile(load_result, "(uint16[::1],)", device=True, abi="numba", cc=CC)
    assert str(resty) == "uint16"


def float_index(x):
    cubridge.ldcs(x, 1.0)


def two_indices(x):
    cubridge.ldcs(x, (1, 2))


def scalar_index(x):
    cubridge.ldcs(x, 1)


def one_index(x):
    cubridge.ldcs(x, (1,))


def load_complex(r, x):
    r[0] = cubridge.ldcs(x, 0)


def store_const(r, x):
    cubridge.stcg(x, 0, r[0])


@pytest.mark.parametrize("fn, sig, message", [
    (float_index, "void(float32[::1])", "float64 is not a valid index"),
    (two_indices, "void(float32[::1])", "Expected 1 indices, got 2"),
    (scalar_index, "void(float32[:, ::1])", "Expected 2 indices, got a scalar"),
    (one_index, "void(float32[:, ::1])", "Expected 2 indices, got 1"),
    (load_complex, "void(complex64[::1], complex64[::1])", "ldcs requires array of integer or float type, got complex64"),
    (store_const, "void(float32[::1], const float32[::1])", r"cannot store into 'x': it is a read-only array"),
])
def test_bad_uses_are_refused_in_numba_cudas_words(fn, sig, message):
    with pytest.raises(cubridge.CompileError, match=message):
        cubridge.compile_ptx(fn, sig, cc=CC)


def _numba_stub(name):
    """A function shaped as numba-cuda's: a docstring-only body, defined in numba.cuda.cache_hints and
    exported as numba.cuda.<name>."""
    code = f'def {name}(array, i, value=None):\n    """Generate a cache-hinted access."""\n'
    namespace = {"__name__": "numba.cuda.cache_hints"}
    exec(code, namespace)
    return namespace[name]


@pytest.fixture
def numba_cuda_stubs(monkeypatch):
    """numba.cuda.ldcg & co. as numba-cuda 0.30 has them (the CPU machine's numba may lack them)."""
    numba_cuda = sys.modules.get("numba.cuda")
    if numba_cuda is None:
        numba_cuda = types.ModuleType("numba.cuda")
        monkeypatch.setitem(sys.modules, "numba.cuda", numba_cuda)
    stubs = {}
    for name in LOADS + STORES:
        stubs[name] = _numba_stub(name)
        monkeypatch.setattr(numba_cuda, name, stubs[name], raising=False)
    return stubs


def _through_variable(op):
    def store_through_variable(r, x):
        for i in range(len(r)):
            op(r, i, x[i])
    return store_through_variable


@pytest.mark.parametrize("hint", STORES)
def test_numba_cudas_stub_bound_to_a_variable_is_the_intrinsic_not_its_empty_body(numba_cuda_stubs, hint):
    # test_cache_hints.test_stores: `for operator in (cuda.stcg, ...)`: a closure variable bound to the stub.
    ptx = _ptx(_through_variable(numba_cuda_stubs[hint]), "void(int32[::1], int32[::1])")
    assert f"st.global.{hint[2:]}.b32" in ptx


def test_a_numba_stub_the_compiler_does_not_know_is_refused_by_name(monkeypatch):
    numba_cuda = sys.modules.get("numba.cuda") or types.ModuleType("numba.cuda")
    monkeypatch.setitem(sys.modules, "numba.cuda", numba_cuda)
    stub = _numba_stub("not_an_intrinsic")
    monkeypatch.setattr(numba_cuda, "not_an_intrinsic", stub, raising=False)

    def calls_it(r):
        stub(r, 0)
    with pytest.raises(cubridge.CompileError, match="call of 'numba.cuda.not_an_intrinsic' is not supported"):
        cubridge.compile_ptx(calls_it, "void(int32[::1])", cc=CC)
