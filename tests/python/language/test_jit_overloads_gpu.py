"""@overload calls launched (GPU): the values are numba-cuda's (its test_overload kernels: each function
called multiplies x[0] by its own prime, so the product says which implementations ran), run through
cubridge.jit and through numba-cuda itself on the same inputs."""
import numpy as np
import pytest

import cubridge

pytest.importorskip("numba.core.extending", reason="numba is not installed")
import test_jit_overloads as ol  # noqa: E402  (the overloads and kernels, shared with the CPU tests)
from test_jit_overloads import with_defaults  # noqa: E402

KERNELS = [(ol.k_generic, 2), (ol.k_cuda_and_generic, 6), (ol.k_target, 29), (ol.k_calls, 31 * 29 * 2)]


def _run(jit, kernel):
    x = np.ones(1, dtype=np.int32)
    jit(kernel)[1, 1](x)
    return int(x[0])


@pytest.mark.gpu
@pytest.mark.parametrize("kernel, expected", KERNELS, ids=[k.__name__ for k, _ in KERNELS])
def test_overloads_give_the_implementations_values(kernel, expected):
    assert _run(cubridge.jit, kernel) == expected


@pytest.mark.gpu
@pytest.mark.parametrize("kernel, expected", KERNELS, ids=[k.__name__ for k, _ in KERNELS])
def test_overloads_match_numba_cuda(kernel, expected):
    numba_cuda = pytest.importorskip("numba.cuda", reason="numba-cuda is not installed")
    if not hasattr(numba_cuda, "CUSource"):
        pytest.skip("this numba.cuda is numba's old built-in target, not numba-cuda")
    assert _run(cubridge.jit, kernel) == _run(numba_cuda.jit, kernel)


@pytest.mark.gpu
def test_defaults_and_keywords():
    def kernel(a, b, out):
        with_defaults(out, a, z=b)
    out = np.empty(2, dtype=np.int64)
    cubridge.jit(kernel)[1, 1](1, 2, out)
    assert tuple(out) == (6, 2)
