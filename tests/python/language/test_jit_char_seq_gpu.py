"""Fixed-width strings on the GPU: numba-cuda's test_const_string kernels run through cubridge on host
NumPy arrays, the result checked against NumPy's own assignment and, where numba-cuda is installed,
against numba-cuda's result on a copy of the same input (byte for byte)."""
import numpy as np
import pytest

import cubridge
from test_jit_char_seq import bytes_assign, str_assign  # noqa: E402  (the kernels the CPU tests compile)


def _numba_cuda():
    try:
        from numba import cuda
        if hasattr(cuda, "CUSource") and cuda.is_available():  # numba-cuda, not numba's old cuda target
            return cuda
    except ImportError:
        pass
    return None


def str_in_record(a):
    a[0]["x"] = 1
    a[0]["y"] = "ABC"
    a[1]["x"] = 2
    a[1]["y"] = "XYZ"


def bytes_in_record(a):
    a[0]["x"] = 1
    a[0]["y"] = b"ABC"
    a[1]["x"] = 2
    a[1]["y"] = b"XYZ"


def long_text(b, u):
    b[0] = b"ABCDEFGHIJ"  # cut at the width
    u[0] = "\u00e9\u20ac\U0001F600"


def _run(jit, fn, args, grid, block):
    jit(fn)[grid, block](*args)
    return args


def _check(fn, make, expected, grid=1, block=1):
    ours = _run(cubridge.jit, fn, make(), grid, block)
    for got, want in zip(ours, expected):
        np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
    cuda = _numba_cuda()
    if cuda is not None:
        theirs = _run(cuda.jit, fn, make(), grid, block)
        for got, want in zip(ours, theirs):
            np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))


def _filled(dtype, n, value):
    a = np.full(n, value, dtype=dtype)  # garbage first: the store must zero the rest of the element
    a[-1] = np.zeros(1, dtype)[0]
    return a


@pytest.mark.gpu
@pytest.mark.parametrize("fn, dtype, value", [(bytes_assign, "S12", b"XYZ"), (str_assign, "<U12", "XYZ")])
def test_assign_a_constant_to_each_element(fn, dtype, value):
    fill = b"garbagegarba" if dtype == "S12" else "garbagegarba"

    def make():
        return [_filled(dtype, 9, fill)]
    expected = _filled(dtype, 9, fill)
    expected[:8] = value
    _check(fn, make, [expected])


@pytest.mark.gpu
@pytest.mark.parametrize("fn, dt, a, b", [
    (str_in_record, np.dtype([("x", np.int32), ("y", "<U12")]), "ABC", "XYZ"),
    (bytes_in_record, np.dtype([("x", np.float32), ("y", "S12")]), b"ABC", b"XYZ"),
])
def test_assign_constants_to_record_fields(fn, dt, a, b):
    expected = np.asarray([(1, a), (2, b)], dtype=dt)
    _check(fn, lambda: [np.zeros(2, dt)], [expected])


@pytest.mark.gpu
def test_longer_text_is_cut_and_unicode_keeps_code_points():
    def make():
        return [np.zeros(2, "S4"), np.full(2, "zzzz", "<U4")]
    b = np.zeros(2, "S4")
    b[0] = b"ABCD"
    u = np.full(2, "zzzz", "<U4")
    u[0] = "\u00e9\u20ac\U0001F600"
    _check(long_text, make, [b, u])
