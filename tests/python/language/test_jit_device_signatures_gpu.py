"""Device functions declared with signatures, launched (GPU): the values are numba-cuda's. These are the
peer suite's test_dispatcher.test_explicit_signatures_device_unsafe (add(1.5, 2.5) declared (int64, int64)
is 3) and its ambiguous sibling, run through cubridge.jit with cubridge's and with numba-cuda's device
functions, and through numba-cuda itself on the same inputs."""
import types

import numpy as np
import pytest

import cubridge


def add(x, y):
    return x + y


def _copy(fn):
    return types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)


def _run(jit, helper, dtype, x, y):
    def kernel(r, x, y):
        r[0] = helper(x, y)
    r = np.zeros(1, dtype=dtype)
    jit(kernel)[1, 1](r, x, y)
    return r[0]


SIGS = [(["(int64, int64)"], np.int64, 3),
        (["(float32, float64)", "(float64, float32)", "(int64, int64)"], np.float64, 4.0)]


@pytest.mark.gpu
@pytest.mark.parametrize("sigs, dtype, expected", SIGS, ids=["unsafe", "ambiguous"])
def test_declared_device_signatures_give_numba_cudas_values(sigs, dtype, expected):
    numba_cuda = pytest.importorskip("numba.cuda", reason="numba-cuda is not installed")
    theirs = _run(numba_cuda.jit, numba_cuda.jit(sigs, device=True)(_copy(add)), dtype, 1.5, 2.5)
    ours = _run(cubridge.jit, cubridge.jit(sigs, device=True)(_copy(add)), dtype, 1.5, 2.5)
    # cubridge.jit calling numba-cuda's own device dispatcher reads the signatures numba compiled it for.
    through_numba = _run(cubridge.jit, numba_cuda.jit(sigs, device=True)(_copy(add)), dtype, 1.5, 2.5)
    assert theirs == expected
    assert ours == theirs and through_numba == theirs
