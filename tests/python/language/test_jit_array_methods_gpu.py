"""a.reshape(shape) and a.view(dtype) in kernels on the GPU: the values numba-cuda's test_array
(test_array_reshape) and test_array_methods (test_reinterpret_array_type) assert, and the same kernels run
through numba-cuda beside cubridge where numba-cuda is usable."""
import numpy as np
import pytest

import cubridge
from test_jit_array_methods import CAPTURED, reinterpret, reshape1d, reshape3d


def reshape2d(arr, newshape, got):
    y = arr.reshape(newshape)
    for i in range(y.shape[0]):
        for j in range(y.shape[1]):
            got[i, j] = y[i, j]


RESHAPES = [
    (reshape1d, np.arange(24), (24,)),
    (reshape2d, np.arange(24), (4, 6)),
    (reshape2d, np.arange(24), (8, 3)),
    (reshape3d, np.arange(24), (8, 1, 3)),
    (reshape1d, np.arange(24).reshape((1, 8, 1, 1, 3, 1)), (24,)),
    (reshape3d, np.arange(24).reshape((1, 8, 1, 1, 3, 1)), (8, 1, 3)),
    (reshape1d, np.arange(25).reshape(5, 5), -1),
    (reshape1d, np.arange(25).reshape(5, 5), (-1,)),
    (reshape2d, np.arange(25).reshape(5, 5), (-1, 5)),
    (reshape3d, np.arange(25).reshape(5, 5), (5, -1, 5)),
    (reshape3d, np.arange(25).reshape(5, 5), (5, 5, -1)),
    (reshape1d, np.array([]), 0),
    (reshape3d, np.array([]), (1, 0, 2)),
]


def _numba_cuda():
    try:
        from numba import cuda
        cuda.get_current_device()
        return cuda
    except Exception as e:  # noqa: BLE001 - numba-cuda missing or without a usable device
        pytest.skip(f"numba-cuda is not usable here: {e}")


@pytest.mark.gpu
@pytest.mark.parametrize("fn, arr, shape", RESHAPES)
def test_reshape_gives_numpys_values(fn, arr, shape):
    expected = arr.reshape(shape)
    got = np.zeros(expected.shape, arr.dtype)
    cubridge.jit(fn)[1, 1](arr, shape, got)
    np.testing.assert_array_equal(got, expected)


@pytest.mark.gpu
@pytest.mark.parametrize("fn, arr, shape", RESHAPES[:4])
def test_reshape_matches_numba_cuda(fn, arr, shape):
    numba_cuda = _numba_cuda()
    ours, theirs = (np.zeros(arr.reshape(shape).shape, arr.dtype) for _ in range(2))
    cubridge.jit(fn)[1, 1](arr, shape, ours)
    numba_cuda.jit(fn)[1, 1](arr, shape, theirs)
    np.testing.assert_array_equal(ours, theirs)


@pytest.mark.gpu
def test_a_reshape_of_the_wrong_size_raises_numbas_value_error_with_debug():
    got = np.zeros(5, np.int64)
    with pytest.raises(ValueError, match="total size of new array must be unchanged"):
        cubridge.jit(debug=True, opt=False)(reshape1d)[1, 1](np.arange(24), (5,), got)


@pytest.mark.gpu
def test_view_reinterprets_bytes_as_numba_cuda_does():
    byte_arr = np.arange(256, dtype=np.uint8)
    k = cubridge.jit(reinterpret)
    for start in range(0, 256, 4):
        out = np.zeros(1, np.int32)
        k[1, 1](byte_arr, start, start + 4, out)
        assert out[0] == byte_arr[start:start + 4].view(np.int32)[0]
    numba_cuda = _numba_cuda()
    theirs, ours = np.zeros(1, np.int32), np.zeros(1, np.int32)
    numba_cuda.jit(reinterpret)[1, 1](byte_arr, 8, 12, theirs)
    k[1, 1](byte_arr, 8, 12, ours)
    assert ours[0] == theirs[0]


def copy_then_read(out):
    q = CAPTURED.copy()
    for i in range(len(out)):
        out[i] = q[i]


@pytest.mark.gpu
def test_copy_of_a_captured_array_has_its_values_as_numba_cuda():
    """numba-cuda's test_array_methods.test_array_copy: numba-cuda allocates the copy with NRT on."""
    ours = np.zeros(len(CAPTURED))
    cubridge.jit(copy_then_read)[1, 1](ours)
    np.testing.assert_array_equal(ours, CAPTURED)
    numba_cuda = _numba_cuda()
    from numba.cuda import config
    old, config.CUDA_ENABLE_NRT = config.CUDA_ENABLE_NRT, True
    try:
        theirs = np.zeros(len(CAPTURED))
        numba_cuda.jit(copy_then_read)[1, 1](theirs)
    finally:
        config.CUDA_ENABLE_NRT = old
    np.testing.assert_array_equal(ours, theirs)
