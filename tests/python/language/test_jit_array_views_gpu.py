"""a.T, a.transpose(...) and a.fill(v) on the GPU (issue 21): the views read and write the caller's array in
place (no copy), compared with NumPy and with numba-cuda on the same kernels where numba-cuda is usable."""
import numpy as np
import pytest

import cubridge
from test_jit_array_methods_gpu import _numba_cuda


def through_T(a, out):
    t = a.T
    for i in range(t.shape[0]):
        for j in range(t.shape[1]):
            out[i, j] = t[i, j]
    t[0, 1] = -1.0  # writes the caller's a[1, 0]: a view, not a copy


def through_axes(a, axes, out):
    t = a.transpose(axes)
    for i in range(t.shape[0]):
        for j in range(t.shape[1]):
            for k in range(t.shape[2]):
                out[i, j, k] = t[i, j, k]


def filled(a, v):
    a.fill(v)


@pytest.mark.gpu
@pytest.mark.parametrize("a", [np.arange(12.0).reshape(3, 4), np.asfortranarray(np.arange(12.0).reshape(3, 4)),
                               np.arange(24.0).reshape(4, 6)[::2, 1::2]], ids=["C", "F", "A"])
def test_T_is_a_view_with_numpys_values(a):
    a = a.copy(order="K") if a.flags.c_contiguous or a.flags.f_contiguous else a
    expected = a.T.copy()
    after = a.copy()
    after[1, 0] = -1.0
    out = np.zeros(expected.shape)
    cubridge.jit(through_T)[1, 1](a, out)
    np.testing.assert_array_equal(out, expected)
    np.testing.assert_array_equal(a, after)


@pytest.mark.gpu
@pytest.mark.parametrize("axes", [(0, 1, 2), (2, 0, 1), (1, 2, 0), (-1, 0, 1), (2, 1, 0)])
def test_transpose_with_axes_matches_numpy(axes):
    # numba-cuda 0.30.4 does not compile a.transpose(axes) in a kernel (its permute_arrays calls set(), which its
    # CUDA target does not type): NumPy is the reference here
    a = np.arange(24.0).reshape(2, 3, 4)
    expected = a.transpose(axes)
    ours = np.zeros(expected.shape)
    cubridge.jit(through_axes)[1, 1](a, axes, ours)
    np.testing.assert_array_equal(ours, expected)


@pytest.mark.gpu
def test_repeated_axes_raise_numbas_value_error_with_debug():
    a = np.arange(24.0).reshape(2, 3, 4)
    with pytest.raises(ValueError, match="repeated axis in transpose"):
        cubridge.jit(debug=True, opt=False)(through_axes)[1, 1](a, (0, 0, 1), np.zeros((2, 2, 3)))


@pytest.mark.gpu
@pytest.mark.parametrize("a, v", [(np.zeros((3, 4)), 2.5), (np.zeros(7, np.int32), 2.7),
                                  (np.zeros((4, 6))[::2, ::3], -1.0), (np.zeros(5, np.complex64), 1.5)])
def test_fill_matches_numpy_and_numba_cuda(a, v):
    expected = a.copy()
    expected.fill(v)
    ours = a.copy()
    cubridge.jit(filled)[1, 1](ours, v)
    np.testing.assert_array_equal(ours, expected)
    theirs = a.copy()
    _numba_cuda().jit(filled)[1, 1](theirs, v)
    np.testing.assert_array_equal(ours, theirs)


def ravel_writes(a):
    r = a.ravel()
    for i in range(r.size):
        r[i] = i * 10


@pytest.mark.gpu
def test_ravel_is_a_view_matching_numpy():
    # numba-cuda 0.30.4 refuses a.ravel() in a kernel ("Only accept returning of array passed into the function
    # as argument"): NumPy's view is the reference here
    ours = np.zeros((3, 4))
    cubridge.jit(ravel_writes)[1, 1](ours)
    np.testing.assert_array_equal(ours, (np.arange(12.0) * 10).reshape(3, 4))
