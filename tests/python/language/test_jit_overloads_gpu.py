"""@overload calls launched (GPU): the values are numba-cuda's (its test_overload kernels: each function
called multiplies x[0] by its own prime, so the product says which implementations ran), run through
cubridge.jit and through numba-cuda itself on the same inputs."""
import numpy as np
import pytest

import cubridge

pytest.importorskip("numba.core.extending", reason="numba is not installed")
import test_jit_overloads as ol  # noqa: E402  (the overloads and kernels, shared with the CPU tests)
from test_jit_overloads import non_lit, prefer_lit, with_defaults  # noqa: E402

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


def k_array_methods(A, res):
    res[0] = A.cb_foo()
    res[1] = A.cb_foo(20)
    res[2] = A.cb_foo(a_kwarg=30)
    res[3] = A.cb_litfoo(0xCAFE)


def _run_methods(jit):
    res = np.zeros(4)
    jit(k_array_methods)[1, 1](np.arange(5), res)
    return res.tolist()


@pytest.mark.gpu
def test_overload_method_values():
    """numba-cuda's test_overload_method_kwargs / _literal_unpack: defaults, positional and keyword values."""
    assert _run_methods(cubridge.jit) == [10.0, 20.0, 30.0, float(0xCAFE)]


@pytest.mark.gpu
def test_overload_method_matches_numba_cuda():
    numba_cuda = pytest.importorskip("numba.cuda", reason="numba-cuda is not installed")
    if not hasattr(numba_cuda, "CUSource"):
        pytest.skip("this numba.cuda is numba's old built-in target, not numba-cuda")
    assert _run_methods(cubridge.jit) == _run_methods(numba_cuda.jit)


def k_prefer_lit(x, res):
    res[0] = prefer_lit(1)
    res[1] = prefer_lit(2)
    res[2] = prefer_lit(x)


def k_non_lit(x, res):
    res[0] = non_lit(1)
    res[1] = non_lit(2)
    res[2] = non_lit(x)


@pytest.mark.gpu
@pytest.mark.parametrize("kernel, expected", [(k_prefer_lit, [0xCAFE, 200, 300]), (k_non_lit, [100, 200, 300])],
                         ids=["prefer_literal", "plain"])
def test_literal_arguments_values(kernel, expected):
    """numba-cuda's TestOverloadPreferLiteral.test_overload."""
    res = np.zeros(3)
    cubridge.jit(kernel)[1, 1](3, res)
    assert res.tolist() == [float(v) for v in expected]
