"""C pointer kernels launched (GPU): numba-cuda's test_dispatcher_cpointer_arguments, doc_examples
test_cpointer and test_array.test_carray/test_farray, run through cubridge.jit (device addresses as the
pointer arguments) and, where numba-cuda is installed, through numba-cuda on the same inputs."""
import numpy as np
import pytest

import cubridge

numba = pytest.importorskip("numba", reason="numba is not installed")
from numba.core import types  # noqa: E402
from numba.np.numpy_support import carray, farray  # noqa: E402
from test_jit_pointers import add_one, axpy  # noqa: E402

PTR_I32 = types.CPointer(types.int32)


def _axpy(jit, to_device, address):
    hx = np.arange(10, dtype=np.int32)
    hy = np.arange(10, dtype=np.int32) * 2
    dx, dy, dr = to_device(hx), to_device(hy), to_device(np.zeros(10, dtype=np.int32))
    jit(types.void(PTR_I32, types.int32, PTR_I32, PTR_I32, types.uint32))(axpy)[1, 32](
        address(dr), 5, address(dx), address(dy), 10)
    return dr.copy_to_host()


def _address(a):
    return a.__cuda_array_interface__["data"][0]


@pytest.mark.gpu
def test_axpy_through_pointers():
    r = _axpy(cubridge.jit, cubridge.to_device, _address)
    np.testing.assert_array_equal(r, 5 * np.arange(10) + 2 * np.arange(10))


@pytest.mark.gpu
def test_add_one_through_a_uint8_pointer():
    x = cubridge.to_device(np.arange(10, dtype=np.uint8))
    cubridge.jit(types.void(types.CPointer(types.uint8), types.uint32))(add_one)[1, 32](_address(x), 10)
    np.testing.assert_array_equal(x.copy_to_host(), np.arange(1, 11, dtype=np.uint8))


@pytest.mark.gpu
@pytest.mark.parametrize("cfarray", [carray, farray], ids=["carray", "farray"])
def test_carray_farray(cfarray):
    def add(a_ptr):
        a = cfarray(a_ptr, (1,), dtype=numba.float32)
        a[0] += 1.2
    a = cubridge.to_device(np.array([0.0], dtype=np.float32))
    cubridge.jit(types.void(types.CPointer(types.float32)))(add)[1, 1](_address(a))
    assert a.copy_to_host()[0] == np.float32(1.2)


@pytest.mark.gpu
def test_farray_fills_in_fortran_order():
    def fill(p, n, m):
        a = farray(p, (n, m))
        for i in range(n):
            for j in range(m):
                a[i, j] = i * 10 + j
    d = cubridge.to_device(np.zeros(6, dtype=np.float64))
    cubridge.jit(types.void(types.CPointer(types.float64), types.int64, types.int64))(fill)[1, 1](_address(d), 2, 3)
    np.testing.assert_array_equal(d.copy_to_host(), np.array([[0, 1, 2], [10, 11, 12]], dtype=np.float64).ravel("F"))


@pytest.mark.gpu
def test_axpy_matches_numba_cuda():
    numba_cuda = pytest.importorskip("numba.cuda", reason="numba-cuda is not installed")
    ours = _axpy(cubridge.jit, cubridge.to_device, _address)
    theirs = _axpy(numba_cuda.jit, numba_cuda.to_device, _address)
    np.testing.assert_array_equal(ours, theirs)
